import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  ErrorCode,
  idToPath,
  pathToId,
  SMALL_UPLOAD_MAX,
  UPLOAD_CHUNK_SIZE,
  type ChunkStatus,
  type ChunkUploadFields,
  type FileEntry,
  type Page,
  type Usage,
} from '@suanli/contracts';
import type { CenterConfig } from '../centers/centers';
import { AppError, invalid } from '../errors';
import type { FileUser } from './identity';
import { ChunkStore, chunkCountOf, chunkOffset, expectedChunkLength, STALE_UPLOAD_MS, type UploadMeta } from './storage/chunk-store';
import { HashIndex } from './storage/hash-index';
import { checkName, confine, errCode, illegalPath, isInside, isMissing, openSpace, parseUserPath, TEMP_PREFIX, userPathOf, type Space } from './storage/paths';
import { hashFile, KeyedLock, ProgressiveHash, streamToFile, streamToRange } from './storage/streams';
import { treeBytes, UsageMeter } from './storage/usage';
import { collectZipItems, type ZipRoot } from './storage/zip';

export interface ListQuery {
  path?: string;
  pageNum: number;
  pageSize: number;
}
export interface ListBody {
  keyword?: string;
  sortField?: 'name' | 'size' | 'updateTime';
  sortOrder?: 'ascend' | 'descend';
}
export interface MergeInput {
  identifier: string;
  filename: string;
  path: string;
  totalChunks: number;
  totalSize: number;
  hash?: string;
}
export interface ChunkStatusInput {
  identifier: string;
  path: string;
  filename: string;
  totalSize: number;
  hash?: string;
}
/** A file part of a multipart request: its bytes and whether busboy cut it at the size limit. */
export type IncomingFile = Readable & { truncated?: boolean };

/** What a download turned into: one open file (Range-capable) or a set of entries to zip. */
export type DownloadPlan =
  | { kind: 'file'; name: string; file: fs.FileHandle; stat: Stats }
  | { kind: 'zip'; name: string; roots: ZipRoot[] };

const collator = new Intl.Collator('zh-CN', { numeric: true, sensitivity: 'base' });
const HAN = /^\p{Script=Han}/u;
/** Names as a Chinese file manager shows them: digits and Latin first (numeric-aware), then Han by pinyin. */
const compareNames = (a: string, b: string) => Number(HAN.test(a)) - Number(HAN.test(b)) || collator.compare(a, b);
const fileErr = (code: number, detail: string) => new AppError(code, `${ERROR_TEXT[code]}：${detail}`);
const ERROR_TEXT: Record<number, string> = {
  [ErrorCode.FILE_FAILED]: '文件操作失败',
  [ErrorCode.FILE_NOT_FOUND]: '文件不存在',
  [ErrorCode.DIR_NOT_FOUND]: '目录不存在',
  [ErrorCode.FILE_EXISTS]: '文件已存在',
  [ErrorCode.DIR_EXISTS]: '目录已存在',
  [ErrorCode.CHUNK_MISSING]: '分片缺失，无法合并',
  [ErrorCode.FILE_CHECK_FAILED]: '文件校验失败',
  [ErrorCode.NO_SPACE]: '存储空间不足',
  [ErrorCode.FILE_TOO_LARGE]: '文件过大',
};

const tempName = () => `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`;

function mib(n: number) {
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** A name clash: 1304 when a directory is in the way, 1303 for anything else. */
function clash(existing: Stats, userPath: string) {
  return existing.isDirectory() ? fileErr(ErrorCode.DIR_EXISTS, userPath) : fileErr(ErrorCode.FILE_EXISTS, userPath);
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fs.lstat(p);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

export interface FileServiceOptions {
  center: CenterConfig;
  clock: () => number;
  /** Advertised to clients; 8 MiB by contract. */
  chunkSize?: number;
}

/**
 * The file operations of one center for one caller at a time. Every method starts by confining the
 * caller's paths to their home (paths.ts); uploads stream to a temp file next to the target and are
 * renamed into place only when complete and verified, so a reader never sees half a file under its name.
 */
export class FileService {
  readonly center: CenterConfig;
  readonly chunks: ChunkStore;
  readonly index: HashIndex;
  readonly usage: UsageMeter;
  private readonly clock: () => number;
  private readonly chunkSize: number;
  private readonly locks = new KeyedLock();
  /** Chunk streams in progress per `account/identifier`, so cleanup never removes a live upload. */
  private readonly writing = new Map<string, number>();
  /** Running content hash per `account/identifier` (see ProgressiveHash). */
  private readonly hashers = new Map<string, ProgressiveHash>();

  constructor(opts: FileServiceOptions) {
    this.center = opts.center;
    this.clock = opts.clock;
    this.chunkSize = opts.chunkSize ?? UPLOAD_CHUNK_SIZE;
    this.chunks = new ChunkStore(path.join(opts.center.storageRoot, '.uploads'));
    this.index = new HashIndex(path.join(opts.center.storageRoot, '.meta', 'index.db'));
    // Real time, not the injected clock: this TTL only bounds how stale a cached walk of the disk may be.
    this.usage = new UsageMeter(Date.now);
  }

  close() {
    this.index.close();
  }

  // ---- listing and folders -------------------------------------------------------------------------

  async list(user: FileUser, q: ListQuery, b: ListBody): Promise<Page<FileEntry>> {
    const space = await openSpace(user.homeDir);
    const segs = parseUserPath(q.path ?? '/');
    const dir = await this.existingDir(space, segs);
    const keyword = b.keyword?.trim().toLowerCase();
    const names = (await fs.readdir(dir)).filter((n) => !n.startsWith(TEMP_PREFIX) && (!keyword || n.toLowerCase().includes(keyword)));
    const entries: FileEntry[] = [];
    // Bounded batches: a directory of 100k entries must not open 100k stat calls at once.
    for (let i = 0; i < names.length; i += 256) {
      const batch = await Promise.all(names.slice(i, i + 256).map((n) => this.listedStat(space, path.join(dir, n))));
      batch.forEach((st, k) => {
        if (st) entries.push(toEntry([...segs, names[i + k]], st));
      });
    }
    const dirFirst = (a: FileEntry, c: FileEntry) => (a.type === c.type ? 0 : a.type === 'dir' ? -1 : 1);
    const field = b.sortField ?? 'name';
    const sign = b.sortOrder === 'descend' ? -1 : 1;
    const byField = (a: FileEntry, c: FileEntry) =>
      field === 'name' ? compareNames(a.name, c.name) : (a[field] as number) - (c[field] as number) || compareNames(a.name, c.name);
    entries.sort((a, c) => dirFirst(a, c) || sign * byField(a, c));
    const start = (q.pageNum - 1) * q.pageSize;
    return { list: entries.slice(start, start + q.pageSize), total: entries.length, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /** An entry's stat for listing: symlinks show what they point to, and only when that stays inside. */
  private async listedStat(space: Space, p: string): Promise<Stats | null> {
    let st = await lstatOrNull(p);
    if (st?.isSymbolicLink()) {
      try {
        const real = await fs.realpath(p);
        st = isInside(space.realHome, real) ? await fs.stat(real) : null;
      } catch {
        st = null;
      }
    }
    return st && (st.isFile() || st.isDirectory()) ? st : null;
  }

  async mkdir(user: FileUser, parentId: string, name: string): Promise<FileEntry> {
    const space = await openSpace(user.homeDir);
    const segs = parseUserPath(decodeId(parentId));
    checkName(name);
    await this.existingDir(space, segs);
    const target = await confine(space, [...segs, name]);
    try {
      await fs.mkdir(target.abs);
    } catch (e) {
      if (errCode(e) !== 'EEXIST') throw e;
      throw clash((await lstatOrNull(target.abs))!, userPathOf([...segs, name]));
    }
    return toEntry([...segs, name], await fs.lstat(target.abs));
  }

  // ---- uploads -------------------------------------------------------------------------------------

  /** `POST /file/upload`: one small file, streamed to a temp file, then renamed over the target. */
  async uploadSmall(user: FileUser, dirPath: string, filename: string, file: IncomingFile): Promise<FileEntry> {
    const space = await openSpace(user.homeDir);
    const segs = parseUserPath(dirPath);
    checkName(filename);
    const dir = await this.ensureDir(space, segs);
    const target = path.join(dir, filename);
    const existing = await lstatOrNull(target);
    if (existing?.isDirectory()) throw clash(existing, userPathOf([...segs, filename]));
    void this.sweepTemps(dir);
    const quota = await this.quotaGuard(user, space, existing?.isFile() ? existing.size : 0);
    const temp = path.join(dir, tempName());
    try {
      const { bytes, sha256 } = await streamToFile(file, temp, {
        hash: true,
        guard: (total, piece) => {
          if (total > SMALL_UPLOAD_MAX) throw fileErr(ErrorCode.FILE_TOO_LARGE, `单次上传不能超过 ${mib(SMALL_UPLOAD_MAX)}，请使用分片上传`);
          quota.take(piece);
        },
      });
      if (file.truncated) {
        await fs.rm(temp, { force: true });
        throw fileErr(ErrorCode.FILE_TOO_LARGE, `单次上传不能超过 ${mib(SMALL_UPLOAD_MAX)}`);
      }
      await fs.rename(temp, target);
      this.usage.add(user.account, bytes - (existing?.isFile() ? existing.size : 0));
      return this.recorded(user, [...segs, filename], target, sha256!);
    } finally {
      quota.release();
    }
  }

  /**
   * `GET /file/chunk/upload`: what the server already has for this upload, or — when the content hash is
   * known and the caller already stores that content — an instant upload (a copy placed at path/filename).
   */
  async chunkStatus(user: FileUser, q: ChunkStatusInput): Promise<ChunkStatus> {
    const segs = parseUserPath(q.path);
    checkName(q.filename);
    await confine(await openSpace(user.homeDir), segs);
    if (q.hash) {
      const entry = await this.instantUpload(user, segs, q);
      if (entry) return { uploaded: [], skip: true, chunkSize: this.chunkSize, entry };
    }
    const meta = await this.chunks.readMeta(user.account, q.identifier);
    if (meta && (meta.totalSize !== q.totalSize || !(await this.chunks.hasData(user.account, q.identifier)))) {
      // The identifier now names other content, or its bytes are gone: what was staged can never be merged.
      await this.dropUpload(user.account, q.identifier);
      return { uploaded: [], skip: false, chunkSize: this.chunkSize };
    }
    return {
      uploaded: await this.chunks.uploaded(user.account, q.identifier),
      skip: false,
      // A resumed upload keeps the chunk size it started with.
      chunkSize: meta?.chunkSize ?? this.chunkSize,
    };
  }

  /**
   * `POST /file/chunk/upload`: streams one chunk straight into the upload's data file at its offset, checks
   * its length, then marks it complete. A re-send first unmarks the chunk, so a re-send that fails half-way
   * leaves it "missing" (the client sends it again) rather than "complete" with half-written bytes.
   */
  async uploadChunk(user: FileUser, f: ChunkUploadFields, file: IncomingFile): Promise<{ uploaded: number[] }> {
    const space = await openSpace(user.homeDir);
    // The target is checked now, not only at merge, so nothing is staged for a path that can never be written.
    await confine(space, parseUserPath(f.path));
    checkName(f.filename);
    const totalChunks = chunkCountOf(f.totalSize, f.chunkSize);
    if (f.totalChunks !== totalChunks) throw invalid('totalChunks', `应为 ${totalChunks}`);
    if (f.chunkNumber > f.totalChunks) throw invalid('chunkNumber', `不能大于 totalChunks（${f.totalChunks}）`);
    const { account, identifier, chunkNumber: n } = { account: user.account, ...f };
    const meta = { totalSize: f.totalSize, totalChunks: f.totalChunks, chunkSize: f.chunkSize };
    const known = await this.chunks.readMeta(account, identifier);
    if (known && (known.totalSize !== meta.totalSize || known.chunkSize !== meta.chunkSize || known.totalChunks !== meta.totalChunks)) {
      throw invalid('identifier', '对应的上传参数（totalSize/chunkSize/totalChunks）与已上传的分片不一致');
    }

    const key = `${account}/${identifier}`;
    // Checked and counted in one synchronous step, so a merge either sees this writer or this writer sees it.
    if (this.locks.held(key)) throw fileErr(ErrorCode.UPLOAD_FAILED, '该文件正在合并，请稍后重试');
    this.writing.set(key, (this.writing.get(key) ?? 0) + 1);
    const expected = expectedChunkLength(n, meta);
    let quota: Awaited<ReturnType<FileService['quotaGuard']>> | null = null;
    try {
      await this.chunks.ensure(account, identifier, meta);
      const replaced = (await this.chunks.hasChunk(account, identifier, n)) ? expected : 0;
      quota = await this.quotaGuard(user, space, replaced);
      if (replaced) {
        await this.chunks.unmark(account, identifier, n);
        this.usage.add(account, -replaced);
        // The range may change under a hash that already covers it: start that hash over.
        if ((this.hashers.get(key)?.next ?? 0) >= n) this.forgetHash(key);
      }
      const { bytes } = await streamToRange(file, this.chunks.dataPath(account, identifier), chunkOffset(n, meta), {
        guard: (total, piece) => {
          if (total > expected) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `分片 ${n} 应为 ${expected} 字节，实际更多`);
          quota!.take(piece);
        },
      });
      if (bytes !== expected || file.truncated) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `分片 ${n} 应为 ${expected} 字节，实际 ${bytes} 字节`);
      await this.chunks.markComplete(account, identifier, n);
      this.usage.add(account, bytes);
      void this.hasherOf(key, account, identifier, meta).advance((k) => this.chunks.hasChunk(account, identifier, k));
    } catch (e) {
      // Nothing of this upload is complete and nobody else is writing: drop the partial staging entirely.
      if (this.writing.get(key) === 1 && (await this.chunks.uploaded(account, identifier)).length === 0) {
        await this.dropUpload(account, identifier);
      }
      throw e;
    } finally {
      quota?.release();
      const left = (this.writing.get(key) ?? 1) - 1;
      if (left > 0) this.writing.set(key, left);
      else this.writing.delete(key);
    }
    return { uploaded: await this.chunks.uploaded(account, identifier) };
  }

  /**
   * `POST /file/chunk/merge`: all chunks present (else 1306, nothing created); the staged data file is
   * read once to verify size and SHA-256 (else 1307, nothing created), then renamed into place — atomic,
   * and no second copy of the bytes. Merges of one upload are serialised and refused while a chunk of it is
   * still streaming; a repeated merge after success answers the same entry, so concurrent or retried
   * merges leave exactly one file.
   */
  async merge(user: FileUser, b: MergeInput): Promise<FileEntry> {
    const segs = parseUserPath(b.path);
    checkName(b.filename);
    const fileSegs = [...segs, b.filename];
    const userPath = userPathOf(fileSegs);
    const space = await openSpace(user.homeDir);
    await confine(space, segs);
    const { account, identifier } = { account: user.account, identifier: b.identifier };
    const key = `${account}/${identifier}`;
    return this.locks.run(key, async () => {
      if (this.writing.has(key)) throw fileErr(ErrorCode.UPLOAD_FAILED, '仍有分片正在上传，请稍后重试');
      if (!(await this.chunks.exists(account, identifier))) {
        const done = await this.alreadyMerged(user, space, fileSegs, b);
        if (done) return done;
        throw fileErr(ErrorCode.CHUNK_MISSING, `未找到该文件的任何分片（共 ${b.totalChunks} 片）`);
      }
      const meta = await this.chunks.readMeta(account, identifier);
      if (!meta) throw fileErr(ErrorCode.CHUNK_MISSING, '上传记录不完整，请重新上传');
      if (meta.totalSize !== b.totalSize || meta.totalChunks !== b.totalChunks) {
        throw fileErr(ErrorCode.FILE_CHECK_FAILED, `文件大小应为 ${meta.totalSize} 字节、${meta.totalChunks} 片，合并请求为 ${b.totalSize} 字节、${b.totalChunks} 片`);
      }
      const have = new Set(await this.chunks.uploaded(account, identifier));
      const missing: number[] = [];
      for (let n = 1; n <= meta.totalChunks; n++) if (!have.has(n)) missing.push(n);
      if (missing.length) {
        const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ` 等 ${missing.length} 片` : '');
        throw fileErr(ErrorCode.CHUNK_MISSING, `缺少分片 ${shown}`);
      }

      const data = this.chunks.dataPath(account, identifier);
      const staged = await lstatOrNull(data);
      if (!staged) {
        // A merge killed after its rename: the file is in place, only the cleanup was missing.
        const done = await this.alreadyMerged(user, space, fileSegs, b);
        await this.dropUpload(account, identifier);
        if (done) return done;
        throw fileErr(ErrorCode.CHUNK_MISSING, '上传的数据已不存在，请重新上传');
      }
      const bytes = staged.size;
      if (bytes !== b.totalSize) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `文件大小应为 ${b.totalSize} 字节，实际 ${bytes} 字节`);
      const sha256 =
        (await this.hasherOf(key, account, identifier, meta).digest((k) => this.chunks.hasChunk(account, identifier, k))) ??
        (await hashFile(data)).sha256;
      this.forgetHash(key);
      if (b.hash && sha256 !== b.hash) {
        // Which chunk is wrong cannot be known: start this upload over.
        await this.dropUpload(account, identifier);
        throw fileErr(ErrorCode.FILE_CHECK_FAILED, 'SHA-256 与上传前计算的不一致，请重新上传');
      }

      const dir = await this.ensureDir(space, segs);
      const target = path.join(dir, b.filename);
      const existing = await lstatOrNull(target);
      if (existing?.isDirectory()) throw clash(existing, userPath);
      try {
        await fs.rename(data, target);
      } catch (e) {
        // Staging and home on different file systems: one streamed copy to a temp file beside the target.
        if (errCode(e) !== 'EXDEV') throw e;
        void this.sweepTemps(dir);
        const temp = path.join(dir, tempName());
        await streamToFile((await fs.open(data, constants.O_RDONLY)).createReadStream(), temp);
        await fs.rename(temp, target);
      }
      await this.dropUpload(account, identifier);
      this.usage.invalidate(account);
      return this.recorded(user, fileSegs, target, sha256);
    });
  }

  /** Removes an upload's staging and forgets its running hash. */
  private dropUpload(account: string, identifier: string) {
    this.forgetHash(`${account}/${identifier}`);
    return this.chunks.remove(account, identifier);
  }

  private forgetHash(key: string) {
    this.hashers.get(key)?.dispose();
    this.hashers.delete(key);
  }

  private hasherOf(key: string, account: string, identifier: string, meta: UploadMeta): ProgressiveHash {
    let h = this.hashers.get(key);
    if (!h) {
      h = new ProgressiveHash(this.chunks.dataPath(account, identifier), meta.totalChunks, (n) => ({
        start: chunkOffset(n, meta),
        length: expectedChunkLength(n, meta),
      }));
      this.hashers.set(key, h);
    }
    return h;
  }

  /** A merge whose chunks are gone succeeded earlier if the target has the size (and recorded hash). */
  private async alreadyMerged(user: FileUser, space: Space, fileSegs: string[], b: MergeInput): Promise<FileEntry | null> {
    const c = await confine(space, fileSegs);
    const st = c.real ? await lstatOrNull(c.real) : null;
    if (!st?.isFile() || st.size !== b.totalSize) return null;
    if (b.hash) {
      const rec = this.index.candidates(user.account, b.hash).find((r) => r.userPath === userPathOf(fileSegs));
      if (!rec || Math.round(rec.mtimeMs) !== Math.round(st.mtimeMs)) return null;
    }
    return toEntry(fileSegs, st);
  }

  /**
   * Instant upload: the first indexed file of this account with this hash that still has its recorded
   * size and mtime is copied (O_NOFOLLOW, re-hashed on the way, so a stale index can never place wrong
   * content) to a temp file next to the target and renamed into place.
   */
  private async instantUpload(user: FileUser, segs: string[], q: ChunkStatusInput): Promise<FileEntry | null> {
    const space = await openSpace(user.homeDir);
    const fileSegs = [...segs, q.filename];
    for (const cand of this.index.candidates(user.account, q.hash!)) {
      let source: string | null;
      try {
        source = (await confine(space, parseUserPath(cand.userPath))).real;
      } catch {
        source = null;
      }
      const st = source ? await lstatOrNull(source) : null;
      if (!source || !st?.isFile() || st.size !== cand.size || Math.round(st.mtimeMs) !== Math.round(cand.mtimeMs)) {
        this.index.forget(user.account, q.hash!, cand.userPath);
        continue;
      }
      if (st.size !== q.totalSize) continue;

      const dir = await this.ensureDir(space, segs);
      const target = path.join(dir, q.filename);
      const existing = await lstatOrNull(target);
      if (existing?.isDirectory()) throw clash(existing, userPathOf(fileSegs));
      if (existing && (await fs.realpath(target).catch(() => '')) === source) return toEntry(fileSegs, existing);
      const quota = await this.quotaGuard(user, space, existing?.isFile() ? existing.size : 0);
      const temp = path.join(dir, tempName());
      try {
        const src = await fs.open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
        const { sha256 } = await streamToFile(src.createReadStream(), temp, { hash: true, guard: (_t, piece) => quota.take(piece) });
        if (sha256 !== q.hash) {
          await fs.rm(temp, { force: true });
          this.index.forget(user.account, q.hash!, cand.userPath);
          continue;
        }
        await fs.rename(temp, target);
      } finally {
        quota.release();
      }
      this.usage.invalidate(user.account);
      await this.dropUpload(user.account, q.identifier);
      return this.recorded(user, fileSegs, target, q.hash!);
    }
    return null;
  }

  /** Records a file this service wrote in the instant-upload index and answers its entry. */
  private async recorded(user: FileUser, fileSegs: string[], abs: string, sha256: string): Promise<FileEntry> {
    const st = await fs.lstat(abs);
    this.index.record(user.account, sha256, { userPath: userPathOf(fileSegs), size: st.size, mtimeMs: st.mtimeMs });
    return toEntry(fileSegs, st);
  }

  // ---- download ------------------------------------------------------------------------------------

  /** The paths of a download, confined to the caller's home and existing (else 1308 / 1301); nothing is opened. */
  async checkDownload(user: FileUser, paths: string[]): Promise<{ segs: string[]; real: string }[]> {
    const space = await openSpace(user.homeDir);
    const resolved: { segs: string[]; real: string }[] = [];
    for (const p of paths) {
      const segs = parseUserPath(p);
      const c = await confine(space, segs);
      if (!c.real) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(segs));
      resolved.push({ segs, real: c.real });
    }
    return resolved;
  }

  /** One file → opened for a Range-capable answer; several paths or a directory → entries for a zip. */
  async planDownload(user: FileUser, paths: string[]): Promise<DownloadPlan> {
    const resolved = await this.checkDownload(user, paths);
    if (resolved.length === 1) {
      const { segs, real } = resolved[0];
      const st = await fs.stat(real);
      if (st.isFile()) {
        // O_NOFOLLOW: if the entry was swapped for a symlink since it was confined, refuse rather than follow.
        const file = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
        return { kind: 'file', name: segs[segs.length - 1], file, stat: await file.stat() };
      }
    }
    const used = new Set<string>();
    const roots = resolved.map(({ segs, real }) => {
      const base = segs[segs.length - 1] ?? user.account;
      let entry = base;
      for (let i = 2; used.has(entry); i++) entry = `${base} (${i})`;
      used.add(entry);
      return { real, entry };
    });
    const first = roots[0].entry;
    return { kind: 'zip', name: roots.length === 1 ? `${first}.zip` : `${first}等${roots.length}个文件.zip`, roots };
  }

  zipItems(roots: ZipRoot[]) {
    return collectZipItems(roots);
  }

  // ---- delete, rename, move, copy ------------------------------------------------------------------

  async remove(user: FileUser, paths: string[]): Promise<null> {
    const space = await openSpace(user.homeDir);
    // Everything is checked before anything is deleted: one bad path refuses the whole request.
    const targets = [];
    for (const p of paths) targets.push(await this.existingEntry(space, parseUserPath(p)));
    for (const t of targets) await fs.rm(t.abs, { recursive: true, force: true });
    this.usage.invalidate(user.account);
    return null;
  }

  async rename(user: FileUser, p: string, newName: string): Promise<FileEntry> {
    const space = await openSpace(user.homeDir);
    const segs = parseUserPath(p);
    checkName(newName);
    const src = await this.existingEntry(space, segs);
    const destSegs = [...segs.slice(0, -1), newName];
    if (newName === segs[segs.length - 1]) return toEntry(destSegs, src.stat);
    const dest = await confine(space, destSegs);
    const there = await lstatOrNull(dest.abs);
    if (there) throw clash(there, userPathOf(destSegs));
    await fs.rename(src.abs, dest.abs);
    return toEntry(destSegs, await fs.lstat(dest.abs));
  }

  async move(user: FileUser, paths: string[], targetDir: string): Promise<FileEntry[]> {
    const { plan } = await this.planTransfer(user, paths, targetDir, 'move');
    const out: FileEntry[] = [];
    for (const t of plan) {
      if (t.src.abs !== t.dest) {
        try {
          await fs.rename(t.src.abs, t.dest);
        } catch (e) {
          if (errCode(e) !== 'EXDEV') throw e;
          await this.copyInto(t.src.abs, t.dest);
          await fs.rm(t.src.abs, { recursive: true, force: true });
        }
      }
      out.push(toEntry(t.destSegs, await fs.lstat(t.dest)));
    }
    return out;
  }

  async copy(user: FileUser, paths: string[], targetDir: string): Promise<FileEntry[]> {
    const { space, plan } = await this.planTransfer(user, paths, targetDir, 'copy');
    let total = 0;
    for (const t of plan) total += t.src.stat.isDirectory() ? await treeBytes(t.src.abs) : t.src.stat.size;
    const quota = await this.quotaGuard(user, space, 0);
    try {
      quota.take(total);
    } finally {
      quota.release();
    }
    const out: FileEntry[] = [];
    for (const t of plan) {
      await this.copyInto(t.src.abs, t.dest);
      out.push(toEntry(t.destSegs, await fs.lstat(t.dest)));
    }
    this.usage.invalidate(user.account);
    return out;
  }

  /** Copies to a temp name in the destination directory and renames, so no half copy carries the name. */
  private async copyInto(src: string, dest: string) {
    const temp = path.join(path.dirname(dest), tempName());
    try {
      // verbatimSymlinks: a link is copied as a link — its target is never read, wherever it points.
      await fs.cp(src, temp, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true, preserveTimestamps: true });
      await fs.rename(temp, dest);
    } catch (e) {
      await fs.rm(temp, { recursive: true, force: true });
      throw e;
    }
  }

  /** Validates a whole move/copy before any of it happens: sources exist, no clash, no dir into itself. */
  private async planTransfer(user: FileUser, paths: string[], targetDir: string, op: 'move' | 'copy') {
    const space = await openSpace(user.homeDir);
    const tsegs = parseUserPath(targetDir);
    const tdir = await this.existingDir(space, tsegs);
    const plan = [];
    const names = new Set<string>();
    for (const p of paths) {
      const segs = parseUserPath(p);
      const src = await this.existingEntry(space, segs);
      const name = segs[segs.length - 1];
      const destSegs = [...tsegs, name];
      const dest = path.join(tdir, name);
      if (src.stat.isDirectory()) {
        const srcReal = await fs.realpath(src.abs);
        if (isInside(srcReal, tdir)) throw illegalPath(op === 'move' ? '不能将目录移动到其自身或子目录中' : '不能将目录复制到其自身或子目录中');
      }
      const sameDir = dest === src.abs;
      if (!(op === 'move' && sameDir)) {
        const there = await lstatOrNull(dest);
        if (there) throw clash(there, userPathOf(destSegs));
        if (names.has(name)) throw fileErr(ErrorCode.FILE_EXISTS, userPathOf(destSegs));
      }
      names.add(name);
      plan.push({ src, dest, destSegs });
    }
    return { space, plan };
  }

  // ---- usage and housekeeping ----------------------------------------------------------------------

  async usageOf(user: FileUser): Promise<Usage> {
    const space = await openSpace(user.homeDir);
    const stored = await this.storedBytes(user, space);
    return { used: stored + this.usage.inflightOf(user.account), quota: this.center.quotaBytes };
  }

  /** Removes uploads with no write for 24 h (not ones being written or merged right now). */
  async cleanup(maxAgeMs = STALE_UPLOAD_MS) {
    const busy = (account: string, identifier: string) => {
      const key = `${account}/${identifier}`;
      return this.locks.held(key) || this.writing.has(key);
    };
    const removed = await this.chunks.cleanup(this.clock(), busy, maxAgeMs);
    for (const key of removed) this.forgetHash(key);
    return removed;
  }

  // ---- helpers -------------------------------------------------------------------------------------

  /**
   * Admits bytes against the caller's quota while they stream: stored usage (home + staged chunks, minus
   * what this write replaces) + everything of theirs in flight must stay within the quota, else 1309.
   */
  private async quotaGuard(user: FileUser, space: Space, replaced: number) {
    const quotaBytes = this.center.quotaBytes;
    const stored = (await this.storedBytes(user, space)) - replaced;
    let taken = 0;
    return {
      take: (n: number) => {
        this.usage.reserve(user.account, n);
        taken += n;
        const used = stored + this.usage.inflightOf(user.account);
        if (used > quotaBytes) throw fileErr(ErrorCode.NO_SPACE, `配额 ${mib(quotaBytes)}，已用 ${mib(stored)}`);
      },
      release: () => {
        this.usage.release(user.account, taken);
        taken = 0;
      },
    };
  }

  /** The home's bytes plus the complete chunks staged for the account (cached briefly, see UsageMeter). */
  private storedBytes(user: FileUser, space: Space) {
    return this.usage.stored(user.account, async () => (await treeBytes(space.realHome)) + (await this.chunks.stagedBytes(user.account)));
  }

  /** The real path of an existing directory in the space, else 1302. */
  private async existingDir(space: Space, segs: string[]): Promise<string> {
    const c = await confine(space, segs);
    const st = c.real ? await fs.stat(c.real) : null;
    if (!st?.isDirectory()) throw fileErr(ErrorCode.DIR_NOT_FOUND, userPathOf(segs));
    return c.real!;
  }

  /** The target directory of an upload, created (inside the space) when missing — folder uploads need it. */
  private async ensureDir(space: Space, segs: string[]): Promise<string> {
    const c = await confine(space, segs);
    if (!c.real) {
      try {
        await fs.mkdir(c.abs, { recursive: true });
      } catch (e) {
        if (errCode(e) === 'EEXIST' || errCode(e) === 'ENOTDIR') throw fileErr(ErrorCode.DIR_NOT_FOUND, `${userPathOf(segs)}（路径中有同名文件）`);
        throw e;
      }
    }
    // Confined again after creating, so a link swapped in meanwhile is caught before anything is written.
    return this.existingDir(space, segs);
  }

  /**
   * An existing entry to act on itself (delete, rename, move, copy source): its parent is confined and the
   * entry is looked at with lstat, so a symlink is handled as the link — deleting one never touches what it
   * points to. The home itself is not such an entry.
   */
  private async existingEntry(space: Space, segs: string[]): Promise<{ abs: string; stat: Stats }> {
    if (!segs.length) throw illegalPath('不能对根目录执行此操作');
    const parent = await confine(space, segs.slice(0, -1));
    const abs = path.join(parent.real ?? parent.abs, segs[segs.length - 1]);
    const stat = parent.real ? await lstatOrNull(abs) : null;
    if (!stat) throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(segs));
    return { abs, stat };
  }

  /** Temp files of merges or uploads killed mid-way are removed from a directory when it is written again. */
  private async sweepTemps(dir: string) {
    try {
      const now = this.clock();
      for (const n of await fs.readdir(dir)) {
        if (!n.startsWith(TEMP_PREFIX)) continue;
        const st = await lstatOrNull(path.join(dir, n));
        if (st && now - st.mtimeMs > STALE_UPLOAD_MS) await fs.rm(path.join(dir, n), { recursive: true, force: true });
      }
    } catch {
      // Housekeeping only.
    }
  }
}

function toEntry(segs: string[], st: Stats): FileEntry {
  const p = userPathOf(segs);
  const dir = st.isDirectory();
  return { id: pathToId(p), name: segs[segs.length - 1] ?? '/', path: p, type: dir ? 'dir' : 'file', size: dir ? 0 : st.size, updateTime: Math.round(st.mtimeMs) };
}

function decodeId(id: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(id)) throw illegalPath('目录 id 不合法');
  try {
    return idToPath(id) || '/';
  } catch {
    throw illegalPath('目录 id 不合法');
  }
}

