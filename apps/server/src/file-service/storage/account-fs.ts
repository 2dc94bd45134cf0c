// Over 400 lines: every file operation in an account's space, one class that the launcher's worker runs as the account (ADR 0004).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../../errors';
import {
  Beneath,
  errCode,
  illegalPath,
  lstatAt,
  openFileAt,
  openSubdir,
  removeAt,
  treeBytesAt,
  WalkError,
  type DirHandle,
  type RawStat,
} from './beneath';
import { ChunkStore } from './chunk-store';
import { writeAt, type Guard } from './write';

/** Temp files (uploads, copies) live next to their target under this prefix and are never listed. */
export const TEMP_PREFIX = '.suanli-upload-';
export const tempName = () => `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`;

export type Segs = readonly string[];
export const userPathOf = (segs: Segs) => `/${segs.join('/')}`;

const O = fs.constants;

/** A regular file opened for reading (a download): its stat when opened, and ranges of it as streams. */
export interface OpenedFile {
  stat: RawStat;
  /** Bytes [start, end] (inclusive) as a stream; the file is closed when the last stream ends (see `close`). */
  read(start: number, end: number): Readable;
  close(): Promise<void>;
}

/** An entry found by `walk` (for zips): a directory or a regular file, with its path relative to the start. */
export interface WalkedEntry {
  rel: string[];
  stat: RawStat;
}

/**
 * Every filesystem operation the file service performs in one account's space on one center: its home
 * and its upload staging. Paths are segments below the home (already parsed and checked by paths.ts).
 *
 * Two implementations with one behaviour: `LocalAccountFs` (this file) runs the operations in this
 * process — the embedded default, where cluster accounts are virtual and everything belongs to the service
 * user — and `WorkerAccountFs` forwards the same calls to a worker process started with the account's
 * uid/gid (real POSIX accounts), which runs a `LocalAccountFs` itself. The kernel then enforces the boundary
 * and new files belong to the account. See docs/adr/0004-files-as-the-user.md.
 */
export interface AccountFs {
  /** Entries of a directory (links as links, temp files left out); 1302 when it is not a directory. */
  list(dir: Segs): Promise<{ name: string; stat: RawStat }[]>;
  /** lstat of an entry (null when missing); the home itself for []. */
  stat(p: Segs): Promise<RawStat | null>;
  /** A new directory; 1303/1304 when the name is taken. */
  mkdir(p: Segs): Promise<RawStat>;
  /** The directory and its missing parents (0755); with `mode`, the directory is made or set to it. */
  ensureDir(p: Segs, mode?: number): Promise<void>;
  /**
   * Streams `source` into a temp file beside `p` and renames it over `p` (never over a directory: 1304);
   * `guard` sees every piece first (size and quota limits throw and abort); the temp file is gone on failure.
   * `mode` (default 0644) is the new file's.
   */
  writeFile(p: Segs, source: AsyncIterable<Buffer>, opts: { hash?: boolean; guard?: Guard; mode?: number }): Promise<{ bytes: number; sha256: string | null; stat: RawStat }>;
  /**
   * Makes an entry the account's: where a privileged process serves the space itself (the embedded default
   * run as root, the test harness) it is given to the home's owner; a worker running as the account already
   * writes as it. For files another program checks the owner of (sshd and authorized_keys).
   */
  giveToAccount(p: Segs): Promise<void>;
  /** Removes an entry (a directory with everything below it; a link as a link). */
  remove(p: Segs): Promise<void>;
  /** Renames/moves an entry; 1303/1304 when the destination exists. */
  rename(from: Segs, to: Segs): Promise<RawStat>;
  /** Copies an entry (links copied as links) through a temp name; 1303/1304 when the destination exists. */
  copy(from: Segs, to: Segs): Promise<RawStat>;
  /** Bytes of the regular files below `p`. */
  treeBytes(p: Segs): Promise<number>;
  /** Opens a regular file for reading; 1301 when missing or not a regular file. */
  openFile(p: Segs): Promise<OpenedFile>;
  /** The directories and regular files below `p` (depth first, sorted), for an archive. */
  walk(p: Segs): Promise<WalkedEntry[]>;
  /** The account's upload staging (see chunk-store.ts). */
  readonly staging: Staging;
  /** Moves an upload's staged data file to `p` in the home (the merge); returns the new entry's stat. */
  commitStaged(identifier: string, p: Segs): Promise<RawStat>;
  /** Releases whatever the implementation holds (worker connections). */
  release(): void;
}

/** The staging operations of chunk-store.ts (ChunkStore in this process; forwarded for a worker). */
export type Staging = Pick<
  ChunkStore,
  | 'dataPath'
  | 'readMeta'
  | 'ensure'
  | 'hasData'
  | 'dataSize'
  | 'uploaded'
  | 'hasChunk'
  | 'markComplete'
  | 'unmark'
  | 'writeRange'
  | 'hashData'
  | 'exists'
  | 'remove'
  | 'stagedBytes'
  | 'cleanup'
  | 'identifiers'
>;

export const fileErr = (code: number, detail: string) => new AppError(code, `${errorText(code)}：${detail}`);
const errorText = (code: number) => new AppError(code).message;

/** A name clash: 1304 when a directory is in the way, 1303 for anything else. */
export const clash = (existing: RawStat, p: Segs) => fileErr(existing.type === 'dir' ? ErrorCode.DIR_EXISTS : ErrorCode.FILE_EXISTS, userPathOf(p));

/**
 * Turns why a walk stopped into the answer the user gets: a link on the way is an illegal path (1308,
 * links are never followed), anything missing or not a directory is "not found" with `missingCode`.
 */
export function walkFailure(e: unknown, p: Segs, missingCode: number = ErrorCode.DIR_NOT_FOUND): never {
  // The kernel said no (a team's folder whose ACL no longer lets this account in, ADR 0018).
  if (errCode(e) === 'EACCES' || errCode(e) === 'EPERM') throw new AppError(ErrorCode.NO_PERMISSION, `没有权限访问：${userPathOf(p)}`);
  if (e instanceof WalkError) {
    if (e.reason === 'link') throw illegalPath(`路径中的 ${userPathOf(p.slice(0, e.depth + 1))} 是符号链接，平台不会跟随`);
    throw fileErr(missingCode, userPathOf(p));
  }
  throw e;
}

/** A link where a directory or file is expected: refused as such (1308), never followed. */
export function refuseLink(st: RawStat | null, p: Segs): void {
  if (st?.type === 'link') throw illegalPath(`${userPathOf(p)} 是符号链接，平台不会跟随`);
}

const parentOf = (p: Segs) => p.slice(0, -1);
const nameOf = (p: Segs) => p[p.length - 1];

/** The account's space in this process (see AccountFs). */
export class LocalAccountFs implements AccountFs {
  readonly home: Beneath;
  readonly staging: ChunkStore;

  /**
   * `shared`: the space is a team's folder (ADR 0018): never created, new entries writable by every member.
   * `homeMode`: a missing home is made with this mode by the first operation that finds it missing.
   */
  constructor(
    homeDir: string,
    stagingDir: string,
    private readonly opts: { shared?: boolean; homeMode?: number } = {},
  ) {
    this.home = new Beneath(homeDir, { shared: opts.shared, rootMode: opts.shared ? undefined : opts.homeMode });
    this.staging = new ChunkStore(new Beneath(stagingDir));
  }

  release() {}

  /** Runs `fn` in the directory `dir`, mapping a failed walk to 1302/1308 (`missingCode` for "not found"). */
  private inDir<T>(dir: Segs, fn: (d: DirHandle) => Promise<T>, opts: { create?: boolean; missingCode?: number; whole?: Segs } = {}): Promise<T> {
    return this.home.withDir(dir, fn, { create: opts.create }).catch((e: unknown) => walkFailure(e, opts.whole ?? dir, opts.missingCode));
  }

  async list(dir: Segs) {
    return this.inDir(dir, async (d) => {
      const names = (await fsp.readdir(d.at())).filter((n) => !n.startsWith(TEMP_PREFIX));
      const out: { name: string; stat: RawStat }[] = [];
      // Bounded batches: a directory of 100k entries must not start 100k lstat calls at once.
      for (let i = 0; i < names.length; i += 256) {
        const batch = await Promise.all(names.slice(i, i + 256).map((n) => lstatAt(d, n)));
        batch.forEach((stat, k) => {
          if (stat && stat.type !== 'other') out.push({ name: names[i + k], stat });
        });
      }
      return out;
    });
  }

  async stat(p: Segs) {
    if (!p.length) return this.inDir([], async (d) => lstatAt(d, '.'));
    try {
      return await this.home.withDir(parentOf(p), (d) => lstatAt(d, nameOf(p)));
    } catch (e) {
      if (e instanceof WalkError && e.reason !== 'link') return null;
      return walkFailure(e, p);
    }
  }

  async mkdir(p: Segs) {
    return this.inDir(parentOf(p), async (d) => {
      try {
        await fsp.mkdir(d.at(nameOf(p)), this.home.dirMode);
      } catch (e) {
        if (errCode(e) !== 'EEXIST') throw e;
        throw clash((await lstatAt(d, nameOf(p)))!, p);
      }
      return (await lstatAt(d, nameOf(p)))!;
    });
  }

  async ensureDir(p: Segs, mode?: number) {
    // chmod through the descriptor the walk opened (never a path that could be swapped for a link).
    await this.inDir(p, async (d) => mode === undefined ? undefined : fsp.chmod(d.at(), mode), { create: true });
  }

  async writeFile(p: Segs, source: AsyncIterable<Buffer>, opts: { hash?: boolean; guard?: Guard; mode?: number }) {
    return this.inDir(
      parentOf(p),
      async (d) => {
        const existing = await lstatAt(d, nameOf(p));
        if (existing?.type === 'dir') throw clash(existing, p);
        const temp = tempName();
        const fh = await fsp.open(d.at(temp), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, opts.mode ?? (this.opts.shared ? 0o666 : 0o644));
        try {
          const r = await writeAt(source, fh, 0, { guard: opts.guard, hash: opts.hash ?? false });
          await fh.close();
          await renameOver(d, temp, d, nameOf(p), p);
          return { ...r, stat: (await lstatAt(d, nameOf(p)))! };
        } catch (e) {
          await fh.close().catch(() => {});
          await fsp.unlink(d.at(temp)).catch(() => {});
          throw e;
        }
      },
      { create: true, whole: p },
    );
  }

  async giveToAccount(p: Segs) {
    if (process.getuid?.() !== 0 || !p.length) return;
    const owner = await this.inDir([], (h) => fsp.stat(h.at()));
    await this.inDir(parentOf(p), async (d) => {
      // lchown on a name in the held directory: a link is changed itself, never what it points to.
      if (await lstatAt(d, nameOf(p))) await fsp.lchown(d.at(nameOf(p)), owner.uid, owner.gid);
    });
  }

  async remove(p: Segs) {
    await this.inDir(parentOf(p), async (d) => {
      if (!(await lstatAt(d, nameOf(p)))) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(p));
      await removeAt(d, nameOf(p));
    }, { missingCode: ErrorCode.FILE_NOT_FOUND, whole: p });
  }

  async rename(from: Segs, to: Segs) {
    return this.transfer(from, to, async (src, dst) => {
      try {
        await fsp.rename(src.at(nameOf(from)), dst.at(nameOf(to)));
      } catch (e) {
        // A directory into itself or below: the kernel refuses it.
        if (errCode(e) === 'EINVAL') throw illegalPath('不能将目录移动到其自身或子目录中');
        if (errCode(e) !== 'EXDEV') throw e;
        await copyEntry(src, nameOf(from), dst, nameOf(to), to);
        await removeAt(src, nameOf(from));
      }
    });
  }

  async copy(from: Segs, to: Segs) {
    return this.transfer(from, to, (src, dst) => copyEntry(src, nameOf(from), dst, nameOf(to), to));
  }

  /** Both parent directories open, the source there and the destination free (1301 / 1303 / 1304), then `act`. */
  private transfer(from: Segs, to: Segs, act: (src: DirHandle, dst: DirHandle) => Promise<void>): Promise<RawStat> {
    return this.inDir(
      parentOf(from),
      (src) =>
        this.inDir(parentOf(to), async (dst) => {
          if (!(await lstatAt(src, nameOf(from)))) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(from));
          const there = await lstatAt(dst, nameOf(to));
          if (there) throw clash(there, to);
          await act(src, dst);
          return (await lstatAt(dst, nameOf(to)))!;
        }),
      { missingCode: ErrorCode.FILE_NOT_FOUND, whole: from },
    );
  }

  async treeBytes(p: Segs) {
    return this.inDir(p, (d) => treeBytesAt(d, undefined, { skipDenied: this.opts.shared }));
  }

  async openFile(p: Segs): Promise<OpenedFile> {
    if (!p.length) throw fileErr(ErrorCode.FILE_NOT_FOUND, '/');
    const fh = await this.inDir(parentOf(p), (d) => openFileAt(d, nameOf(p)).catch((e: unknown) => walkFailure(e, p, ErrorCode.FILE_NOT_FOUND)), {
      missingCode: ErrorCode.FILE_NOT_FOUND,
      whole: p,
    });
    return openedFile(fh);
  }

  async walk(p: Segs): Promise<WalkedEntry[]> {
    return this.inDir(p, async (d) => {
      const out: WalkedEntry[] = [];
      const visit = async (dir: DirHandle, rel: string[]) => {
        const names = (await fsp.readdir(dir.at())).filter((n) => !n.startsWith(TEMP_PREFIX)).sort();
        for (const n of names) {
          const st = await lstatAt(dir, n);
          if (st?.type === 'file') out.push({ rel: [...rel, n], stat: st });
          else if (st?.type === 'dir') {
            const sub = await openSubdir(dir, n);
            if (!sub) continue;
            out.push({ rel: [...rel, n], stat: st });
            try {
              await visit(sub, [...rel, n]);
            } finally {
              await sub.close();
            }
          }
        }
      };
      await visit(d, []);
      return out;
    });
  }

  async commitStaged(identifier: string, p: Segs) {
    return this.staging.withUpload(identifier, (staged) =>
      this.inDir(
        parentOf(p),
        async (d) => {
          const existing = await lstatAt(d, nameOf(p));
          if (existing?.type === 'dir') throw clash(existing, p);
          // In a team's folder every member writes what one uploaded: the mode is set while the file is still
          // in the private staging (a rename keeps it; the folder's default ACL applies to new files only).
          if (this.opts.shared) {
            const data = await fsp.open(staged.at('data'), O.O_RDONLY | O.O_NOFOLLOW);
            await data.chmod(0o666).finally(() => data.close());
          }
          try {
            await fsp.rename(staged.at('data'), d.at(nameOf(p)));
          } catch (e) {
            // Staging and home on different file systems: one streamed copy to a temp file beside the target.
            if (errCode(e) !== 'EXDEV') throw e;
            await copyEntry(staged, 'data', d, nameOf(p), p);
          }
          return (await lstatAt(d, nameOf(p)))!;
        },
        { create: true, whole: p },
      ),
    );
  }
}

/** rename(2) of `from` in `src` onto `to` in `dst`; a directory in the way answers 1304. */
async function renameOver(src: DirHandle, from: string, dst: DirHandle, to: string, p: Segs) {
  try {
    await fsp.rename(src.at(from), dst.at(to));
  } catch (e) {
    if (errCode(e) === 'EISDIR' || errCode(e) === 'ENOTEMPTY' || errCode(e) === 'EEXIST') throw clash((await lstatAt(dst, to)) ?? { type: 'dir' } as RawStat, p);
    throw e;
  }
}

/**
 * Copies the entry `name` of `src` to `to` in `dst` through a temp name (no half copy ever carries the
 * name): files streamed (opened O_NOFOLLOW), directories level by level through descriptors, links
 * re-created as links (their targets are never read).
 */
async function copyEntry(src: DirHandle, name: string, dst: DirHandle, to: string, p: Segs) {
  const temp = tempName();
  try {
    await copyInto(src, name, dst, temp);
    await renameOver(dst, temp, dst, to, p);
  } catch (e) {
    await removeAt(dst, temp).catch(() => {});
    throw e;
  }
}

async function copyInto(src: DirHandle, name: string, dst: DirHandle, to: string): Promise<void> {
  const st = await lstatAt(src, name);
  if (!st) return;
  if (st.type === 'link') {
    await fsp.symlink(await fsp.readlink(src.at(name)), dst.at(to));
  } else if (st.type === 'file') {
    const from = await openFileAt(src, name);
    try {
      const out = await fsp.open(dst.at(to), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, st.mode & 0o777);
      try {
        await writeAt(from.createReadStream({ autoClose: false, start: 0 }), out, 0, {});
      } finally {
        await out.close();
      }
      await fsp.utimes(dst.at(to), new Date(st.mtimeMs), new Date(st.mtimeMs)).catch(() => {});
    } finally {
      await from.close();
    }
  } else if (st.type === 'dir') {
    const sub = await openSubdir(src, name);
    if (!sub) return;
    try {
      await fsp.mkdir(dst.at(to), st.mode & 0o777);
      const made = await openSubdir(dst, to);
      if (!made) throw illegalPath();
      try {
        for (const n of (await fsp.readdir(sub.at())).filter((x) => !x.startsWith(TEMP_PREFIX))) await copyInto(sub, n, made, n);
      } finally {
        await made.close();
      }
    } finally {
      await sub.close();
    }
  }
}

/** Wraps an open file handle: ranges are read from the descriptor resolved at open time, never by path. */
function openedFile(fh: fsp.FileHandle): Promise<OpenedFile> {
  return fh.stat().then((st) => {
    let streams = 0;
    let closing = false;
    const closeNow = () => fh.close().catch(() => {});
    return {
      stat: { type: 'file', size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, ino: st.ino, dev: st.dev },
      read(start: number, end: number) {
        streams++;
        // 1 MiB reads rather than the default 64 KiB: a GiB served is 1k read calls instead of 16k (bench/sync).
        const s = fh.createReadStream({ start, end, autoClose: false, highWaterMark: 1024 * 1024 });
        // autoClose is off (several ranges may share the descriptor), so the end of each stream is watched.
        finished(s, () => {
          if (--streams === 0 && closing) void closeNow();
        });
        return s;
      },
      async close() {
        closing = true;
        if (streams === 0) await closeNow();
      },
    } satisfies OpenedFile;
  });
}
