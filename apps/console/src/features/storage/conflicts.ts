/**
 * Uploading over names that already exist in the target folder. The file service replaces a file of the
 * same name without asking, so the console asks first — 覆盖 / 保留两者 / 跳过 — once per upload, for
 * every clashing top-level name of what was picked (a loose file, or the top folder of a picked folder).
 */
import { PAGE_SIZE_MAX } from '@suanli/contracts';
import type { FileApi } from './api';
import type { Picked } from './collect';

export type ConflictChoice = 'overwrite' | 'keepBoth' | 'skip';

/** The first segment of a relative path: the name that lands in the target folder. */
const topOf = (relativePath: string) => relativePath.split('/')[0];

/** Every name the picked set puts directly into the target folder. */
export function topLevelNames(picked: Picked): Set<string> {
  const names = new Set<string>();
  for (const f of picked.files) names.add(topOf(f.relativePath));
  for (const d of picked.dirs) names.add(topOf(d));
  return names;
}

/** The names already in `dir` (paged through: a folder may hold more than one page). */
export async function existingNames(api: FileApi, dir: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let pageNum = 1; ; pageNum++) {
    // Silent: the caller shows a refusal once, with the rest of the upload's errors.
    const page = await api.list({ path: dir, pageNum, pageSize: PAGE_SIZE_MAX }, { silent: true });
    for (const e of page.list) names.add(e.name);
    if (page.list.length === 0 || pageNum * PAGE_SIZE_MAX >= page.total) return names;
  }
}

/**
 * `名称 (1).txt`, `名称 (2).txt`, … — the first not in `taken`. A folder (or a name without an extension,
 * or a dot file) gets the number at the end: `数据集 (1)`, `.env (1)`.
 */
export function freeName(name: string, taken: ReadonlySet<string>, isDir = false): string {
  const dot = isDir ? -1 : name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let i = 1; ; i++) {
    const candidate = `${stem} (${i})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The picked set after the user's choice for the clashing names. */
export function resolveConflicts(picked: Picked, clashes: ReadonlySet<string>, existing: ReadonlySet<string>, choice: ConflictChoice): Picked {
  if (choice === 'overwrite' || clashes.size === 0) return picked;
  if (choice === 'skip') {
    return {
      files: picked.files.filter((f) => !clashes.has(topOf(f.relativePath))),
      dirs: picked.dirs.filter((d) => !clashes.has(topOf(d))),
    };
  }
  // 保留两者: each clashing name gets a free one, free of the folder's names and of this upload's own.
  const taken = new Set([...existing, ...topLevelNames(picked)]);
  const renamed = new Map<string, string>();
  const isDir = (name: string) => picked.dirs.some((d) => topOf(d) === name) || picked.files.some((f) => f.relativePath.startsWith(`${name}/`));
  for (const name of clashes) {
    const next = freeName(name, taken, isDir(name));
    taken.add(next);
    renamed.set(name, next);
  }
  const rename = (relativePath: string) => {
    const [top, ...rest] = relativePath.split('/');
    const next = renamed.get(top);
    return next === undefined ? relativePath : [next, ...rest].join('/');
  };
  return {
    files: picked.files.map((f) => {
      const relativePath = rename(f.relativePath);
      if (relativePath === f.relativePath) return f;
      // A loose file is uploaded under its File's name: give it the new one (same bytes, no copy).
      const file = relativePath.includes('/') ? f.file : new File([f.file], relativePath, { type: f.file.type, lastModified: f.file.lastModified });
      return { file, relativePath };
    }),
    dirs: picked.dirs.map(rename),
  };
}
