/**
 * Node-only fast path for the upload client (the upload benchmark; never imported by browser code, like
 * node-hash.ts). The uploader itself is unchanged: it still slices the file, builds a FormData and calls
 * `fetch` — these two pieces only replace what Node makes expensive where a browser is native code:
 *
 * - `nodeFile(path)`: an UploadFile whose slices read their byte range straight from the file
 *   (positional reads into two reused buffers). Node's own file-backed Blob (`fs.openAsBlob`) costs
 *   ~1.3 CPU-s per GiB to read, a plain read stream ~0.4 plus the GC of a fresh buffer per read. Its slices are Files carrying the file's name, so the uploader appends them
 *   to the FormData as they are (see `sendChunk`) and the transport below recognises them.
 * - `nodeFetch`: `fetch` over `node:http(s)` with a keep-alive agent. It streams a FormData body itself
 *   (same multipart as the WHATWG encoder: text fields, then the file part, exact Content-Length), and
 *   answers a real `Response`. undici's fetch + multipart encoder cost ~1 CPU-s per GiB more. Bodies other
 *   than a FormData, a string or nothing are handed to the global fetch.
 *
 * Both are plain Web types to the uploader (File, Response), so every other path — retries, abort,
 * timeouts, resume — is the one the browser runs.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type { UploadFile } from '../../apps/console/src/shared/upload/uploader';

const READ_HWM = 1024 * 1024;

/** A byte range of a file on disk, as a File (name and lastModified of the whole file). */
export class FileRange extends File {
  readonly #path: string;
  readonly #start: number;
  readonly #end: number;

  constructor(filePath: string, start: number, end: number, name: string, lastModified: number) {
    super([], name, { lastModified });
    this.#path = filePath;
    this.#start = start;
    this.#end = Math.max(start, end);
  }

  override get size(): number {
    return this.#end - this.#start;
  }

  /** Blob.slice semantics (negative = from the end, clamped); the result keeps the name. */
  override slice(start = 0, end = this.size, _contentType?: string): FileRange {
    const at = (i: number) => (i < 0 ? Math.max(this.size + i, 0) : Math.min(i, this.size));
    const s = at(start);
    const e = Math.max(s, at(end));
    return new FileRange(this.#path, this.#start + s, this.#start + e, this.name, this.lastModified);
  }

  /** The bytes as a Node stream (what nodeFetch writes to the socket). */
  nodeStream(): Readable {
    if (this.size === 0) return Readable.from([]);
    return createReadStream(this.#path, { start: this.#start, end: this.#end - 1, highWaterMark: READ_HWM });
  }

  /**
   * Writes the bytes to `out` through two reused buffers (read one while the other is on its way to the
   * socket): no fresh buffer per read, so no external memory churning V8's GC. False if `out` was destroyed.
   */
  async writeTo(out: Writable): Promise<boolean> {
    const fh = await open(this.#path, 'r');
    const bufs = [takeSendBuffer(), takeSendBuffer()];
    const sent: (Promise<boolean> | null)[] = [null, null];
    let clean = false;
    try {
      let i = 0;
      for (let pos = this.#start; pos < this.#end; i ^= 1) {
        if (sent[i] && !(await sent[i])) return false;
        const { bytesRead } = await fh.read(bufs[i], 0, Math.min(bufs[i].length, this.#end - pos), pos);
        if (!bytesRead) throw new Error(`${this.name} is shorter than when it was opened`);
        pos += bytesRead;
        sent[i] = written(out, bufs[i].subarray(0, bytesRead));
      }
      clean = (await Promise.all(sent)).every((ok) => ok !== false);
      return clean;
    } finally {
      await fh.close();
      // A buffer is reused only once its write has completed; after a failure they are left to the GC.
      if (clean) bufs.forEach(giveBackSendBuffer);
    }
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return Readable.toWeb(this.nodeStream()) as unknown as ReadableStream<Uint8Array<ArrayBuffer>>;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const parts: Buffer[] = [];
    for await (const c of this.nodeStream()) parts.push(c as Buffer);
    const all = Buffer.concat(parts);
    return all.buffer.slice(all.byteOffset, all.byteOffset + all.length) as ArrayBuffer;
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }
}

/** Resolves true once `chunk` was handed to the kernel, false if `out` is destroyed first. */
function written(out: Writable, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    if (out.destroyed) return resolve(false);
    const onClose = () => resolve(false);
    out.once('close', onClose);
    out.write(chunk, (err) => {
      out.off('close', onClose);
      resolve(!err);
    });
  });
}

const SEND_BUFFER_BYTES = 512 * 1024;
const SEND_BUFFERS_KEPT = 8;
const sendBuffers: Buffer[] = [];
const takeSendBuffer = () => sendBuffers.pop() ?? Buffer.allocUnsafe(SEND_BUFFER_BYTES);
const giveBackSendBuffer = (b: Buffer) => {
  if (sendBuffers.length < SEND_BUFFERS_KEPT) sendBuffers.push(b);
};

/** The file at `filePath` as an UploadFile read straight from disk (name = its base name). */
export async function nodeFile(filePath: string, name = path.basename(filePath)): Promise<UploadFile> {
  const st = await stat(filePath);
  return new FileRange(filePath, 0, st.size, name, st.mtimeMs);
}

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** WHATWG multipart/form-data escaping of names. */
const escapeName = (s: string) => s.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
const normaliseNewlines = (s: string) => s.replace(/\r(?!\n)|(?<!\r)\n/g, '\r\n');

interface Body {
  length: number;
  parts: (Buffer | Blob)[];
}

function multipart(form: FormData, boundary: string): Body {
  const parts: (Buffer | Blob)[] = [];
  let length = 0;
  const text = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    parts.push(b);
    length += b.length;
  };
  form.forEach((value, name) => {
    if (typeof value === 'string') {
      text(`--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(normaliseNewlines(name))}"\r\n\r\n${normaliseNewlines(value)}\r\n`);
    } else {
      const file = value as File;
      text(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(normaliseNewlines(name))}"; filename="${escapeName(file.name)}"\r\n` +
          `Content-Type: ${file.type || 'application/octet-stream'}\r\n\r\n`,
      );
      parts.push(file);
      length += file.size;
      text('\r\n');
    }
  });
  text(`--${boundary}--\r\n`);
  return { length, parts };
}

async function writeBody(req: http.ClientRequest, body: Body) {
  for (const part of body.parts) {
    if (req.destroyed) return;
    if (Buffer.isBuffer(part)) {
      if (!req.write(part)) await drained(req);
      continue;
    }
    if (part instanceof FileRange) {
      if (!(await part.writeTo(req))) return;
      continue;
    }
    const src = Readable.fromWeb(part.stream() as unknown as NodeWebReadableStream<Uint8Array>);
    try {
      for await (const c of src) {
        if (req.destroyed) return;
        if (!req.write(c as Buffer)) await drained(req);
      }
    } finally {
      src.destroy();
    }
  }
  req.end();
}

const drained = (req: http.ClientRequest) =>
  new Promise<void>((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });

/** `fetch` over node:http(s) for the uploader's calls (see the module comment). */
export const nodeFetch: typeof fetch = async (input, init = {}) => {
  const rawBody = init.body;
  if (rawBody != null && typeof rawBody !== 'string' && !(rawBody instanceof FormData)) return fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const headers: Record<string, string | number> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  let body: Body | null = null;
  if (rawBody instanceof FormData) {
    const boundary = `----suanli${randomBytes(12).toString('hex')}`;
    body = multipart(rawBody, boundary);
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  } else if (typeof rawBody === 'string') {
    body = { length: 0, parts: [Buffer.from(rawBody, 'utf8')] };
    body.length = (body.parts[0] as Buffer).length;
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  }
  if (body) headers['content-length'] = body.length;
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

  return new Promise<Response>((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const agent = agents[url.protocol as keyof typeof agents];
    const req = lib.request(url, { method: init.method ?? 'GET', headers, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        const nullBody = status === 204 || status === 205 || status === 304;
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: h }));
      });
    });
    req.on('error', reject);
    if (body) writeBody(req, body).catch((err: unknown) => req.destroy(err as Error));
    else req.end();
  });
};
