// The upload benchmark's Node transport (support/node-transport.ts, support/node-hash.ts) drives the
// console's own uploader; these tests check it sends what a browser sends, against the uploader's fake file
// service on a real socket.
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeFileService, type FakeFileService } from '../apps/console/src/shared/upload/test/fake-file-service';
import { uploadFile, type UploadFile, type UploadOptions } from '../apps/console/src/shared/upload/uploader';
import { hashFileNode } from './support/node-hash';
import { FileRange, nodeFetch, nodeFile } from './support/node-transport';

const CHUNK = 1000;
const TOKEN = 't0k3n';
let svc: FakeFileService;

beforeEach(async () => {
  svc = await startFakeFileService({ chunkSize: CHUNK, token: TOKEN });
});
afterEach(async () => {
  await svc.close();
});

const base = (extra: Partial<UploadOptions> & { file: UploadFile }): UploadOptions => ({
  baseUrl: svc.url,
  token: TOKEN,
  targetDir: '/inbox',
  smallUploadMax: 0,
  retryDelayMs: 5,
  ...extra,
});

describe('uploadFile from Node with a file-backed Blob (the benchmark path)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suanli-upload-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads fs.openAsBlob content with a node:crypto hash', async () => {
    const path = join(dir, 'big.bin');
    const bytes = Buffer.alloc(12_345, 3);
    await writeFile(path, bytes);
    const blob = Object.assign(await openAsBlob(path), { name: 'big.bin' });
    const result = await uploadFile(base({ file: blob, hash: (signal) => hashFileNode(path, signal) }));
    expect(result.sentChunks).toHaveLength(13);
    expect(svc.files.get('/inbox/big.bin')).toEqual(bytes);
    expect(svc.mergeCalls[0].hash).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  // The Node fast path (support/node-transport.ts): file ranges read from disk, fetch over node:http.
  it('uploads through nodeFile + nodeFetch with the same fields, bytes, retries and hash', async () => {
    const path = join(dir, '数据 "big".bin');
    const bytes = Buffer.alloc(12_345);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 17) & 0xff;
    await writeFile(path, bytes);
    svc.chunkDelayMs = 10;
    svc.failChunk = (n, attempt) => (n === 4 && attempt === 1 ? 503 : undefined);
    const file = await nodeFile(path);
    const result = await uploadFile(base({ file, fetch: nodeFetch, hash: (signal) => hashFileNode(path, signal) }));
    expect(result.sentChunks.sort((a, b) => a - b)).toHaveLength(13);
    expect(svc.files.get(`/inbox/${file.name}`)).toEqual(bytes);
    expect(svc.maxInFlight).toBe(3);
    for (const c of svc.chunkLog) {
      expect(c.fields).toEqual(['identifier', 'chunkNumber', 'totalChunks', 'chunkSize', 'totalSize', 'filename', 'path', 'file']);
    }
    expect(svc.chunkLog.filter((c) => !c.ok).map((c) => c.chunkNumber)).toEqual([4]);
    expect(svc.mergeCalls[0].hash).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('nodeFile slices behave like Blob slices (name kept, negative and clamped bounds, bytes from disk)', async () => {
    const path = join(dir, 'x.bin');
    await writeFile(path, Buffer.from('0123456789'));
    const file = await nodeFile(path);
    expect(file.size).toBe(10);
    const s = file.slice(2, 5);
    expect(s).toBeInstanceOf(FileRange);
    expect((s as File).name).toBe('x.bin');
    expect(await s.text()).toBe('234');
    expect(await file.slice(-3).text()).toBe('789');
    expect(await file.slice(8, 100).text()).toBe('89');
    expect((await file.slice(5, 2).arrayBuffer()).byteLength).toBe(0);
    expect(Buffer.from(await new Response(file.slice(1, 4).stream()).arrayBuffer()).toString()).toBe('123');
  });

  it('nodeFetch stops on abort like fetch (AbortError, no merge)', async () => {
    const path = join(dir, 'abort.bin');
    await writeFile(path, Buffer.alloc(30_000, 1));
    svc.chunkDelayMs = 50;
    const ctl = new AbortController();
    const p = uploadFile(base({ file: await nodeFile(path), fetch: nodeFetch, signal: ctl.signal, onProgress: (pr) => pr.loaded >= 2 * CHUNK && ctl.abort() }));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 200));
    expect(svc.chunkRequests).toBeLessThan(30);
    expect(svc.mergeCalls).toHaveLength(0);
  });
});
