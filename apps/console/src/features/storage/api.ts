/**
 * Calls of one sub-center's file service (api-contract.md "File service") and the foundation's sub-center
 * list. JSON calls go through the console's request pipeline bound to the center's `fileServiceUrl`, so
 * toasts and session expiry behave like everywhere else; downloads stream with progress.
 */
import {
  CLIENT_FAILURE_MESSAGE,
  CLIENT_TIMEOUT_MESSAGE,
  ERROR_MESSAGES,
  FILE_API_PREFIX,
  FOUNDATION_BASE,
  HTTP_STATUS_MESSAGES,
  HTTP_TIMEOUT_MS,
  SESSION_INVALID_CODES,
  pathToId,
  type FileEntry,
  type Page,
  type SubCenter,
  type Usage,
} from '@suanli/contracts';
import { request, createRequest, RequestError, type RequestClient } from '../../app/request';
import { toast } from '../../app/feedback';
import { expireSession } from '../../app/session';

export type SortField = 'name' | 'size' | 'updateTime';
export type SortOrder = 'ascend' | 'descend';

export interface ListParams {
  path: string;
  pageNum: number;
  pageSize: number;
  keyword?: string;
  sortField?: SortField;
  sortOrder?: SortOrder;
}

export interface DownloadProgress {
  loaded: number;
  /** From Content-Length; undefined for a zip streamed without one. */
  total?: number;
}

export interface DownloadOptions {
  /** Inclusive byte range, sent as `Range: bytes=a-b`. */
  range?: [number, number];
  /** Stop reading after this many bytes (a server that ignores Range must not make a preview read a GiB). */
  maxBytes?: number;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
}

export function fetchSubCenters(): Promise<SubCenter[]> {
  return request.get<SubCenter[]>(`${FOUNDATION_BASE}/sub-centers/action/list`);
}

export interface FileApi {
  baseUrl: string;
  list(params: ListParams): Promise<Page<FileEntry>>;
  /** All sub-directories of `path` (for the directory picker): pages through until files start. */
  listDirs(path: string): Promise<FileEntry[]>;
  mkdir(parentPath: string, name: string, opts?: { silent?: boolean }): Promise<FileEntry>;
  rename(path: string, newName: string): Promise<unknown>;
  move(paths: string[], targetDir: string): Promise<unknown>;
  copy(paths: string[], targetDir: string): Promise<unknown>;
  remove(paths: string[]): Promise<unknown>;
  usage(): Promise<Usage>;
  /** The file (or a zip of several paths / a directory) as a Blob, reporting bytes received. */
  download(paths: string[], opts?: DownloadOptions): Promise<{ blob: Blob; filename?: string; status: number }>;
}

const DIR_PAGE = 100;

export function createFileApi(baseUrl: string, client: RequestClient = createRequest({ baseURL: `${baseUrl.replace(/\/+$/, '')}${FILE_API_PREFIX}` })): FileApi {
  const api: FileApi = {
    baseUrl,
    list: ({ path, pageNum, pageSize, keyword, sortField, sortOrder }) =>
      client.post<Page<FileEntry>>('/directory', {
        params: { path, pageNum, pageSize },
        data: { ...(keyword ? { keyword } : {}), ...(sortField && sortOrder ? { sortField, sortOrder } : {}) },
      }),
    async listDirs(path) {
      const dirs: FileEntry[] = [];
      for (let pageNum = 1; ; pageNum++) {
        const page = await client.post<Page<FileEntry>>('/directory', {
          params: { path, pageNum, pageSize: DIR_PAGE },
          data: { sortField: 'name', sortOrder: 'ascend' },
        });
        const here = page.list.filter((e) => e.type === 'dir');
        dirs.push(...here);
        // Directories come first, so a page with a file in it (or a short page) is the last one needed.
        if (here.length < page.list.length || pageNum * DIR_PAGE >= page.total) return dirs;
      }
    },
    mkdir: (parentPath, name, opts) =>
      client.post<FileEntry>(`/directory/${encodeURIComponent(pathToId(parentPath))}`, { data: { name }, silent: opts?.silent }),
    rename: (path, newName) => client.post('/file/rename', { data: { path, newName } }),
    move: (paths, targetDir) => client.post('/file/move', { data: { paths, targetDir } }),
    copy: (paths, targetDir) => client.post('/file/copy', { data: { paths, targetDir } }),
    remove: (paths) => client.delete('/file', { data: { paths } }),
    usage: () => client.get<Usage>('/usage', { silent: true }),
    download: (paths, opts = {}) => streamDownload(client, paths, opts),
  };
  return api;
}

/**
 * POST /file/download read as a stream so the page can show progress (the pipeline's blob mode cannot).
 * Failures answered as an envelope get the pipeline's treatment: session expiry or an error toast.
 */
async function streamDownload(
  client: RequestClient,
  paths: string[],
  opts: DownloadOptions,
): Promise<{ blob: Blob; filename?: string; status: number }> {
  const headers: Record<string, string> = { ...client.authHeaders(), 'Content-Type': 'application/json' };
  if (opts.range) headers.Range = `bytes=${opts.range[0]}-${opts.range[1]}`;
  // Only the wait for the response head is bounded: a multi-GiB body may legitimately take longer.
  const ctl = new AbortController();
  const onAbort = () => ctl.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, HTTP_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(client.url('/file/download'), { method: 'POST', headers, body: JSON.stringify({ paths }), signal: ctl.signal });
  } catch {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    if (opts.signal?.aborted) throw new RequestError('aborted', '下载已取消');
    throw fail(timedOut ? new RequestError('timeout', CLIENT_TIMEOUT_MESSAGE) : new RequestError('network', CLIENT_FAILURE_MESSAGE));
  }
  clearTimeout(timer);
  try {
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok || type.includes('application/json')) {
      const payload = (await res.json().catch(() => undefined)) as { message?: { code?: number; message?: string } } | undefined;
      const code = payload?.message?.code;
      const text = payload?.message?.message || (code !== undefined ? ERROR_MESSAGES[code] : undefined) || HTTP_STATUS_MESSAGES[res.status] || CLIENT_FAILURE_MESSAGE;
      if (code !== undefined && SESSION_INVALID_CODES.includes(code)) {
        expireSession(text);
        throw new RequestError('session', text, code, res.status);
      }
      throw fail(new RequestError(code !== undefined ? 'business' : 'http', text, code, res.status));
    }
    const lengthHeader = Number(res.headers.get('content-length'));
    const total = Number.isFinite(lengthHeader) && lengthHeader > 0 ? lengthHeader : undefined;
    const parts: Uint8Array<ArrayBuffer>[] = [];
    let loaded = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        loaded += value.byteLength;
        opts.onProgress?.({ loaded, total });
        if (opts.maxBytes !== undefined && loaded >= opts.maxBytes) {
          void reader.cancel();
          break;
        }
      }
    }
    return { blob: new Blob(parts, { type: type || 'application/octet-stream' }), filename: filenameFrom(res.headers.get('content-disposition')), status: res.status };
  } catch (err) {
    if (opts.signal?.aborted) throw new RequestError('aborted', '下载已取消');
    throw err;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function fail(err: RequestError): RequestError {
  // Same visible outcome as the pipeline: one toast per failure, a warning for a timeout.
  if (err.kind === 'timeout') toast.warning(err.message);
  else toast.error(err.message);
  return err;
}

/** `attachment; filename="a.txt"; filename*=UTF-8''%E4%B8%AD.txt` → the decoded name. */
export function filenameFrom(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition);
  return plain?.[1];
}

/** Hands a Blob to the browser as a download. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Give the browser a moment to start reading the blob before it is released.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
