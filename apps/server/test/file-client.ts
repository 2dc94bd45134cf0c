/**
 * Test-only HTTP client for the file service (real HTTP through fetch, like the console). Used by the
 * file service's api and process tests; the production upload client lives in the console.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';

export interface Envelope<T = any> {
  status: number;
  code: number;
  message: string;
  data: T;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export class FileClient {
  constructor(
    /** `{fileServiceUrl}/api/v1` */
    readonly api: string,
    public token: string | undefined,
    /** The `x-file-space` header (a team's folder, `team:<id>`); absent: the home. */
    public space?: string,
  ) {}

  private headers(extra: Record<string, string> = {}) {
    return { ...(this.token ? { token: this.token } : {}), ...(this.space ? { 'x-file-space': this.space } : {}), ...extra };
  }

  async json<T = any>(method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<Envelope<T>> {
    const qs = query ? `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}` : '';
    const res = await fetch(`${this.api}${path}${qs}`, {
      method,
      headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return envelope<T>(res);
  }

  list(path = '/', body: Record<string, unknown> = {}, page = { pageNum: 1, pageSize: 100 }) {
    return this.json('POST', '/directory', body, { path, ...page });
  }

  mkdir(parentPath: string, name: string) {
    return this.json('POST', `/directory/${Buffer.from(parentPath).toString('base64url')}`, { name });
  }

  async upload(dir: string, filename: string, bytes: Uint8Array, opts: { fileFirst?: boolean } = {}) {
    const form = new FormData();
    const file = new Blob([new Uint8Array(bytes)]);
    if (opts.fileFirst) form.append('file', file, filename);
    form.append('path', dir);
    if (!opts.fileFirst) form.append('file', file, filename);
    return envelope(await fetch(`${this.api}/file/upload`, { method: 'POST', headers: this.headers(), body: form }));
  }

  status(q: { identifier: string; path: string; filename: string; totalSize: number; hash?: string }) {
    return this.json('GET', '/file/chunk/upload', undefined, q as Record<string, string | number>);
  }

  async chunk(f: { identifier: string; chunkNumber: number; totalChunks: number; chunkSize: number; totalSize: number; filename: string; path: string }, bytes: Uint8Array) {
    const form = new FormData();
    for (const [k, v] of Object.entries(f)) form.append(k, String(v));
    form.append('file', new Blob([new Uint8Array(bytes)]), f.filename);
    return envelope(await fetch(`${this.api}/file/chunk/upload`, { method: 'POST', headers: this.headers(), body: form }));
  }

  merge(b: { identifier: string; filename: string; path: string; totalChunks: number; totalSize: number; hash?: string }) {
    return this.json('POST', '/file/chunk/merge', b);
  }

  /** Uploads `bytes` in chunks of `chunkSize` (all of them, or the given numbers) without merging. */
  async chunks(identifier: string, dir: string, filename: string, bytes: Uint8Array, chunkSize: number, only?: number[]) {
    const totalChunks = Math.max(1, Math.ceil(bytes.length / chunkSize));
    const out = [];
    for (let n = 1; n <= totalChunks; n++) {
      if (only && !only.includes(n)) continue;
      const part = bytes.subarray((n - 1) * chunkSize, n * chunkSize);
      out.push(await this.chunk({ identifier, chunkNumber: n, totalChunks, chunkSize, totalSize: bytes.length, filename, path: dir }, part));
    }
    return { totalChunks, results: out };
  }

  download(paths: string[], headers: Record<string, string> = {}) {
    return fetch(`${this.api}/file/download`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', ...headers }),
      body: JSON.stringify({ paths }),
    });
  }

  downloadTicket(paths: string[]) {
    return this.json<{ url: string; expiresAt: number }>('POST', '/file/download/ticket', { paths });
  }

  /** GETs a ticket URL (relative to the service) the way a browser navigates to it: no `token` header. */
  fetchTicket(url: string, headers: Record<string, string> = {}) {
    return fetch(`${this.api.slice(0, -'/api/v1'.length)}${url}`, { headers });
  }

  remove(paths: string[]) {
    return this.json('DELETE', '/file', { paths });
  }
  rename(path: string, newName: string) {
    return this.json('POST', '/file/rename', { path, newName });
  }
  move(paths: string[], targetDir: string) {
    return this.json('POST', '/file/move', { paths, targetDir });
  }
  copy(paths: string[], targetDir: string) {
    return this.json('POST', '/file/copy', { paths, targetDir });
  }
  usage() {
    return this.json('GET', '/usage');
  }
}

export async function envelope<T = any>(res: Response): Promise<Envelope<T>> {
  const text = await res.text();
  let parsed: { message: { code: number; message: string }; data: T };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`not an envelope (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, code: parsed.message.code, message: parsed.message.message, data: parsed.data };
}

/**
 * A multipart request (an upload or a chunk) over raw HTTP that sends the text fields and the first
 * `sendFirst` bytes of the file part named `filename`, then holds the rest back until `finish()` — to
 * observe the server while a body is in flight.
 */
export function partialMultipart(url: string, token: string, fields: Record<string, string>, filename: string, file: Buffer, sendFirst: number) {
  const boundary = `b${randomBytes(8).toString('hex')}`;
  let head = '';
  for (const [k, v] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const u = new URL(url);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method: 'POST',
    headers: { token, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': Buffer.byteLength(head) + file.length + Buffer.byteLength(tail) },
  });
  const answer = new Promise<{ code: number; message: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(JSON.parse(text).message));
    });
    req.on('error', reject);
  });
  req.write(head);
  const sent = new Promise<void>((r) => req.write(file.subarray(0, sendFirst), () => setTimeout(r, 100)));
  return {
    sent,
    answer,
    finish: () => req.end(Buffer.concat([file.subarray(sendFirst), Buffer.from(tail)])),
    abort: () => req.destroy(),
  };
}
