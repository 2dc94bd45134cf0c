/**
 * A tiny in-memory file service on node:http speaking the chunk-upload part of the contract. It is the
 * network boundary of the uploader tests only — the real service is tested by its own suite.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeFileService {
  url: string;
  server: Server;
  chunkSize: number;
  /** identifier → chunk number → bytes */
  chunks: Map<string, Map<number, Buffer>>;
  /** `${path}/${filename}` → bytes */
  files: Map<string, Buffer>;
  /** Every chunk POST in arrival order (also the failed ones). */
  chunkLog: { identifier: string; chunkNumber: number; fields: string[]; ok: boolean }[];
  statusCalls: { hash?: string }[];
  mergeCalls: { hash?: string }[];
  smallUploads: number;
  /** Chunk requests counted on arrival, before their body is read. */
  chunkRequests: number;
  maxInFlight: number;
  /** Return a status/code to fail this chunk request, or undefined to accept it. */
  failChunk?: (n: number, attempt: number) => number | undefined;
  /** Runs before a merge is checked (tests drop chunks here). */
  beforeMerge?: (identifier: string) => void;
  /** Milliseconds a chunk request is held before it is answered. */
  chunkDelayMs: number;
  /** Awaited (after chunkDelayMs) before chunk `n` is stored and answered: a test holds chunks on an event. */
  holdChunk?: (n: number) => Promise<void> | undefined;
  /** Called once a status query has been answered, with the hash it asked about (if any). */
  onStatusAnswered?: (hash: string | undefined) => void;
  /** The `x-file-space` header of every request in arrival order ('' when absent). */
  spaces: string[];
  close(): Promise<void>;
}

const ok = (res: ServerResponse, data: unknown) => send(res, 200, 0, data);
function send(res: ServerResponse, status: number, code: number, data: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ message: { code, message: code === 0 ? '操作成功' : `error ${code}` }, data }));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Minimal multipart/form-data parser: field order is kept so tests can assert "fields before file". */
export function parseMultipart(body: Buffer, contentType: string): { name: string; value: Buffer; filename?: string }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) throw new Error('no boundary');
  const delim = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const out: { name: string; value: Buffer; filename?: string }[] = [];
  let pos = body.indexOf(delim);
  while (pos !== -1) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(delim, headerEnd);
    const headers = body.subarray(start + 2, headerEnd).toString();
    const value = body.subarray(headerEnd + 4, next - 2);
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    out.push({ name, value, filename });
    pos = next;
  }
  return out;
}

export async function startFakeFileService(opts: { chunkSize: number; token?: string }): Promise<FakeFileService> {
  const token = opts.token ?? 't0k3n';
  let inFlight = 0;
  const attempts = new Map<string, number>();
  const svc: FakeFileService = {
    url: '',
    server: null as unknown as Server,
    chunkSize: opts.chunkSize,
    chunks: new Map(),
    files: new Map(),
    chunkLog: [],
    statusCalls: [],
    mergeCalls: [],
    smallUploads: 0,
    chunkRequests: 0,
    maxInFlight: 0,
    chunkDelayMs: 0,
    spaces: [],
    close: () =>
      new Promise((r) => {
        svc.server.close(() => r());
        // Aborted uploads leave sockets behind; don't wait for their keep-alive timeout.
        svc.server.closeAllConnections();
      }),
  };
  const byHash = () => {
    const m = new Map<string, Buffer>();
    for (const b of svc.files.values()) m.set(createHash('sha256').update(b).digest('hex'), b);
    return m;
  };

  svc.server = createServer((req, res) => {
    // A client that aborts mid-body (the Node transport streams bodies) makes reading it fail: drop the request.
    handle(req, res).catch(() => res.destroy());
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    svc.spaces.push(String(req.headers['x-file-space'] ?? ''));
    if (req.headers.token !== token) return send(res, 200, 10133, null);
    const p = url.pathname.replace(/^\/api\/v1/, '');
    if (req.method === 'GET' && p === '/file/chunk/upload') {
      const q = Object.fromEntries(url.searchParams);
      svc.statusCalls.push({ hash: q.hash });
      const known = q.hash ? byHash().get(q.hash) : undefined;
      if (known) {
        svc.files.set(`${q.path}/${q.filename}`, known);
        ok(res, { uploaded: [], skip: true, chunkSize: svc.chunkSize, entry: { id: 'x', name: q.filename, path: `${q.path}/${q.filename}`, type: 'file', size: known.length, updateTime: Date.now() } });
      } else {
        const have = [...(svc.chunks.get(q.identifier)?.keys() ?? [])].sort((a, b) => a - b);
        ok(res, { uploaded: have, skip: false, chunkSize: svc.chunkSize });
      }
      svc.onStatusAnswered?.(q.hash);
      return;
    }
    if (req.method === 'POST' && p === '/file/chunk/upload') {
      inFlight++;
      svc.chunkRequests++;
      svc.maxInFlight = Math.max(svc.maxInFlight, inFlight);
      try {
        const parts = parseMultipart(await readBody(req), req.headers['content-type'] ?? '');
        const f = Object.fromEntries(parts.filter((x) => x.filename === undefined).map((x) => [x.name, x.value.toString()]));
        const n = Number(f.chunkNumber);
        const key = `${f.identifier}#${n}`;
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        if (svc.chunkDelayMs) await new Promise((r) => setTimeout(r, svc.chunkDelayMs));
        await svc.holdChunk?.(n);
        const fail = svc.failChunk?.(n, attempt);
        svc.chunkLog.push({ identifier: f.identifier, chunkNumber: n, fields: parts.map((x) => x.name), ok: !fail });
        if (fail) return fail >= 1000 ? send(res, 200, fail, null) : send(res, fail, 1403, null);
        const file = parts.find((x) => x.name === 'file')!;
        const set = svc.chunks.get(f.identifier) ?? new Map<number, Buffer>();
        svc.chunks.set(f.identifier, set);
        set.set(n, Buffer.from(file.value)); // idempotent: a re-send overwrites with the same bytes
        return ok(res, { uploaded: [...set.keys()].sort((a, b) => a - b) });
      } finally {
        inFlight--;
      }
    }
    if (req.method === 'POST' && p === '/file/chunk/merge') {
      const b = JSON.parse((await readBody(req)).toString());
      svc.mergeCalls.push({ hash: b.hash });
      svc.beforeMerge?.(b.identifier);
      const set = svc.chunks.get(b.identifier);
      const parts: Buffer[] = [];
      for (let n = 1; n <= b.totalChunks; n++) {
        const c = set?.get(n);
        if (!c) return send(res, 200, 1306, null);
        parts.push(c);
      }
      const all = Buffer.concat(parts);
      if (all.length !== b.totalSize) return send(res, 200, 1307, null);
      if (b.hash && createHash('sha256').update(all).digest('hex') !== b.hash) return send(res, 200, 1307, null);
      svc.chunks.delete(b.identifier);
      const path = `${b.path}/${b.filename}`;
      svc.files.set(path, all);
      return ok(res, { id: 'x', name: b.filename, path, type: 'file', size: all.length, updateTime: Date.now() });
    }
    if (req.method === 'POST' && p === '/file/upload') {
      svc.smallUploads++;
      const parts = parseMultipart(await readBody(req), req.headers['content-type'] ?? '');
      const dir = parts.find((x) => x.name === 'path')!.value.toString();
      const file = parts.find((x) => x.name === 'file')!;
      const path = `${dir}/${file.filename}`;
      svc.files.set(path, Buffer.from(file.value));
      return ok(res, { id: 'x', name: file.filename, path, type: 'file', size: file.value.length, updateTime: Date.now() });
    }
    send(res, 404, 1205, null);
  }
  await new Promise<void>((r) => svc.server.listen(0, '127.0.0.1', () => r()));
  svc.url = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`;
  return svc;
}
