import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../../errors';

/** Temp files (uploads, merges, copies) live next to their target under this prefix and are never listed. */
export const TEMP_PREFIX = '.suanli-upload-';

const MAX_SEGMENT_BYTES = 255;

export const illegalPath = (detail?: string) =>
  new AppError(ErrorCode.ILLEGAL_PATH, detail ? `非法路径：${detail}` : undefined);

/**
 * A user-visible path split into its segments. `/` (and '') is the home; a leading `/` is optional and
 * never means the host's root. `..`, NUL and backslashes are refused outright rather than normalised away,
 * so a client that sends them learns it is wrong instead of landing somewhere unexpected.
 */
export function parseUserPath(p: string): string[] {
  if (p.includes('\0')) throw illegalPath('路径中不能包含空字符');
  if (p.includes('\\')) throw illegalPath('路径中不能包含反斜杠');
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  for (const s of segments) {
    if (s === '..') throw illegalPath(`路径中不能包含 ..：${p}`);
    if (Buffer.byteLength(s) > MAX_SEGMENT_BYTES) throw illegalPath('名称过长');
  }
  return segments;
}

/** The canonical user path of some segments: `/a/b`. */
export const userPathOf = (segments: readonly string[]) => `/${segments.join('/')}`;

/** A single name (new folder, rename target, uploaded file name): one segment, nothing that walks. */
export function checkName(name: string): string {
  if (name.includes('/') || name.includes('\\') || name.includes('\0')) throw illegalPath(`名称不能包含 / \\ 或空字符：${name}`);
  if (name === '.' || name === '..' || name.trim() === '') throw illegalPath(`名称不合法：${name}`);
  if (Buffer.byteLength(name) > MAX_SEGMENT_BYTES) throw illegalPath('名称过长');
  if (name.startsWith(TEMP_PREFIX)) throw illegalPath(`名称不能以 ${TEMP_PREFIX} 开头`);
  return name;
}

export const isInside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** A user's space on this center: the home, and its real path (symlinks in the storage root resolved). */
export interface Space {
  realHome: string;
}

export async function openSpace(homeDir: string): Promise<Space> {
  await fs.mkdir(homeDir, { recursive: true });
  return { realHome: await fs.realpath(homeDir) };
}

/**
 * Where `segments` lives on disk, proven to stay inside the home: the deepest entry that exists (the path
 * itself or an ancestor) is resolved with realpath — following every symlink on the way — and must land
 * inside the real home. A dangling symlink anywhere on the path is refused, because creating a file
 * "through" it would write wherever it points.
 *
 * Returns the lexical path (inside the real home, symlinks not followed, so delete/rename act on a link
 * itself) and, when the path exists, its real path (what reads must open).
 */
export async function confine(space: Space, segments: readonly string[]): Promise<{ abs: string; real: string | null }> {
  const abs = path.join(space.realHome, ...segments);
  if (!isInside(space.realHome, abs)) throw illegalPath();
  let cur = abs;
  for (;;) {
    let real: string | null = null;
    try {
      real = await fs.realpath(cur);
    } catch (e) {
      if (!isMissing(e)) throw e;
      // realpath fails both for a missing entry and for a link to nothing; lstat tells them apart. An entry
      // created in between (a concurrent upload or merge making the directory) resolves on a second try.
      if (await lexists(cur)) {
        try {
          real = await fs.realpath(cur);
        } catch (e2) {
          if (!isMissing(e2)) throw e2;
          throw illegalPath('路径包含无效的符号链接');
        }
      }
    }
    if (real !== null) {
      if (!isInside(space.realHome, real)) throw illegalPath('路径指向用户空间之外');
      return { abs, real: cur === abs ? real : null };
    }
    if (cur === space.realHome) throw illegalPath();
    cur = path.dirname(cur);
  }
}

async function lexists(p: string) {
  try {
    await fs.lstat(p);
    return true;
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

export const isMissing = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};
export const errCode = (e: unknown) => (e as NodeJS.ErrnoException)?.code;
