import type { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import {
  chunkCountOf,
  chunkOffset,
  ErrorCode,
  expectedChunkLength,
  SMALL_UPLOAD_MAX,
  teamSpace,
  UPLOAD_CHUNK_SIZE,
  type ChunkStatus,
  type ChunkStatusQuery,
  type ChunkUploadFields,
  type FileEntry,
  type MergeBody,
  type UploadShape,
} from '@suanli/contracts';
import { invalid } from '../errors';
import { assetAreaUser, spaceKey, type FileUser } from './identity';
import { toEntry } from './folder.service';
import { clash, fileErr, refuseLink, userPathOf, type AccountFs, type Segs } from './storage/account-fs';
import { STALE_UPLOAD_MS, type StagedMeta } from './storage/chunk-store';
import { KeyedLock } from './storage/keyed-lock';
import { checkName, parseUserPath } from './storage/paths';
import { ProgressiveHash } from './storage/progressive-hash';
import type { QuotaGuard, Spaces } from './storage/spaces';

/** A file part of a multipart request: its bytes and whether busboy cut it at the size limit. */
export type IncomingFile = Readable & { truncated?: boolean };
type MergeInput = Static<typeof MergeBody>;
type ChunkStatusInput = Static<typeof ChunkStatusQuery>;

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** Pieces of `source` after `guard` has seen each (size and quota limits abort mid-stream by throwing). */
async function* guarded(source: AsyncIterable<Buffer>, guard: (total: number, piece: number) => void): AsyncIterable<Buffer> {
  let total = 0;
  for await (const piece of source) {
    total += piece.length;
    guard(total, piece.length);
    yield piece;
  }
}

/**
 * Uploads: small files in one request, chunked uploads with resume and instant upload, and the merge.
 * Bytes go to a temp file next to the target (small, instant) or into the account's staging (chunks) and
 * are renamed into place only when complete and verified, so a reader never sees half a file under its name.
 */
export class UploadService {
  private readonly locks = new KeyedLock();
  /** Chunk streams in progress per `account/identifier`, so cleanup never removes a live upload. */
  private readonly writing = new Map<string, number>();
  /** Running content hash per `account/identifier` (see ProgressiveHash). */
  private readonly hashers = new Map<string, ProgressiveHash>();
  /** Accounts that staged something in this process (cleanup visits their staging). */
  private readonly stagers = new Map<string, FileUser>();

  constructor(
    private readonly spaces: Spaces,
    private readonly clock: () => number,
    /** Advertised to clients; 8 MiB by contract. */
    private readonly chunkSize = UPLOAD_CHUNK_SIZE,
  ) {}

  /** `POST /file/upload`: one small file, streamed to a temp file beside the target, then renamed over it. */
  async uploadSmall(user: FileUser, dirPath: string, rawName: string, file: IncomingFile): Promise<FileEntry> {
    const segs = [...parseUserPath(dirPath), checkName(rawName)];
    return this.spaces.with(user, async (fs) => {
      const existing = await fs.stat(segs);
      if (existing?.type === 'dir') throw clash(existing, segs);
      const replaced = existing?.type === 'file' ? existing.size : 0;
      const quota = await this.spaces.quotaGuard(user, fs, replaced);
      try {
        const tooLarge = () => fileErr(ErrorCode.FILE_TOO_LARGE, `单次上传不能超过 ${mib(SMALL_UPLOAD_MAX)}，请使用分片上传`);
        const source = guarded(file, (total, piece) => {
          if (total > SMALL_UPLOAD_MAX) throw tooLarge();
          quota.take(piece);
        });
        const { bytes, sha256, stat } = await fs.writeFile(segs, source, {
          hash: true,
          // busboy ends a part cut at its limit normally and only flags it: checked before the rename.
          guard: () => {
            if (file.truncated) throw tooLarge();
          },
        });
        if (file.truncated) throw tooLarge();
        this.spaces.usage.add(spaceKey(user), bytes - replaced);
        return this.recorded(user, segs, stat, sha256!);
      } finally {
        quota.release();
      }
    });
  }

  /**
   * `GET /file/chunk/upload`: what the server already has for this upload, or — when the content hash is
   * known and the caller already stores that content — an instant upload (a copy placed at path/filename).
   */
  async chunkStatus(user: FileUser, q: ChunkStatusInput): Promise<ChunkStatus> {
    const segs = parseUserPath(q.path);
    const fileSegs = [...segs, checkName(q.filename)];
    return this.spaces.with(user, async (fs) => {
      await this.checkTargetDir(fs, segs);
      if (q.hash) {
        const entry = await this.instantUpload(user, fs, fileSegs, q);
        if (entry) return { uploaded: [], skip: true, chunkSize: this.chunkSize, entry };
      }
      const meta = await fs.staging.readMeta(q.identifier);
      if (meta && (meta.totalSize !== q.totalSize || !(await fs.staging.hasData(q.identifier)))) {
        // The identifier now names other content, or its bytes are gone: what was staged can never be merged.
        await this.dropUpload(user, fs, q.identifier);
        return { uploaded: [], skip: false, chunkSize: this.chunkSize };
      }
      // A resumed upload keeps the chunk size it started with.
      return { uploaded: await fs.staging.uploaded(q.identifier), skip: false, chunkSize: meta?.chunkSize ?? this.chunkSize };
    });
  }

  /**
   * `POST /file/chunk/upload`: streams one chunk straight into the upload's data file at its offset, checks
   * its length, then marks it complete. A re-send first unmarks the chunk, so a re-send that fails half-way
   * leaves it "missing" (the client sends it again) rather than "complete" with half-written bytes.
   */
  async uploadChunk(user: FileUser, f: ChunkUploadFields, file: IncomingFile): Promise<{ uploaded: number[] }> {
    const shape = this.shapeOf(f);
    checkName(f.filename);
    const key = `${user.account}/${f.identifier}`;
    // Checked and counted in one synchronous step, so a merge either sees this writer or this writer sees it.
    if (this.locks.held(key)) throw fileErr(ErrorCode.UPLOAD_FAILED, '该文件正在合并，请稍后重试');
    this.writing.set(key, (this.writing.get(key) ?? 0) + 1);
    try {
      return await this.spaces.with(user, async (fs) => {
        // The target is checked now, not only at merge, so nothing is staged for a path that can never be written.
        await this.checkTargetDir(fs, parseUserPath(f.path));
        const known = await this.checkSameShape(fs, f.identifier, shape);
        try {
          await this.receiveChunk(user, fs, f, shape, file, known);
        } catch (e) {
          // Nothing of this upload is complete and nobody else is writing: drop the partial staging entirely.
          if (this.writing.get(key) === 1 && (await fs.staging.uploaded(f.identifier)).length === 0) await this.dropUpload(user, fs, f.identifier);
          throw e;
        }
        const uploaded = await fs.staging.uploaded(f.identifier);
        // Runs on after this call (and after `fs` is released), so it is told what is complete now.
        const complete = new Set(uploaded);
        void this.hasherOf(key, fs, f.identifier, shape).advance(async (k) => complete.has(k));
        return { uploaded };
      });
    } finally {
      const left = (this.writing.get(key) ?? 1) - 1;
      if (left > 0) this.writing.set(key, left);
      else this.writing.delete(key);
    }
  }

  /** The upload's shape from a chunk's fields, checked against the chunk arithmetic of the contract. */
  private shapeOf(f: ChunkUploadFields): UploadShape {
    const totalChunks = chunkCountOf(f.totalSize, f.chunkSize);
    if (f.totalChunks !== totalChunks) throw invalid('totalChunks', `应为 ${totalChunks}`);
    if (f.chunkNumber > f.totalChunks) throw invalid('chunkNumber', `不能大于 totalChunks（${f.totalChunks}）`);
    return { totalSize: f.totalSize, totalChunks: f.totalChunks, chunkSize: f.chunkSize };
  }

  /** Reusing an identifier with other sizes is refused (1005) rather than mixing two files' bytes; answers the meta found. */
  private async checkSameShape(fs: AccountFs, identifier: string, shape: UploadShape) {
    const known = await fs.staging.readMeta(identifier);
    if (!known || (known.totalSize === shape.totalSize && known.chunkSize === shape.chunkSize && known.totalChunks === shape.totalChunks)) return known;
    throw invalid('identifier', '对应的上传参数（totalSize/chunkSize/totalChunks）与已上传的分片不一致');
  }

  /** Stages, writes and marks one chunk, with its quota and length checks, then advances the running hash. */
  private async receiveChunk(user: FileUser, fs: AccountFs, f: ChunkUploadFields, shape: UploadShape, file: IncomingFile, known: StagedMeta | null) {
    const { identifier, chunkNumber: n } = f;
    const key = `${user.account}/${identifier}`;
    const expected = expectedChunkLength(n, shape);
    // A data file made anew (its bytes were lost) invalidates whatever the running hash has read of the old one.
    const hasData = await fs.staging.hasData(identifier);
    if (!hasData) this.forgetHash(key);
    // Name, folder and start are recorded for the list of interrupted uploads (staged.service.ts), a team's for
    // the panel's 继续; with meta and data there, later chunks skip that walk (issue 26).
    if (!known || !hasData) await fs.staging.ensure(identifier, { ...shape, filename: checkName(f.filename), path: userPathOf(parseUserPath(f.path)), ...(user.team ? { space: teamSpace(user.team) } : {}), startedAt: this.clock() });
    // Cleanup reaches the staging through the account's home (a team's folder may be closed to it later).
    this.stagers.set(user.account, user.team ? { account: user.account, homeDir: this.spaces.homeOf(user.account) } : user);
    const replaced = (await fs.staging.hasChunk(identifier, n)) ? expected : 0;
    const quota: QuotaGuard = await this.spaces.quotaGuard(user, fs, replaced);
    try {
      if (replaced) {
        await fs.staging.unmark(identifier, n);
        this.spaces.usage.add(spaceKey(user), -replaced);
        // The range may change under a hash that already covers it: start that hash over.
        if ((this.hashers.get(key)?.next ?? 0) >= n) this.forgetHash(key);
      }
      const bytes = await fs.staging.writeRange(identifier, chunkOffset(n, shape), file, (total, piece) => {
        if (total > expected) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `分片 ${n} 应为 ${expected} 字节，实际更多`);
        quota.take(piece);
      });
      if (bytes !== expected || file.truncated) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `分片 ${n} 应为 ${expected} 字节，实际 ${bytes} 字节`);
      await fs.staging.markComplete(identifier, n);
      this.spaces.usage.add(spaceKey(user), bytes);
    } finally {
      quota.release();
    }
  }

  /**
   * `POST /file/chunk/merge`: all chunks present (else 1306, nothing created); the staged data file's size
   * and SHA-256 verified (else 1307, nothing created), then renamed into place — atomic, and no second copy
   * of the bytes. Merges of one upload are serialised and refused while a chunk of it is still streaming; a
   * repeated merge after success answers the same entry, so concurrent or retried merges leave one file.
   */
  async merge(user: FileUser, b: MergeInput): Promise<FileEntry> {
    const segs = parseUserPath(b.path);
    const fileSegs = [...segs, checkName(b.filename)];
    const key = `${user.account}/${b.identifier}`;
    return this.spaces.with(user, (fs) =>
      this.locks.run(key, async () => {
        if (this.writing.has(key)) throw fileErr(ErrorCode.UPLOAD_FAILED, '仍有分片正在上传，请稍后重试');
        await this.checkTargetDir(fs, segs);
        const staged = await this.completeStaging(user, fs, fileSegs, b);
        if ('entry' in staged) return staged.entry;
        const sha256 = (await this.hasherOf(key, fs, b.identifier, staged.meta).digest((k) => fs.staging.hasChunk(b.identifier, k))) ?? (await fs.staging.hashData(b.identifier));
        this.forgetHash(key);
        if (b.hash && sha256 !== b.hash) {
          // Which chunk is wrong cannot be known: start this upload over.
          await this.dropUpload(user, fs, b.identifier);
          throw fileErr(ErrorCode.FILE_CHECK_FAILED, 'SHA-256 与上传前计算的不一致，请重新上传');
        }
        const stat = await fs.commitStaged(b.identifier, fileSegs);
        await this.dropUpload(user, fs, b.identifier);
        this.spaces.usage.invalidate(spaceKey(user));
        return this.recorded(user, fileSegs, stat, sha256);
      }),
    );
  }

  /**
   * The merge's checks before any byte is read: the staging exists with this shape, every chunk is marked
   * and the data file has the full size — or the merge already happened (answer its entry).
   */
  private async completeStaging(user: FileUser, fs: AccountFs, fileSegs: Segs, b: MergeInput): Promise<{ meta: UploadShape } | { entry: FileEntry }> {
    if (!(await fs.staging.exists(b.identifier))) {
      const done = await this.alreadyMerged(user, fs, fileSegs, b);
      if (done) return { entry: done };
      throw fileErr(ErrorCode.CHUNK_MISSING, `未找到该文件的任何分片（共 ${b.totalChunks} 片）`);
    }
    const meta = await fs.staging.readMeta(b.identifier);
    if (!meta) throw fileErr(ErrorCode.CHUNK_MISSING, '上传记录不完整，请重新上传');
    if (meta.totalSize !== b.totalSize || meta.totalChunks !== b.totalChunks) {
      throw fileErr(ErrorCode.FILE_CHECK_FAILED, `文件大小应为 ${meta.totalSize} 字节、${meta.totalChunks} 片，合并请求为 ${b.totalSize} 字节、${b.totalChunks} 片`);
    }
    const have = new Set(await fs.staging.uploaded(b.identifier));
    const missing: number[] = [];
    for (let n = 1; n <= meta.totalChunks; n++) if (!have.has(n)) missing.push(n);
    if (missing.length) {
      const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ` 等 ${missing.length} 片` : '');
      throw fileErr(ErrorCode.CHUNK_MISSING, `缺少分片 ${shown}`);
    }
    const bytes = await fs.staging.dataSize(b.identifier);
    if (bytes === null) {
      // A merge killed after its rename: the file is in place, only the cleanup was missing.
      const done = await this.alreadyMerged(user, fs, fileSegs, b);
      await this.dropUpload(user, fs, b.identifier);
      if (done) return { entry: done };
      throw fileErr(ErrorCode.CHUNK_MISSING, '上传的数据已不存在，请重新上传');
    }
    if (bytes !== b.totalSize) throw fileErr(ErrorCode.FILE_CHECK_FAILED, `文件大小应为 ${b.totalSize} 字节，实际 ${bytes} 字节`);
    return { meta };
  }

  /** Whether a chunk of this upload is streaming or its merge runs in this process right now. */
  busy(user: FileUser, identifier: string): boolean {
    const key = `${user.account}/${identifier}`;
    return this.locks.held(key) || this.writing.has(key);
  }

  /** Drops a staged upload nobody will finish (a cancelled sync); a merge or chunk of it in flight is not waited for. */
  async abandon(user: FileUser, fs: AccountFs, identifier: string) {
    await this.dropUpload(user, fs, identifier);
  }

  /** Removes an upload's staging and forgets its running hash. */
  private async dropUpload(user: FileUser, fs: AccountFs, identifier: string) {
    this.forgetHash(`${user.account}/${identifier}`);
    await fs.staging.remove(identifier);
  }

  private forgetHash(key: string) {
    this.hashers.get(key)?.dispose();
    this.hashers.delete(key);
  }

  private hasherOf(key: string, fs: AccountFs, identifier: string, shape: UploadShape): ProgressiveHash {
    let h = this.hashers.get(key);
    if (!h) {
      h = new ProgressiveHash(fs.staging.dataPath(identifier), shape.totalChunks, (n) => ({ start: chunkOffset(n, shape), length: expectedChunkLength(n, shape) }));
      this.hashers.set(key, h);
    }
    return h;
  }

  /** A merge whose chunks are gone succeeded earlier if the target has the size (and recorded hash). */
  private async alreadyMerged(user: FileUser, fs: AccountFs, fileSegs: Segs, b: MergeInput): Promise<FileEntry | null> {
    const st = await fs.stat(fileSegs);
    if (st?.type !== 'file' || st.size !== b.totalSize) return null;
    if (b.hash) {
      const rec = this.spaces.index.candidates(spaceKey(user), b.hash).find((r) => r.userPath === userPathOf(fileSegs));
      if (!rec || Math.round(rec.mtimeMs) !== Math.round(st.mtimeMs)) return null;
    }
    return toEntry(fileSegs, st);
  }

  /**
   * Instant upload: the first indexed file of this account with this hash that still has its recorded
   * size and mtime is copied — read without following links and re-hashed on the way, so a stale index
   * can never place wrong content — to a temp file next to the target and renamed into place.
   */
  private async instantUpload(user: FileUser, fs: AccountFs, fileSegs: Segs, q: ChunkStatusInput): Promise<FileEntry | null> {
    const hash = q.hash!;
    for (const cand of this.spaces.index.candidates(spaceKey(user), hash)) {
      const source = await fs.openFile(parseUserPath(cand.userPath)).catch(() => null);
      if (!source || source.stat.size !== cand.size || Math.round(source.stat.mtimeMs) !== Math.round(cand.mtimeMs)) {
        await source?.close();
        this.spaces.index.forget(spaceKey(user), hash, cand.userPath);
        continue;
      }
      if (source.stat.size !== q.totalSize) {
        await source.close();
        continue;
      }
      if (cand.userPath === userPathOf(fileSegs)) {
        await source.close();
        return toEntry(fileSegs, source.stat);
      }
      const existing = await fs.stat(fileSegs);
      if (existing?.type === 'dir') {
        await source.close();
        throw clash(existing, fileSegs);
      }
      const quota = await this.spaces.quotaGuard(user, fs, existing?.type === 'file' ? existing.size : 0);
      let written: Awaited<ReturnType<AccountFs['writeFile']>>;
      try {
        const bytes = source.stat.size ? source.read(0, source.stat.size - 1) : (async function* () {})();
        written = await fs.writeFile(fileSegs, guarded(bytes, (_t, piece) => quota.take(piece)), { hash: true });
      } finally {
        quota.release();
        await source.close();
      }
      if (written.sha256 !== hash) {
        await fs.remove(fileSegs);
        this.spaces.index.forget(spaceKey(user), hash, cand.userPath);
        continue;
      }
      this.spaces.usage.invalidate(spaceKey(user));
      await this.dropUpload(user, fs, q.identifier);
      return this.recorded(user, fileSegs, written.stat, hash);
    }
    return null;
  }

  /** An upload's folder: created when missing (folder uploads), refused when a file is in the way (1302). */
  private async checkTargetDir(fs: AccountFs, segs: Segs) {
    const st = await fs.stat(segs);
    refuseLink(st, segs);
    if (st && st.type !== 'dir') throw fileErr(ErrorCode.DIR_NOT_FOUND, `${userPathOf(segs)}（路径中有同名文件）`);
  }

  /** Records a file this service wrote in the instant-upload index and answers its entry. */
  private recorded(user: FileUser, fileSegs: Segs, st: import('./storage/beneath').RawStat, sha256: string): FileEntry {
    this.spaces.index.record(spaceKey(user), sha256, { userPath: userPathOf(fileSegs), size: st.size, mtimeMs: st.mtimeMs });
    return toEntry(fileSegs, st);
  }

  /** Removes uploads with no write for 24 h (not ones being written or merged right now). */
  async cleanup(maxAgeMs = STALE_UPLOAD_MS): Promise<string[]> {
    const removed: string[] = [];
    for (const user of await this.knownStagers()) {
      const busy = (identifier: string) => {
        const key = `${user.account}/${identifier}`;
        return this.locks.held(key) || this.writing.has(key);
      };
      const gone = await this.spaces.with(user, (fs) => fs.staging.cleanup(this.clock(), busy, maxAgeMs)).catch(() => []);
      for (const identifier of gone) {
        this.forgetHash(`${user.account}/${identifier}`);
        removed.push(`${user.account}/${identifier}`);
      }
    }
    return removed;
  }

  /** Accounts with a staging directory on disk (readable by this process) or that staged in it. */
  private async knownStagers(): Promise<FileUser[]> {
    const found = new Map(this.stagers);
    for (const account of await this.spaces.stagedAccounts()) {
      if (found.has(account)) continue;
      found.set(account, account === assetAreaUser(this.spaces.center).account ? assetAreaUser(this.spaces.center) : { account, homeDir: this.spaces.homeOf(account) });
    }
    return [...found.values()];
  }
}
