import { ErrorCode, idToPath, pathToId, type DirectoryBody, type DirectoryQuery, type FileEntry, type Page, type Usage } from '@suanli/contracts';
import type { Static } from '@sinclair/typebox';
import { spaceKey, type FileUser } from './identity';
import { clash, fileErr, refuseLink, userPathOf, type AccountFs, type Segs } from './storage/account-fs';
import { illegalPath, type RawStat } from './storage/beneath';
import { checkName, parseUserPath } from './storage/paths';
import type { Spaces } from './storage/spaces';

const collator = new Intl.Collator('zh-CN', { numeric: true, sensitivity: 'base' });
const HAN = /^\p{Script=Han}/u;
/** Names as a Chinese file manager shows them: digits and Latin first (numeric-aware), then Han by pinyin. */
const compareNames = (a: string, b: string) => Number(HAN.test(a)) - Number(HAN.test(b)) || collator.compare(a, b);

/** The contract's entry for a stat: links are shown as links (type `link`, the link's own size). */
export function toEntry(segs: Segs, st: RawStat): FileEntry {
  const p = userPathOf(segs);
  const type = st.type === 'dir' ? 'dir' : st.type === 'link' ? 'link' : 'file';
  return { id: pathToId(p), name: segs[segs.length - 1] ?? '/', path: p, type, size: type === 'dir' ? 0 : st.size, updateTime: Math.round(st.mtimeMs) };
}

/** An existing entry to act on itself (delete, rename, move, copy source); never the home itself. */
async function existing(fs: AccountFs, segs: Segs): Promise<RawStat> {
  if (!segs.length) throw illegalPath('不能对根目录执行此操作');
  const st = await fs.stat(segs);
  if (!st) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(segs));
  return st;
}

/** Listing, folders, delete, rename, move, copy and usage: the file manager's operations. */
export class FolderService {
  constructor(private readonly spaces: Spaces) {}

  async list(user: FileUser, q: Static<typeof DirectoryQuery>, b: Static<typeof DirectoryBody>): Promise<Page<FileEntry>> {
    const segs = parseUserPath(q.path ?? '/');
    const keyword = b.keyword?.trim().toLowerCase();
    const raw = await this.spaces.with(user, (fs) => fs.list(segs));
    const entries = raw.filter((e) => !keyword || e.name.toLowerCase().includes(keyword)).map((e) => toEntry([...segs, e.name], e.stat));
    const dirFirst = (a: FileEntry, c: FileEntry) => (a.type === c.type ? 0 : a.type === 'dir' ? -1 : c.type === 'dir' ? 1 : 0);
    const field = b.sortField ?? 'name';
    const sign = b.sortOrder === 'descend' ? -1 : 1;
    const byField = (a: FileEntry, c: FileEntry) =>
      field === 'name' ? compareNames(a.name, c.name) : (a[field] as number) - (c[field] as number) || compareNames(a.name, c.name);
    entries.sort((a, c) => dirFirst(a, c) || sign * byField(a, c));
    const start = (q.pageNum - 1) * q.pageSize;
    return { list: entries.slice(start, start + q.pageSize), total: entries.length, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async mkdir(user: FileUser, parentId: string, rawName: string): Promise<FileEntry> {
    const segs = parseUserPath(decodeId(parentId));
    const name = checkName(rawName);
    return this.spaces.with(user, async (fs) => toEntry([...segs, name], await fs.mkdir([...segs, name])));
  }

  async remove(user: FileUser, paths: string[]): Promise<null> {
    await this.spaces.with(user, async (fs) => {
      // Everything is checked before anything is deleted: one bad path refuses the whole request.
      const targets = paths.map(parseUserPath);
      for (const segs of targets) await existing(fs, segs);
      for (const segs of targets) await fs.remove(segs);
    });
    this.spaces.usage.invalidate(spaceKey(user));
    return null;
  }

  async rename(user: FileUser, p: string, rawName: string): Promise<FileEntry> {
    const segs = parseUserPath(p);
    const newName = checkName(rawName);
    return this.spaces.with(user, async (fs) => {
      const st = await existing(fs, segs);
      const destSegs = [...segs.slice(0, -1), newName];
      if (newName === segs[segs.length - 1]) return toEntry(destSegs, st);
      return toEntry(destSegs, await fs.rename(segs, destSegs));
    });
  }

  async move(user: FileUser, paths: string[], targetDir: string): Promise<FileEntry[]> {
    return this.spaces.with(user, async (fs) => {
      const plan = await this.planTransfer(fs, paths, targetDir, 'move');
      const out: FileEntry[] = [];
      for (const t of plan) {
        const st = t.same ? await existing(fs, t.src) : await fs.rename(t.src, t.dest);
        out.push(toEntry(t.dest, st));
      }
      return out;
    });
  }

  async copy(user: FileUser, paths: string[], targetDir: string): Promise<FileEntry[]> {
    const out = await this.spaces.with(user, async (fs) => {
      const plan = await this.planTransfer(fs, paths, targetDir, 'copy');
      let total = 0;
      for (const t of plan) total += t.stat.type === 'dir' ? await fs.treeBytes(t.src) : t.stat.type === 'file' ? t.stat.size : 0;
      const quota = await this.spaces.quotaGuard(user, fs, 0);
      try {
        quota.take(total);
      } finally {
        quota.release();
      }
      const entries: FileEntry[] = [];
      for (const t of plan) entries.push(toEntry(t.dest, await fs.copy(t.src, t.dest)));
      return entries;
    });
    this.spaces.usage.invalidate(spaceKey(user));
    return out;
  }

  /**
   * Validates a whole move/copy before any of it happens: sources exist, no clash, no directory into
   * itself. Paths are resolved without following links, so a lexical prefix is exact.
   */
  private async planTransfer(fs: AccountFs, paths: string[], targetDir: string, op: 'move' | 'copy') {
    const tsegs = parseUserPath(targetDir);
    const target = await fs.stat(tsegs);
    refuseLink(target, tsegs);
    if (target?.type !== 'dir') throw fileErr(ErrorCode.DIR_NOT_FOUND, userPathOf(tsegs));
    const plan: { src: string[]; dest: string[]; stat: RawStat; same: boolean }[] = [];
    const names = new Set<string>();
    for (const p of paths) {
      const src = parseUserPath(p);
      const stat = await existing(fs, src);
      const name = src[src.length - 1];
      const dest = [...tsegs, name];
      if (stat.type === 'dir' && src.length <= tsegs.length && src.every((s, i) => tsegs[i] === s)) {
        throw illegalPath(op === 'move' ? '不能将目录移动到其自身或子目录中' : '不能将目录复制到其自身或子目录中');
      }
      const same = userPathOf(dest) === userPathOf(src);
      if (!(op === 'move' && same)) {
        const there = await fs.stat(dest);
        if (there) throw clash(there, dest);
        if (names.has(name)) throw fileErr(ErrorCode.FILE_EXISTS, userPathOf(dest));
      }
      names.add(name);
      plan.push({ src, dest, stat, same });
    }
    return plan;
  }

  async usageOf(user: FileUser): Promise<Usage> {
    const stored = await this.spaces.with(user, (fs) => this.spaces.storedBytes(user, fs));
    return { used: stored + this.spaces.usage.inflightOf(spaceKey(user)), quota: this.spaces.center.quotaBytes };
  }
}

function decodeId(id: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(id)) throw illegalPath('目录 id 不合法');
  try {
    return idToPath(id) || '/';
  } catch {
    throw illegalPath('目录 id 不合法');
  }
}
