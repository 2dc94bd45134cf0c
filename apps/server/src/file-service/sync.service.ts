import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { chunkCountOf, chunkOffset, ErrorCode, errorMessage, expectedChunkLength, type SyncGrant, type SyncManifest, type SyncManifestEntry, type SyncPullLine } from '@suanli/contracts';
import { AppError, forbidden, invalid } from '../errors';
import { spaceKey, type FileUser } from './identity';
import { clash, fileErr, refuseLink, TEMP_PREFIX, userPathOf, type OpenedFile, type Segs } from './storage/account-fs';
import { checkName, parseUserPath } from './storage/paths';
import type { Spaces } from './storage/spaces';
import type { UploadService } from './upload.service';

/** The source file service as the receiving one sees it: over HTTP (sync-clients.ts) or in this process. */
export interface SyncSource {
  manifest(signal: AbortSignal): Promise<SyncManifest>;
  /** SHA-256 of the source file, computed by the source from its own disk. */
  hash(rel: string, signal: AbortSignal): Promise<string>;
  /** Bytes [start, end] (inclusive) of the source file. */
  read(rel: string, start: number, end: number, signal: AbortSignal): Promise<Readable>;
}

/** Files in one sync (as many as a dataset version may hold, ten times over). */
export const SYNC_FILES_MAX = 100_000;
/** Chunk requests in flight, as the console's uploader sends them. */
const IN_FLIGHT = 3;
/** Progress lines at most this often. */
const PROGRESS_EVERY_MS = 500;

/** Staging ids and hidden names of a job: derived from its id, in the identifier alphabet. */
const keyOf = (jobId: string) => createHash('sha256').update(jobId).digest('hex').slice(0, 24);
const fileIdOf = (key: string, rel: string) => `sync-${key}-${createHash('sha256').update(rel).digest('hex').slice(0, 24)}`;

const failed = (why: string) => new AppError(ErrorCode.SYNC_FAILED, `${errorMessage(ErrorCode.SYNC_FAILED)}：${why}`);
const mismatch = (rel: string) => failed(`文件校验失败（${rel || '源文件'} 的 SHA-256 与源不一致，源文件可能在同步期间被修改），请重新同步`);

/**
 * Cross-center sync on one center's file service (ADR 0010). As the **source** it lists, hashes and serves
 * ranges of what a job's grant names, read through the account's space like every other call (beneath the
 * home, links never followed). As the **receiver** it pulls a job's source into the account's space here:
 *
 * - The copy is built in a hidden folder `targetDir/.suanli-upload-sync-<key>/<name>` and renamed to
 *   `targetDir/<name>` only when every file arrived and was verified, so nobody sees half a copy.
 * - Files larger than one chunk go through the upload staging exactly as a browser upload does (one sparse
 *   data file, a marker per complete chunk, the running hash): after a kill, resume is "ask the staging
 *   which chunks are complete", and the merge checks the SHA-256 the source computed before the file is
 *   placed. Smaller files are written to a temp name, verified, then renamed.
 * - A staging entry `sync-<key>` records that the job started here: with it, an existing hidden folder is
 *   resumed and a missing hidden folder beside an existing `<name>` means the copy was already placed.
 */
export class SyncService {
  constructor(
    private readonly spaces: Spaces,
    private readonly uploads: UploadService,
    private readonly chunkSize: number,
  ) {}

  // ---- source ----------------------------------------------------------------------------------------

  private sourceSegs(g: SyncGrant, rel: string): string[] {
    if (g.role !== 'source') throw forbidden();
    return [...parseUserPath(g.sourcePath), ...(rel ? parseUserPath(rel) : [])];
  }

  /** What the job copies: the source's name and every folder and regular file below it (links are not). */
  async manifest(user: FileUser, g: SyncGrant): Promise<SyncManifest> {
    const segs = this.sourceSegs(g, '');
    if (!segs.length) throw invalid('sourcePath', '不能同步整个主目录，请选择其中的文件夹或文件');
    return this.spaces.with(user, async (fs) => {
      const st = await fs.stat(segs);
      refuseLink(st, segs);
      const name = segs[segs.length - 1];
      if (st?.type === 'file') return { name, type: 'file', entries: [{ path: '', type: 'file', size: st.size }] };
      if (st?.type !== 'dir') throw fileErr(ErrorCode.FILE_NOT_FOUND, userPathOf(segs));
      const walked = await fs.walk(segs);
      if (walked.length > SYNC_FILES_MAX) throw failed(`文件数量超出上限（${SYNC_FILES_MAX}）`);
      return {
        name,
        type: 'dir',
        entries: walked.map((w): SyncManifestEntry => ({ path: w.rel.join('/'), type: w.stat.type === 'dir' ? 'dir' : 'file', size: w.stat.type === 'file' ? w.stat.size : 0 })),
      };
    });
  }

  /** A source file opened for reading (ranges of it are streamed from the descriptor). */
  async open(user: FileUser, g: SyncGrant, rel: string): Promise<OpenedFile> {
    const segs = this.sourceSegs(g, rel);
    return this.spaces.with(user, (fs) => fs.openFile(segs));
  }

  async hash(user: FileUser, g: SyncGrant, rel: string): Promise<string> {
    const file = await this.open(user, g, rel);
    const h = createHash('sha256');
    try {
      if (file.stat.size > 0) for await (const piece of file.read(0, file.stat.size - 1)) h.update(piece as Buffer);
    } finally {
      await file.close();
    }
    return h.digest('hex');
  }

  // ---- receiver --------------------------------------------------------------------------------------

  /**
   * Pulls the job's source into `targetDir/<name>`, resuming whatever an earlier attempt left; `emit` gets
   * progress lines (then `done`). Throws AppErrors (the route turns them into an `error` line).
   */
  async pull(user: FileUser, g: SyncGrant, source: SyncSource, emit: (line: SyncPullLine) => void, signal: AbortSignal): Promise<void> {
    if (g.role !== 'target') throw forbidden();
    const key = keyOf(g.jobId);
    const targetDir = parseUserPath(g.targetDir);
    const m = await source.manifest(signal);
    const name = checkName(m.name);
    const hidden = [...targetDir, `${TEMP_PREFIX}sync-${key}`];
    const root = [...hidden, name];
    const final = [...targetDir, name];
    const record = `sync-${key}`;
    const files = m.entries.filter((e) => e.type === 'file');
    const totals = { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };

    const phase = await this.spaces.with(user, async (fs) => {
      if (await fs.staging.exists(record)) {
        if (await fs.stat(hidden)) return 'copy';
        if (await fs.stat(final)) return 'placed';
      } else {
        // A version's folder in the asset area is made here; a user's target folder must exist.
        if (g.scope === 'assets') await fs.ensureDir(targetDir);
        const dir = await fs.stat(targetDir);
        refuseLink(dir, targetDir);
        if (dir?.type !== 'dir') throw fileErr(ErrorCode.DIR_NOT_FOUND, userPathOf(targetDir));
        const there = await fs.stat(final);
        // A version is immutable: one already in this center's asset area is the copy wanted (another job made it).
        if (there && g.scope === 'assets') return 'placed';
        if (there) throw clash(there, final);
        await fs.staging.ensure(record, { totalSize: 0, totalChunks: 1, chunkSize: this.chunkSize });
      }
      await fs.ensureDir(m.type === 'dir' ? root : hidden);
      for (const e of m.entries) if (e.type === 'dir') await fs.ensureDir([...root, ...relSegs(e.path)]);
      return 'copy';
    });
    if (phase === 'placed') return new Progress(totals, totals, emit).done();

    const { plans, have } = await this.plan(user, key, m, root);
    const progress = new Progress(totals, have, emit);
    await runPool(this.copyTasks(user, source, plans, progress, signal), IN_FLIGHT, signal);
    signal.throwIfAborted();
    await this.spaces.with(user, async (fs) => {
      await fs.rename(root, final);
      await fs.remove(hidden);
    });
    this.spaces.usage.invalidate(spaceKey(user));
    progress.done();
  }

  /**
   * What is left to do, per file: nothing (placed by an earlier attempt), the whole file (small ones), or the
   * chunks the staging does not have yet. Counted before anything moves, so the first progress line of a
   * resumed pull already shows what had arrived.
   */
  private async plan(user: FileUser, key: string, m: SyncManifest, root: Segs): Promise<{ plans: FilePlan[]; have: { bytes: number; files: number } }> {
    const plans: FilePlan[] = [];
    const have = { bytes: 0, files: 0 };
    for (const f of m.entries) {
      if (f.type !== 'file') continue;
      const dest = m.type === 'file' ? root : [...root, ...relSegs(f.path)];
      const base = { entry: f, dir: dest.slice(0, -1), name: dest[dest.length - 1], identifier: fileIdOf(key, f.path) };
      // Only a verified file ever gets its name inside the hidden folder (merge, or rename after the check).
      // A staging beside it that has lost its data file is a merge killed after its rename and before its
      // cleanup: the file is placed. (Asking chunkStatus instead would drop that staging as "bytes gone" and
      // the whole file would be sent again — the shard CI4 saw re-sent after the SIGKILL, issue 26.)
      const placed = await this.spaces.with(user, async (fs) => {
        if ((await fs.stat(dest))?.type !== 'file') return false;
        if (!(await fs.staging.exists(base.identifier))) return true;
        if (await fs.staging.hasData(base.identifier)) return false;
        await this.uploads.abandon(user, fs, base.identifier);
        return true;
      });
      if (placed) {
        have.bytes += f.size;
        have.files++;
        continue;
      }
      if (f.size <= this.chunkSize) {
        plans.push({ ...base, kind: 'small' });
        continue;
      }
      const status = await this.uploads.chunkStatus(user, { identifier: base.identifier, path: userPathOf(base.dir), filename: base.name, totalSize: f.size });
      const shape = { totalSize: f.size, chunkSize: status.chunkSize, totalChunks: chunkCountOf(f.size, status.chunkSize) };
      const staged = new Set(status.uploaded);
      for (const n of staged) have.bytes += expectedChunkLength(n, shape);
      const missing: number[] = [];
      for (let n = 1; n <= shape.totalChunks; n++) if (!staged.has(n)) missing.push(n);
      plans.push({ ...base, kind: 'chunked', shape, missing });
    }
    return { plans, have };
  }

  /** The plans as tasks for the pool: one per missing chunk of a large file (the last one merges), one per small file. */
  private *copyTasks(user: FileUser, source: SyncSource, plans: FilePlan[], progress: Progress, signal: AbortSignal): Generator<() => Promise<void>> {
    for (const p of plans) {
      const { entry: f, dir, name, identifier } = p;
      if (p.kind === 'small') {
        yield () => this.copySmall(user, source, f, dir, name, progress, signal);
        continue;
      }
      const { shape, missing } = p;
      // Asked when the file's first task starts, so the source hashes while the chunks travel; the merge awaits it.
      let hash: Promise<string> | null = null;
      const hashOnce = () => {
        if (!hash) {
          hash = source.hash(f.path, signal);
          hash.catch(() => {});
        }
        return hash;
      };
      const merge = async () => {
        const sha256 = await hashOnce();
        await this.uploads.merge(user, { identifier, filename: name, path: userPathOf(dir), totalChunks: shape.totalChunks, totalSize: f.size, hash: sha256 }).catch((e: unknown) => {
          throw e instanceof AppError && e.code === ErrorCode.FILE_CHECK_FAILED ? mismatch(f.path) : e;
        });
        progress.file(0);
      };
      if (!missing.length) {
        yield merge;
        continue;
      }
      let left = missing.length;
      for (const n of missing) {
        yield async () => {
          void hashOnce();
          const start = chunkOffset(n, shape);
          const length = expectedChunkLength(n, shape);
          const body = await source.read(f.path, start, start + length - 1, signal);
          await this.uploads.uploadChunk(user, { identifier, chunkNumber: n, totalChunks: shape.totalChunks, chunkSize: shape.chunkSize, totalSize: f.size, filename: name, path: userPathOf(dir) }, body);
          progress.bytes(length);
          if (--left === 0) await merge();
        };
      }
    }
  }

  /** A file of at most one chunk: written under a temp name, checked against the source's hash, renamed. */
  private async copySmall(user: FileUser, source: SyncSource, f: SyncManifestEntry, dir: Segs, name: string, progress: Progress, signal: AbortSignal) {
    const hash = source.hash(f.path, signal);
    hash.catch(() => {});
    const body = f.size > 0 ? await source.read(f.path, 0, f.size - 1, signal) : Readable.from([]);
    const temp = [...dir, `${TEMP_PREFIX}${name.length > 64 ? createHash('sha256').update(name).digest('hex').slice(0, 16) : name}`];
    await this.spaces.with(user, async (fs) => {
      const quota = await this.spaces.quotaGuard(user, fs, 0);
      try {
        const r = await fs.writeFile(temp, body, { hash: true, guard: (_total, piece) => quota.take(piece) });
        if (r.bytes !== f.size || r.sha256 !== (await hash)) {
          await fs.remove(temp);
          throw mismatch(f.path);
        }
        await fs.rename(temp, [...dir, name]);
      } finally {
        quota.release();
      }
    });
    progress.file(f.size);
  }

  /**
   * Removes what a job left here (its hidden folder, staged chunks and record); nothing there is fine. The
   * running job's grant (`target`) or, once it ended, the removal-only grant of the gateway's sweep (`discard`).
   */
  async discard(user: FileUser, g: SyncGrant): Promise<void> {
    if (g.role !== 'target' && g.role !== 'discard') throw forbidden();
    const key = keyOf(g.jobId);
    const hidden = [...parseUserPath(g.targetDir), `${TEMP_PREFIX}sync-${key}`];
    await this.spaces.with(user, async (fs) => {
      if (await fs.stat(hidden)) await fs.remove(hidden);
      for (const id of await fs.staging.identifiers()) if (id.startsWith(`sync-${key}`)) await this.uploads.abandon(user, fs, id);
    });
    this.spaces.usage.invalidate(spaceKey(user));
  }
}

/** The segments of a manifest path, each a valid name here (a source name this center cannot hold is refused). */
function relSegs(rel: string): string[] {
  return rel.split('/').map(checkName);
}

/** Counts what has arrived and emits progress lines at most every PROGRESS_EVERY_MS. */
class Progress {
  private bytesDone: number;
  private filesDone: number;
  private readonly bytesTotal: number;
  private readonly filesTotal: number;
  private last = 0;

  constructor(
    total: { bytes: number; files: number },
    have: { bytes: number; files: number },
    private readonly emit: (line: SyncPullLine) => void,
  ) {
    [this.bytesTotal, this.filesTotal, this.bytesDone, this.filesDone] = [total.bytes, total.files, have.bytes, have.files];
    this.send();
  }

  bytes(n: number) {
    this.bytesDone += n;
    this.maybeSend();
  }

  /** A file was placed; `n` of its bytes were not counted yet. */
  file(n: number) {
    this.filesDone++;
    this.bytes(n);
  }

  done() {
    this.emit({ type: 'done', ...this.counts() });
  }

  private counts() {
    return { bytesDone: Math.min(this.bytesDone, this.bytesTotal), bytesTotal: this.bytesTotal, filesDone: this.filesDone, filesTotal: this.filesTotal };
  }

  private maybeSend() {
    if (Date.now() - this.last >= PROGRESS_EVERY_MS) this.send();
  }

  private send() {
    this.last = Date.now();
    this.emit({ type: 'progress', ...this.counts() });
  }
}

/** One file of a pull: what is left of it (see SyncService.plan). */
type FilePlan = { entry: SyncManifestEntry; dir: Segs; name: string; identifier: string } & (
  | { kind: 'small' }
  | { kind: 'chunked'; shape: { totalSize: number; chunkSize: number; totalChunks: number }; missing: number[] }
);

/** Runs the tasks `tasks` yields, `n` at a time; the first failure stops taking new ones and is thrown. */
async function runPool(tasks: Iterator<() => Promise<void>>, n: number, signal: AbortSignal) {
  let failed = null as { error: unknown } | null;
  // The workers share one sequence of tasks.
  const worker = async () => {
    while (!failed && !signal.aborted) {
      const next = tasks.next();
      if (next.done) return;
      try {
        await next.value();
      } catch (e) {
        failed ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
  if (failed) throw failed.error;
}

/**
 * The receiving file service as the gateway's sync runner sees it: over HTTP (sync-clients.ts) or, for a
 * center the gateway serves itself, in this process (mount.ts). `pull` resolves once the copy is placed and
 * throws an AppError otherwise; 1403/1404 mean "not reached" and are retried by the runner.
 */
export interface SyncReceiver {
  pull(grant: string, onProgress: (line: Extract<SyncPullLine, { type: 'progress' | 'done' }>) => void, signal: AbortSignal): Promise<void>;
  discard(grant: string): Promise<void>;
}
