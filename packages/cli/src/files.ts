import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { CLIENT_TIMEOUT_MESSAGE, FileServiceApi, FileTransferApi, FoundationApi, HTTP_TIMEOUT_MS, PAGE_SIZE_MAX, SMALL_UPLOAD_MAX, type FileEntry, type SubCenter } from '@suanli/contracts';
// The console's own uploader (chunked, resumable, retries) and the upload benchmark's Node transport of it:
// the CLI sends exactly what the browser sends, through the same code.
import { uploadFile } from '../../../apps/console/src/shared/upload/uploader';
import { RequestError } from '../../../apps/console/src/shared/http/transport';
import { nodeFetch, nodeFile } from '../../../bench/support/node-transport';
import { call, CliError, envelopeData, headersOf, urlOf, type Target } from './api';
import { progressReporter } from './output';

/** `<center>:<path>`: a center's id (or name) and a path in the caller's home there (`/` = the home). */
export function parseRemote(spec: string): { center: string; path: string } {
  const i = spec.indexOf(':');
  if (i <= 0) throw new CliError(`远程路径格式应为 <分中心>:<路径>，例如 sz-a100:/data（收到：${spec}）`);
  const p = spec.slice(i + 1) || '/';
  return { center: spec.slice(0, i), path: p.startsWith('/') ? p : `/${p}` };
}

export async function findCenter(gateway: Target, idOrName: string): Promise<SubCenter> {
  const centers = await call(gateway, FoundationApi.centers);
  const c = centers.find((x) => x.id === idOrName) ?? centers.find((x) => x.name === idOrName);
  if (!c) throw new CliError(`分中心不存在：${idOrName}（可用：${centers.map((x) => x.id).join('、')}）`);
  return c;
}

/** A center's file service as a call target (`fileServiceUrl` is absolute; a relative one is the gateway's). */
export function fileService(gateway: Target, center: SubCenter): Target {
  return { base: new URL(center.fileServiceUrl, gateway.base + '/').toString().replace(/\/+$/, ''), token: gateway.token };
}

export async function listDir(fs_: Target, dir: string): Promise<FileEntry[]> {
  const all: FileEntry[] = [];
  for (let pageNum = 1; ; pageNum++) {
    const page = await call(fs_, FileServiceApi.list, { query: { path: dir, pageNum, pageSize: PAGE_SIZE_MAX }, body: { sortField: 'name', sortOrder: 'ascend' } });
    all.push(...page.list);
    if (all.length >= page.total || page.list.length === 0) return all;
  }
}

/** The file's SHA-256 from disk, for the merge (the service then verifies what it assembled). */
async function sha256File(file: string, signal: AbortSignal): Promise<string> {
  const h = createHash('sha256');
  await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024, signal }), h);
  return h.digest('hex');
}

/**
 * Uploads one file into `dir`. Resumable: the identifier depends on the target, the name, the size and the
 * modification time only (the uploader's `uploadIdentifier`), so running the same command again after the
 * process was killed asks the service which chunks it already holds and sends the rest.
 */
export async function upload(fs_: Target, localFile: string, dir: string, opts: { quiet?: boolean } = {}) {
  const st = await fs.stat(localFile).catch(() => null);
  if (!st?.isFile()) throw new CliError(`本地文件不存在或不是文件：${localFile}`);
  // A small file goes in one request whose FormData re-wraps the file under its name, which copies a Blob's
  // own bytes — and the disk-backed FileRange holds none (it would arrive empty). So it is read into memory;
  // big files are read range by range from disk by the transport, as in the upload benchmark.
  const file =
    st.size <= SMALL_UPLOAD_MAX ? new File([await fs.readFile(localFile)], path.basename(localFile), { lastModified: st.mtimeMs }) : await nodeFile(localFile);
  const bar = opts.quiet ? null : progressReporter(`上传 ${path.basename(localFile)}`);
  let resumedFrom: number | undefined;
  try {
    const result = await uploadFile({
      baseUrl: fs_.base,
      token: fs_.token,
      file,
      targetDir: dir,
      fetch: nodeFetch,
      hash: (signal) => sha256File(localFile, signal),
      onProgress: (p) => {
        if (resumedFrom === undefined) resumedFrom = p.loaded;
        bar?.update(p.loaded, p.total);
      },
    });
    bar?.done();
    // A small file goes in one request (its only progress report is the end): nothing was resumed.
    const resumedBytes = result.instant || st.size <= SMALL_UPLOAD_MAX ? 0 : (resumedFrom ?? 0);
    return { ...result, resumedBytes, size: st.size };
  } catch (err) {
    bar?.done();
    if (err instanceof RequestError) throw new CliError(err.message, err.code);
    throw err;
  }
}

/** Downloads one remote file (or a folder, as the service's zip) to `out` (a file, or a directory to put it in). */
export async function download(fs_: Target, remote: string, out: string, opts: { quiet?: boolean } = {}) {
  let res: Response;
  // The timeout bounds the wait for the answer's head only: a big file may take longer than that to arrive.
  const headWait = new AbortController();
  const timer = setTimeout(() => headWait.abort(), HTTP_TIMEOUT_MS);
  try {
    res = await fetch(urlOf(fs_, FileTransferApi.download), {
      method: FileTransferApi.download.method,
      headers: { ...headersOf(fs_), 'content-type': 'application/json' },
      body: JSON.stringify({ paths: [remote] }),
      signal: headWait.signal,
    });
  } catch {
    throw new CliError(headWait.signal.aborted ? CLIENT_TIMEOUT_MESSAGE : `无法连接到文件服务 ${fs_.base}`);
  } finally {
    clearTimeout(timer);
  }
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || type.includes('application/json')) envelopeData(res, await res.json().catch(() => undefined));
  const name = nameFromDisposition(res.headers.get('content-disposition')) ?? path.posix.basename(remote);
  const dest = (await fs.stat(out).catch(() => null))?.isDirectory() ? path.join(out, name) : out;
  const total = Number(res.headers.get('content-length') ?? 0);
  const bar = opts.quiet || !total ? null : progressReporter(`下载 ${name}`);
  let loaded = 0;
  const body = Readable.fromWeb(res.body as unknown as NodeWebReadableStream<Uint8Array>);
  body.on('data', (c: Buffer) => {
    loaded += c.length;
    bar?.update(loaded, total);
  });
  const tmp = `${dest}.part`;
  await pipeline(body, createWriteStream(tmp));
  await fs.rename(tmp, dest);
  bar?.done();
  return { path: dest, size: loaded };
}

function nameFromDisposition(h: string | null): string | null {
  if (!h) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(h);
  if (star) return path.basename(decodeURIComponent(star[1]));
  const plain = /filename="([^"]+)"/i.exec(h);
  return plain ? path.basename(plain[1]) : null;
}
