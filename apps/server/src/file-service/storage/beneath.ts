import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../../errors';

/**
 * Race-free access beneath a root directory (a user's home, or their upload staging).
 *
 * Node has no openat(2), but Linux's `/proc/self/fd/<fd>/<name>` is one: the kernel resolves the magic link
 * `/proc/self/fd/<fd>` to the very directory the descriptor holds — wherever it has been renamed to — and
 * looks `<name>` up inside it. So a path is resolved one component at a time, each opened with
 * `O_DIRECTORY | O_NOFOLLOW` relative to the descriptor of its parent, and every use (open, mkdir, unlink,
 * rename, lstat, readdir) names its entry relative to the descriptor of the directory that was resolved —
 * never by a path string that is looked up again. A symlink anywhere on the way makes the open fail
 * (ELOOP) instead of being followed, so swapping a directory for a link between a check and a use (the race
 * `renameat2(RENAME_EXCHANGE)` wins against string checks) cannot lead outside the root. The opened
 * directory is then re-verified: its current path (what the kernel reports for the descriptor) must still
 * be inside the root, which catches a directory moved out of the root while it was being walked.
 *
 * See docs/adr/0004-files-as-the-user.md.
 */

const open = promisify(fs.open);
const close = promisify(fs.close);
const O = fs.constants;
const DIR_FLAGS = O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW;

/** The path that names `name` inside the directory held by `fd`, resolved by the kernel from the descriptor. */
export const at = (fd: number, name?: string) => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

export const illegalPath = (detail?: string) => new AppError(ErrorCode.ILLEGAL_PATH, detail ? `非法路径：${detail}` : undefined);
export const errCode = (e: unknown) => (e as NodeJS.ErrnoException)?.code;
export const isMissing = (e: unknown) => errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR';

/** Why a walk stopped: what the caller turns into 1302/1301 (missing, not a dir) or 1308 (a link). */
export class WalkError extends Error {
  constructor(
    readonly reason: 'missing' | 'not-dir' | 'link',
    /** How many components were resolved before the one that failed. */
    readonly depth: number,
  ) {
    super(reason);
  }
}

/** A directory held open beneath a root. `close()` must be called (try/finally). */
export class DirHandle {
  private closed = false;
  constructor(
    readonly fd: number,
    readonly segs: readonly string[],
  ) {}
  /** `/proc/self/fd/<fd>/<name>`: the entry `name` of this very directory. */
  at(name?: string) {
    return at(this.fd, name);
  }
  async close() {
    if (this.closed) return;
    this.closed = true;
    await close(this.fd).catch(() => {});
  }
}

export class Beneath {
  private realRoot: string | null = null;

  /**
   * `root` is trusted (operator configuration); everything below it is not. `opts.shared`: a team's folder
   * (ADR 0018) — the root is never created (a missing one is "missing"), and folders made beneath it are 0777
   * so the default ACL, not this mode, decides (any member may write in what another made). `opts.rootMode`:
   * a missing root is made with this mode by whichever operation finds it missing (a home on first use),
   * rather than by a mkdir before every operation (issue 26: that mkdir was ~2 % of a sync's CPU on each side).
   */
  constructor(
    readonly root: string,
    private readonly opts: { shared?: boolean; rootMode?: number } = {},
  ) {}

  /** The mode new folders are made with (bounded by the umask, or by the default ACL in a team's folder). */
  get dirMode() {
    return this.opts.shared ? 0o777 : 0o755;
  }

  /** The root directory, created when missing (a home on first use, a staging area). */
  async ensureRoot(mode = 0o700) {
    await fsp.mkdir(this.root, { recursive: true, mode });
  }

  /**
   * Opens the directory at `segs` below the root, one component at a time without following links.
   * `create`: missing components are made (mkdir relative to the parent's descriptor, then opened the
   * same way, so a link planted in between is still refused).
   */
  async openDir(segs: readonly string[], opts: { create?: boolean } = {}): Promise<DirHandle> {
    let fd = await this.openRoot(opts.create);
    try {
      for (let i = 0; i < segs.length; i++) {
        fd = await this.step(fd, segs[i], i, opts.create ?? false);
      }
      await this.verify(fd);
    } catch (e) {
      await close(fd).catch(() => {});
      throw e;
    }
    return new DirHandle(fd, segs);
  }

  /** Runs `fn` with the directory at `segs` open, closing it afterwards. */
  async withDir<T>(segs: readonly string[], fn: (dir: DirHandle) => Promise<T>, opts: { create?: boolean } = {}): Promise<T> {
    const dir = await this.openDir(segs, opts);
    try {
      return await fn(dir);
    } finally {
      await dir.close();
    }
  }

  private async openRoot(create?: boolean): Promise<number> {
    try {
      return await open(this.root, O.O_RDONLY | O.O_DIRECTORY);
    } catch (e) {
      if (this.opts.shared && isMissing(e)) throw new WalkError('missing', -1);
      if ((!create && this.opts.rootMode === undefined) || errCode(e) !== 'ENOENT') throw e;
      await this.ensureRoot(this.opts.rootMode);
      return open(this.root, O.O_RDONLY | O.O_DIRECTORY);
    }
  }

  private async step(parent: number, name: string, depth: number, create: boolean): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = await open(at(parent, name), DIR_FLAGS);
        await close(parent).catch(() => {});
        return fd;
      } catch (e) {
        const code = errCode(e);
        // O_DIRECTORY|O_NOFOLLOW on a link fails with ENOTDIR or ELOOP: lstat says which it was.
        if (code === 'ELOOP' || code === 'ENOTDIR') throw new WalkError((await isLinkAt(parent, name)) ? 'link' : 'not-dir', depth);
        if (code !== 'ENOENT') throw e;
        if (!create || attempt > 2) throw new WalkError('missing', depth);
        try {
          await fsp.mkdir(at(parent, name), this.dirMode);
        } catch (e2) {
          // Made by someone else meanwhile: open it (and refuse it if it is a link).
          if (errCode(e2) !== 'EEXIST') throw e2;
        }
      }
    }
  }

  /** The descriptor must still be below the root (a directory moved out while we walked is refused). */
  private async verify(fd: number) {
    this.realRoot ??= await fsp.realpath(this.root);
    const now = await fsp.readlink(at(fd));
    if (now !== this.realRoot && !now.startsWith(this.realRoot + path.sep)) throw illegalPath('路径已被移出用户空间');
  }
}

async function isLinkAt(parent: number, name: string) {
  try {
    return (await fsp.lstat(at(parent, name))).isSymbolicLink();
  } catch {
    return false;
  }
}

/** What a listing or a stat reports about one entry; links are reported as links and never followed. */
export interface RawStat {
  type: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mtimeMs: number;
  mode: number;
  ino: number;
  dev: number;
}

export function rawStat(st: fs.Stats): RawStat {
  const type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'other';
  return { type, size: type === 'file' || type === 'link' ? st.size : 0, mtimeMs: st.mtimeMs, mode: st.mode, ino: st.ino, dev: st.dev };
}

/** lstat of `name` in `dir`, or null when it does not exist. */
export async function lstatAt(dir: DirHandle, name: string): Promise<RawStat | null> {
  try {
    return rawStat(await fsp.lstat(dir.at(name)));
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/**
 * Opens a regular file `name` in `dir` without following a link; the descriptor is then checked to be a
 * regular file (a directory or device swapped in is refused).
 */
export async function openFileAt(dir: DirHandle, name: string, flags = O.O_RDONLY): Promise<fsp.FileHandle> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(dir.at(name), flags | O.O_NOFOLLOW);
  } catch (e) {
    if (errCode(e) === 'ELOOP') throw new WalkError('link', dir.segs.length);
    if (errCode(e) === 'ENOENT') throw new WalkError('missing', dir.segs.length);
    if (errCode(e) === 'EISDIR') throw new WalkError('not-dir', dir.segs.length);
    throw e;
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new WalkError('not-dir', dir.segs.length);
  }
  return fh;
}

/**
 * Removes `name` from `dir` and, for a directory, everything below it — each level opened with
 * O_NOFOLLOW relative to its parent's descriptor, so a link (even one swapped in mid-way) is unlinked as
 * a link and what it points to is never touched.
 */
export async function removeAt(dir: DirHandle, name: string): Promise<void> {
  let child: number;
  try {
    child = await open(dir.at(name), DIR_FLAGS);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT') return;
    if (code !== 'ELOOP' && code !== 'ENOTDIR') throw e;
    // Not a directory (a file, a link, anything else): the entry itself goes.
    await fsp.unlink(dir.at(name)).catch((e2: unknown) => {
      if (errCode(e2) === 'EISDIR') return removeAt(dir, name); // replaced by a directory meanwhile
      if (errCode(e2) !== 'ENOENT') throw e2;
    });
    return;
  }
  const sub = new DirHandle(child, [...dir.segs, name]);
  try {
    for (const n of await fsp.readdir(sub.at())) await removeAt(sub, n);
  } finally {
    await sub.close();
  }
  await fsp.rmdir(dir.at(name)).catch((e: unknown) => {
    if (errCode(e) !== 'ENOENT') throw e;
  });
}

/** Bytes of the regular files below `dir` (links count as nothing, nothing is followed); `skip` names are left out at the top. */
export async function treeBytesAt(dir: DirHandle, skip: (name: string) => boolean = () => false, opts: { skipDenied?: boolean } = {}): Promise<number> {
  // In a team's folder (ADR 0018) another member's private folder must not break everyone's usage (and with
  // it their uploads): what this account may not read is left out of the count.
  const denied = (e: unknown) => opts.skipDenied === true && (errCode(e) === 'EACCES' || errCode(e) === 'EPERM');
  let total = 0;
  let names: string[];
  try {
    names = await fsp.readdir(dir.at());
  } catch (e) {
    if (isMissing(e) || denied(e)) return 0;
    throw e;
  }
  for (const n of names) {
    if (skip(n)) continue;
    let st: RawStat | null;
    try {
      st = await lstatAt(dir, n);
    } catch (e) {
      if (denied(e)) continue;
      throw e;
    }
    if (st?.type === 'file') total += st.size;
    else if (st?.type === 'dir') {
      let fd: number;
      try {
        fd = await open(dir.at(n), DIR_FLAGS);
      } catch (e) {
        if (isMissing(e) || errCode(e) === 'ELOOP' || denied(e)) continue;
        throw e;
      }
      const sub = new DirHandle(fd, [...dir.segs, n]);
      try {
        total += await treeBytesAt(sub, () => false, opts);
      } finally {
        await sub.close();
      }
    }
  }
  return total;
}

/** Opens the subdirectory `name` of `dir` (no links), or null when it is not a directory any more. */
export async function openSubdir(dir: DirHandle, name: string): Promise<DirHandle | null> {
  try {
    return new DirHandle(await open(dir.at(name), DIR_FLAGS), [...dir.segs, name]);
  } catch (e) {
    if (isMissing(e) || errCode(e) === 'ELOOP') return null;
    throw e;
  }
}
