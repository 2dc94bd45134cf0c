/**
 * Calls of one sub-center's file service (api-contract.md "File service") and the foundation's sub-center
 * list, from their route descriptors (`FileServiceApi`, `FileTransferApi`). JSON calls go through the
 * console's request pipeline bound to the center's `fileServiceUrl` (`callWith`), so toasts and session expiry
 * behave like everywhere else. Downloads are handed to the browser through a
 * short-lived ticket URL (its download manager streams to disk, shows progress and resumes); only the text
 * preview reads bytes in JS.
 */
import { FILE_SPACE_HEADER, FileServiceApi, FileTransferApi, FoundationApi, pathToId, routeUrl, type FileEntry, type Page, type SubCenter, type Usage } from '@suanli/contracts';
import { call } from '../../app/request';
import { callWith } from '../../shared/http/call';
import { createClient, type RequestClient } from '../../shared/http/client';
import { browserDownload } from '../../shared/http/browser-download';
import { RequestError, send } from '../../shared/http/transport';

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

export interface ReadOptions {
  /** Inclusive byte range, sent as `Range: bytes=a-b`. */
  range?: [number, number];
  /** Stop reading after this many bytes (a server that ignores Range must not make a preview read a GiB). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export function fetchSubCenters(): Promise<SubCenter[]> {
  return call(FoundationApi.centers);
}

export interface FileApi {
  baseUrl: string;
  /** The space every call acts in: `team:<id>` (a team's folder, ADR 0018), or undefined for the user's home. */
  space?: string;
  /** `silent`: the caller shows a refusal itself (the listing shows why a folder cannot be read). */
  list(params: ListParams, opts?: { silent?: boolean }): Promise<Page<FileEntry>>;
  /** All sub-directories of `path` (for the directory picker): pages through until files start. */
  listDirs(path: string): Promise<FileEntry[]>;
  mkdir(parentPath: string, name: string, opts?: { silent?: boolean }): Promise<FileEntry>;
  rename(path: string, newName: string): Promise<unknown>;
  move(paths: string[], targetDir: string): Promise<unknown>;
  copy(paths: string[], targetDir: string): Promise<unknown>;
  remove(paths: string[]): Promise<unknown>;
  usage(): Promise<Usage>;
  /**
   * Starts a browser-managed download of one file (or a zip of several paths / a directory): asks for a
   * ticket URL and lets the browser fetch it. Resolves once the browser has been handed the URL.
   */
  download(paths: string[]): Promise<void>;
  /** The bytes of one file in JS (the detail page's text preview), usually a Range of it. */
  read(path: string, opts?: ReadOptions): Promise<Blob>;
}

const DIR_PAGE = 100;

/** The same client, every call also carrying `headers` (a call's own headers still win). */
function withHeaders(client: RequestClient, headers: Record<string, string>): RequestClient {
  const wrap =
    (m: RequestClient['get']): RequestClient['get'] =>
    ((url: string, options: Parameters<RequestClient['get']>[1] = {}) => m(url, { ...options, headers: { ...headers, ...options?.headers } } as never)) as RequestClient['get'];
  return { ...client, get: wrap(client.get), post: wrap(client.post), put: wrap(client.put), delete: wrap(client.delete) };
}

/**
 * `client`: bound to the file service's own URL (`fileServiceUrl`); the descriptors carry the `/api/v1` base.
 * `space`: a team's folder (`team:<id>`) instead of the user's home, sent as `x-file-space` on every call.
 */
export function createFileApi(baseUrl: string, client: RequestClient = createClient({ baseURL: baseUrl.replace(/\/+$/, '') }), space?: string): FileApi {
  const serviceUrl = baseUrl.replace(/\/+$/, '');
  if (space) client = withHeaders(client, { [FILE_SPACE_HEADER]: space });
  const api: FileApi = {
    baseUrl,
    space,
    list: ({ path, pageNum, pageSize, keyword, sortField, sortOrder }, opts) =>
      callWith(
        client,
        FileServiceApi.list,
        { query: { path, pageNum, pageSize }, body: { ...(keyword ? { keyword } : {}), ...(sortField && sortOrder ? { sortField, sortOrder } : {}) } },
        { silent: opts?.silent },
      ),
    async listDirs(path) {
      const dirs: FileEntry[] = [];
      for (let pageNum = 1; ; pageNum++) {
        const page = await callWith(client, FileServiceApi.list, { query: { path, pageNum, pageSize: DIR_PAGE }, body: { sortField: 'name', sortOrder: 'ascend' } });
        const here = page.list.filter((e) => e.type === 'dir');
        dirs.push(...here);
        // Directories come first, so a page with a file in it (or a short page) is the last one needed.
        if (here.length < page.list.length || pageNum * DIR_PAGE >= page.total) return dirs;
      }
    },
    mkdir: (parentPath, name, opts) => callWith(client, FileServiceApi.mkdir, { params: { parentId: pathToId(parentPath) }, body: { name } }, { silent: opts?.silent }),
    rename: (path, newName) => callWith(client, FileServiceApi.rename, { body: { path, newName } }),
    move: (paths, targetDir) => callWith(client, FileServiceApi.move, { body: { paths, targetDir } }),
    copy: (paths, targetDir) => callWith(client, FileServiceApi.copy, { body: { paths, targetDir } }),
    remove: (paths) => callWith(client, FileServiceApi.remove, { body: { paths } }),
    usage: () => callWith(client, FileServiceApi.usage, undefined, { silent: true }),
    async download(paths) {
      const ticket = await callWith(client, FileServiceApi.downloadTicket, { body: { paths } });
      // The ticket URL is relative to the service and needs no token header, so the browser can fetch it itself.
      browserDownload(`${serviceUrl}${ticket.url}`);
    },
    read: (path, opts = {}) => streamDownload(client, path, opts, space),
  };
  return api;
}

/**
 * `FileTransferApi.download` (POST /file/download) read in JS, stopping after `maxBytes` (a blob read cannot stop early). The transport
 * bounds the wait for the response head and decodes a refusal like any other call (toast, session expiry).
 */
async function streamDownload(client: RequestClient, path: string, opts: ReadOptions, space?: string): Promise<Blob> {
  const res = await send(
    {
      method: FileTransferApi.download.method,
      url: client.url(routeUrl(FileTransferApi.download)),
      data: { paths: [path] },
      headers: { ...(opts.range ? { Range: `bytes=${opts.range[0]}-${opts.range[1]}` } : {}), ...(space ? { [FILE_SPACE_HEADER]: space } : {}) },
      signal: opts.signal,
      responseType: 'stream',
    },
    client.overrides,
  ).catch((err: unknown) => {
    if (err instanceof RequestError && err.kind === 'aborted') throw new RequestError('aborted', '下载已取消');
    throw err;
  });
  const type = res.headers.get('content-type') ?? '';
  try {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    let loaded = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        loaded += value.byteLength;
        if (opts.maxBytes !== undefined && loaded >= opts.maxBytes) {
          void reader.cancel();
          break;
        }
      }
    }
    return new Blob(parts, { type: type || 'application/octet-stream' });
  } catch (err) {
    if (opts.signal?.aborted) throw new RequestError('aborted', '下载已取消');
    throw err;
  }
}
