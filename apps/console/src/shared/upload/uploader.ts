/**
 * The chunked, resumable upload client for a sub-center's file service.
 *
 * Framework-free on purpose: the console runs it in the browser and the upload benchmark drives the very
 * same code from Node 20 with a file-backed Blob (`fs.openAsBlob`). It only uses fetch, FormData, Blob and
 * AbortController, which both environments provide.
 *
 * Flow: identifier → GET /file/chunk/upload (resume state, server-advertised chunk size, instant upload) →
 * POST /file/chunk/upload for every missing chunk, UPLOAD_CONCURRENCY in flight, each retried with backoff →
 * POST /file/chunk/merge (with the content hash when known). Small files may go through POST /file/upload.
 * The file is never read whole: every request carries one `Blob.slice`.
 */
import { sha256 } from 'hash-wasm';
import {
  chunkCountOf,
  chunkOffset,
  ErrorCode,
  expectedChunkLength,
  FILE_SPACE_HEADER,
  FileServiceApi,
  FileTransferApi,
  HTTP_TIMEOUT_MS,
  SMALL_UPLOAD_MAX,
  UPLOAD_CONCURRENCY,
  errorMessage,
  routeUrl,
  type Route,
  type RouteOutput,
  type ChunkStatus,
  type FileEntry,
  type RouteTypes,
} from '@suanli/contracts';
import { RequestError, send } from '../http/transport';

/** A Blob with a name: a browser `File`, or a Node file-backed Blob the caller named. */
export type UploadFile = Blob & { readonly name: string; readonly lastModified?: number };

export interface UploadProgress {
  /** Bytes the server already holds for this upload (resumed chunks included). */
  loaded: number;
  total: number;
  /** 0–100, integer. */
  percent: number;
}

export interface UploadOptions {
  /** The sub-center's `fileServiceUrl`; `/api/v1` is appended here. */
  baseUrl: string;
  /** Overrides the transport's token source (the benchmark has no signed-in app). */
  token?: string;
  /** The space on the center (`x-file-space`: `team:<id>` for a team's folder); absent: the user's home. */
  space?: string;
  file: UploadFile;
  /** User-visible directory the file lands in (`/` is the home). */
  targetDir: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /**
   * Full-content SHA-256 (lowercase hex). Started right away and awaited only where it helps: before the
   * status call for small files (instant upload), mid-upload for big ones (instant upload once known), and
   * before merge (the server then verifies the content). A failing hash never fails the upload.
   */
  hash?: (signal: AbortSignal) => Promise<string>;
  /** Overridable for tests and the benchmark; defaults are the contract's. */
  concurrency?: number;
  retries?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
  /** Files up to this size use the single-request upload; 0 forces the chunked path. */
  smallUploadMax?: number;
  /** Replaces `fetch` for this upload (the benchmark's Node transport, tests). */
  fetch?: typeof fetch;
  /**
   * Resume this staged upload (an interrupted upload the panel lists) instead of the one `uploadIdentifier`
   * derives: the file the user picked again may carry another modification time. The merge still verifies
   * the content by its SHA-256, so a different file of the same name and size never lands.
   */
  identifier?: string;
}

export interface UploadResult {
  entry: FileEntry | null;
  /** True when the server placed a copy of content it already had (no bytes sent). */
  instant: boolean;
  /** Chunk numbers this call actually sent (empty for small or instant uploads). */
  sentChunks: number[];
  identifier: string;
}

/**
 * A failed upload is the transport's RequestError (code, status, Chinese text). Worth another try: a lost
 * connection, a timeout, a busy or restarting service, a garbled answer, and the service's generic write
 * failure (how it reports a transient disk error). Never: a business refusal, an expired session.
 */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof RequestError)) return false;
  if (err.kind === 'timeout' || err.kind === 'network') return true;
  if (err.kind === 'session' || err.kind === 'aborted') return false;
  if (err.status !== undefined && RETRYABLE_STATUS.has(err.status)) return true;
  if (err.code === ErrorCode.UPLOAD_FAILED) return true;
  return err.kind === 'http' && err.code === undefined && (err.status ?? 0) < 400;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

export function isAbortError(err: unknown): boolean {
  return (err as { name?: string } | null)?.name === 'AbortError';
}

function abortError(): Error {
  // DOMException exists in browsers and Node ≥17; its name is what callers test.
  return new DOMException('上传已取消', 'AbortError');
}

/**
 * Stable per (destination, file): the same file added again after a refresh maps to the same identifier and
 * therefore resumes. The target directory is part of it so two uploads of one file into two directories
 * never share (and race on) one chunk set.
 */
export async function uploadIdentifier(file: UploadFile, targetDir: string, space?: string): Promise<string> {
  // The space joins only when set: uploads into the home keep the identifiers they always had (resume).
  return sha256(JSON.stringify([targetDir, file.name, file.size, file.lastModified ?? 0, ...(space ? [space] : [])]));
}

export async function uploadFile(opts: UploadOptions): Promise<UploadResult> {
  const {
    baseUrl,
    file,
    targetDir,
    concurrency = UPLOAD_CONCURRENCY,
    retries = 4,
    retryDelayMs = 500,
    timeoutMs = HTTP_TIMEOUT_MS,
    smallUploadMax = SMALL_UPLOAD_MAX,
  } = opts;
  const api = baseUrl.replace(/\/+$/, '');
  const total = file.size;

  // One controller for the whole upload: the caller's signal, a failed chunk and an instant upload found
  // mid-way all stop every request in flight through it.
  const run = new AbortController();
  const onOuterAbort = () => run.abort(opts.signal?.reason ?? abortError());
  if (opts.signal?.aborted) throw abortError();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const report = (loaded: number) =>
    opts.onProgress?.({ loaded, total, percent: total === 0 ? 100 : Math.floor((loaded / total) * 100) });

  // ---- transport: the console's one transport, silent (the upload panel shows the failure) -------------
  // Method and URL from the file service's route descriptors (contracts/file.ts), the answer typed by them.
  async function request<T extends RouteTypes>(route: Route<T>, init: { query?: Record<string, string>; body?: BodyInit; json?: unknown; signal?: AbortSignal } = {}): Promise<RouteOutput<T>> {
    const parent = init.signal ?? run.signal;
    if (parent.aborted) throw abortError();
    try {
      const answer = await send(
        {
          method: route.method,
          url: api + routeUrl(route),
          params: init.query,
          data: init.json ?? init.body,
          signal: parent,
          timeout: timeoutMs,
          token: opts.token,
          silent: true,
          headers: opts.space ? { [FILE_SPACE_HEADER]: opts.space } : undefined,
        },
        opts.fetch ? { fetch: opts.fetch } : undefined,
      );
      return answer.data as RouteOutput<T>;
    } catch (err) {
      if (parent.aborted || (err instanceof RequestError && err.kind === 'aborted')) throw abortError();
      throw err;
    }
  }

  async function withRetry<T>(fn: () => Promise<T>, signal: AbortSignal = run.signal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (signal.aborted) throw abortError();
        if (!isRetryable(err) || attempt >= retries) throw err;
        await sleep(retryDelayMs * 2 ** attempt, signal);
      }
    }
  }

  // ---- hash --------------------------------------------------------------------------------------------
  let hashValue: string | undefined;
  const hashPromise: Promise<string | undefined> | undefined = opts.hash
    ? opts
        .hash(run.signal)
        .then((h) => (hashValue = /^[0-9a-f]{64}$/.test(h) ? h : undefined))
        .catch(() => undefined)
    : undefined;

  try {
    const identifier = opts.identifier ?? (await uploadIdentifier(file, targetDir, opts.space));
    const statusQuery = (hash?: string) => ({
      identifier,
      path: targetDir,
      filename: file.name,
      totalSize: String(total),
      ...(hash ? { hash } : {}),
    });
    const getStatus = (hash?: string, signal?: AbortSignal) =>
      withRetry(() => request(FileServiceApi.chunkStatus, { query: statusQuery(hash), signal }), signal);

    // Small files: the content hash is cheap, so learn it first and let the server short-circuit.
    if (total <= smallUploadMax) {
      const hash = hashPromise ? await hashPromise : undefined;
      if (hash) {
        const status = await getStatus(hash);
        if (status.skip) return done({ entry: status.entry ?? null, instant: true, sentChunks: [], identifier });
      }
      const entry = await withRetry(() => {
        const form = new FormData();
        form.append('path', targetDir);
        form.append('file', file, file.name);
        return request(FileTransferApi.upload, { body: form });
      });
      return done({ entry, instant: false, sentChunks: [], identifier });
    }

    let status = await getStatus(hashValue);
    if (status.skip) return done({ entry: status.entry ?? null, instant: true, sentChunks: [], identifier });

    const chunkSize = status.chunkSize;
    if (!Number.isInteger(chunkSize) || chunkSize <= 0) throw new RequestError('business', errorMessage(ErrorCode.UPLOAD_FAILED), ErrorCode.UPLOAD_FAILED);
    const totalChunks = chunkCountOf(total, chunkSize);
    const shape = { totalSize: total, totalChunks, chunkSize };
    const sent: number[] = [];
    const onServer = new Set<number>();
    let loaded = 0;
    const markStored = (n: number) => {
      if (n < 1 || n > totalChunks || onServer.has(n)) return;
      onServer.add(n);
      loaded += expectedChunkLength(n, shape);
    };

    // When the hash becomes known mid-upload, ask once whether the server already has this content; if so
    // stop sending and take the instant result.
    let instant: ChunkStatus | undefined;
    const chunksPhase = new AbortController();
    const stopChunks = () => chunksPhase.abort(run.signal.reason);
    run.signal.addEventListener('abort', stopChunks, { once: true });
    if (hashPromise && !hashValue) {
      void hashPromise.then(async (h) => {
        if (!h || chunksPhase.signal.aborted || onServer.size >= totalChunks) return;
        try {
          const s = await request(FileServiceApi.chunkStatus, { query: statusQuery(h), signal: chunksPhase.signal });
          if (s.skip && !chunksPhase.signal.aborted) {
            instant = s;
            chunksPhase.abort(abortError());
          }
        } catch {
          // Only an optimisation: the upload carries on.
        }
      });
    }

    const sendChunk = (n: number) =>
      withRetry(() => {
        const start = chunkOffset(n, shape);
        const form = new FormData();
        // Fields before the file part so a streaming server knows where the bytes go before they arrive.
        form.append('identifier', identifier);
        form.append('chunkNumber', String(n));
        form.append('totalChunks', String(totalChunks));
        form.append('chunkSize', String(chunkSize));
        form.append('totalSize', String(total));
        form.append('filename', file.name);
        form.append('path', targetDir);
        const part = file.slice(start, start + chunkSize);
        // The file part carries the file's name. A slice that already is a File of that name (the Node fast
        // path, bench/support/node-transport.ts) is appended as it is, so that transport can read it straight from disk;
        // the multipart sent is the same either way (a browser's Blob.slice gives a Blob: second branch).
        if (part instanceof File && part.name === file.name) form.append('file', part);
        else form.append('file', part, file.name);
        return request(FileTransferApi.chunkUpload, { body: form, signal: chunksPhase.signal });
      }, chunksPhase.signal);

    // At most two passes: the second one repairs chunks the server reports missing at merge (e.g. cleaned
    // up or lost in a crash between our send and its fsync).
    for (let pass = 0; ; pass++) {
      for (const n of status.uploaded) markStored(n);
      report(loaded);
      const queue: number[] = [];
      for (let n = 1; n <= totalChunks; n++) if (!onServer.has(n)) queue.push(n);
      try {
        await runPool(queue, concurrency, chunksPhase, async (n) => {
          await sendChunk(n);
          sent.push(n);
          markStored(n);
          report(loaded);
        });
      } catch (err) {
        if (instant) return done({ entry: instant.entry ?? null, instant: true, sentChunks: sent, identifier });
        throw err;
      }
      if (instant) return done({ entry: instant.entry ?? null, instant: true, sentChunks: sent, identifier });

      const hash = hashPromise ? await hashPromise : undefined;
      if (run.signal.aborted) throw abortError();
      try {
        const entry = await withRetry(() =>
          request(FileServiceApi.merge, {
            json: { identifier, filename: file.name, path: targetDir, totalChunks, totalSize: total, ...(hash ? { hash } : {}) },
          }),
        );
        return done({ entry, instant: false, sentChunks: sent, identifier });
      } catch (err) {
        if (!(err instanceof RequestError) || err.code !== ErrorCode.CHUNK_MISSING || pass >= 1) throw err;
        status = await getStatus(hash);
        if (status.skip) return done({ entry: status.entry ?? null, instant: true, sentChunks: sent, identifier });
        onServer.clear();
        loaded = 0;
      }
    }
  } catch (err) {
    if (run.signal.aborted && opts.signal?.aborted) throw abortError();
    // A failure stops the hash worker and anything still in flight.
    if (!run.signal.aborted) run.abort(err);
    throw err;
  } finally {
    opts.signal?.removeEventListener('abort', onOuterAbort);
    // Whatever the outcome, nothing of this upload may keep running (a hash still reading the file, the
    // mid-upload instant check).
    if (!run.signal.aborted) run.abort(abortError());
  }

  function done(result: UploadResult): UploadResult {
    report(total);
    return result;
  }
}

/**
 * Runs `task` over `items` with at most `limit` in flight. The first failure aborts `ctl` (so the others
 * stop promptly) and is rethrown only after every started task has settled — no request outlives the call.
 */
async function runPool<T>(items: T[], limit: number, ctl: AbortController, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let firstError: unknown;
  const worker = async () => {
    while (next < items.length && !ctl.signal.aborted) {
      const item = items[next++];
      try {
        await task(item);
      } catch (err) {
        if (firstError === undefined) firstError = err;
        ctl.abort(err);
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (firstError !== undefined) throw firstError;
  if (ctl.signal.aborted) throw abortError();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
