// @vitest-environment node
// The uploader must run in Node as well as in the browser (the benchmark drives it from Node), so its tests
// run in plain Node against a fake file service on a real socket.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chunkCountOf, expectedChunkLength } from '@suanli/contracts';
import { configureTransport, RequestError } from '../http/transport';
import { uploadFile, uploadIdentifier, type UploadFile, type UploadOptions, type UploadProgress } from './uploader';
import { startFakeFileService, type FakeFileService } from './test/fake-file-service';

const CHUNK = 1000;
const TOKEN = 't0k3n';
let svc: FakeFileService;

beforeEach(async () => {
  svc = await startFakeFileService({ chunkSize: CHUNK, token: TOKEN });
});
afterEach(async () => {
  await svc.close();
});

function makeFile(size: number, name = 'data.bin', seed = 7): UploadFile {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return new File([bytes], name, { lastModified: 1_700_000_000_000 });
}
const sha = async (b: Blob) => createHash('sha256').update(new Uint8Array(await b.arrayBuffer())).digest('hex');
const bytesOf = async (b: Blob) => Buffer.from(await b.arrayBuffer());
const base = (extra: Partial<UploadOptions> & { file: UploadFile }): UploadOptions => ({
  baseUrl: svc.url,
  token: TOKEN,
  targetDir: '/inbox',
  smallUploadMax: 0,
  retryDelayMs: 5,
  ...extra,
});

describe('chunk arithmetic', () => {
  it('counts 1-based chunks with a short last one and one chunk for an empty file', () => {
    expect(chunkCountOf(9500, 1000)).toBe(10);
    expect(chunkCountOf(10_000, 1000)).toBe(10);
    expect(chunkCountOf(0, 1000)).toBe(1);
    expect(expectedChunkLength(10, { totalSize: 9500, totalChunks: 10, chunkSize: 1000 })).toBe(500);
    expect(expectedChunkLength(1, { totalSize: 9500, totalChunks: 10, chunkSize: 1000 })).toBe(1000);
  });

  it('derives the same identifier for the same file and destination, a different one elsewhere', async () => {
    const a = makeFile(10, 'a.txt');
    const again = makeFile(10, 'a.txt');
    expect(await uploadIdentifier(a, '/x')).toBe(await uploadIdentifier(again, '/x'));
    expect(await uploadIdentifier(a, '/x')).toMatch(/^[0-9a-f]{64}$/);
    expect(await uploadIdentifier(a, '/y')).not.toBe(await uploadIdentifier(a, '/x'));
    // A team's folder is another destination: the same folder name there stages apart from the home's.
    expect(await uploadIdentifier(a, '/x', 'team:t1')).not.toBe(await uploadIdentifier(a, '/x'));
    expect(await uploadIdentifier(a, '/x', 'team:t1')).not.toBe(await uploadIdentifier(a, '/x', 'team:t2'));
  });
});

describe('uploadFile into a team\'s folder', () => {
  it('sends x-file-space on every request (status, chunks, merge), and nothing for the home', async () => {
    const r = await uploadFile(base({ file: makeFile(2500), space: 'team:t1' }));
    expect(r.identifier).toBe(await uploadIdentifier(makeFile(2500), '/inbox', 'team:t1'));
    expect(svc.spaces.length).toBeGreaterThanOrEqual(5);
    expect(new Set(svc.spaces)).toEqual(new Set(['team:t1']));
    svc.spaces.length = 0;
    await uploadFile(base({ file: makeFile(10, 'small.txt'), smallUploadMax: 1000 }));
    expect(new Set(svc.spaces)).toEqual(new Set(['']));
  });
});

describe('uploadFile (chunked)', () => {
  it('sends every chunk with the fields before the file part, 3 in flight at most, then merges', async () => {
    svc.chunkDelayMs = 30;
    const file = makeFile(9500);
    const progress: UploadProgress[] = [];
    const result = await uploadFile(base({ file, onProgress: (p) => progress.push(p) }));

    expect(result.instant).toBe(false);
    expect(result.sentChunks.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(svc.files.get('/inbox/data.bin')).toEqual(await bytesOf(file));
    expect(svc.maxInFlight).toBe(3);
    for (const c of svc.chunkLog) {
      expect(c.fields).toEqual(['identifier', 'chunkNumber', 'totalChunks', 'chunkSize', 'totalSize', 'filename', 'path', 'file']);
    }
    const loaded = progress.map((p) => p.loaded);
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual({ loaded: 9500, total: 9500, percent: 100 });
  });

  it('resumes: only the chunks the server lacks are sent and progress starts at what it holds', async () => {
    const file = makeFile(9500);
    const id = await uploadIdentifier(file, '/inbox');
    const all = await bytesOf(file);
    svc.chunks.set(id, new Map([1, 2, 5, 10].map((n) => [n, all.subarray((n - 1) * CHUNK, n * CHUNK)])));
    const progress: UploadProgress[] = [];

    const result = await uploadFile(base({ file, onProgress: (p) => progress.push(p) }));

    expect(svc.chunkLog.map((c) => c.chunkNumber).sort((a, b) => a - b)).toEqual([3, 4, 6, 7, 8, 9]);
    expect(result.sentChunks.sort((a, b) => a - b)).toEqual([3, 4, 6, 7, 8, 9]);
    expect(progress[0].loaded).toBe(3 * CHUNK + 500);
    expect(svc.files.get('/inbox/data.bin')).toEqual(all);
  });

  it('continues a staged upload by its identifier (继续 in the panel), whatever the picked file derives', async () => {
    const file = makeFile(9500);
    const all = await bytesOf(file);
    // Staged under an identifier this file no longer derives (e.g. picked again with another modification time).
    const staged = 'staged-by-an-earlier-page-0001';
    expect(await uploadIdentifier(file, '/inbox')).not.toBe(staged);
    svc.chunks.set(staged, new Map([1, 2, 3].map((n) => [n, all.subarray((n - 1) * CHUNK, n * CHUNK)])));

    const result = await uploadFile(base({ file, identifier: staged }));

    expect(result.identifier).toBe(staged);
    expect(svc.chunkLog.every((c) => c.identifier === staged)).toBe(true);
    expect(result.sentChunks.sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(svc.files.get('/inbox/data.bin')).toEqual(all);
  });

  it('re-sends a chunk that failed in transit (idempotently) and still produces the right file', async () => {
    svc.failChunk = (n, attempt) => (n === 4 && attempt <= 2 ? 503 : undefined);
    const file = makeFile(5000);
    await uploadFile(base({ file }));
    expect(svc.chunkLog.filter((c) => c.chunkNumber === 4).map((c) => c.ok)).toEqual([false, false, true]);
    expect(svc.files.get('/inbox/data.bin')).toEqual(await bytesOf(file));
  });

  it('does not retry a business refusal and never merges after it', async () => {
    svc.failChunk = (n) => (n === 2 ? 1309 : undefined);
    const err = await uploadFile(base({ file: makeFile(5000) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect((err as RequestError).code).toBe(1309);
    expect(svc.chunkLog.filter((c) => c.chunkNumber === 2)).toHaveLength(1);
    expect(svc.mergeCalls).toHaveLength(0);
  });

  it('gives up after the configured retries', async () => {
    svc.failChunk = (n) => (n === 1 ? 502 : undefined);
    const err = await uploadFile(base({ file: makeFile(3000), retries: 2 })).catch((e: unknown) => e);
    expect((err as RequestError).status).toBe(502);
    expect(svc.chunkLog.filter((c) => c.chunkNumber === 1)).toHaveLength(3);
  });

  it('passes the content hash to merge, where the server verifies it', async () => {
    const file = makeFile(4200);
    const hash = await sha(file);
    await uploadFile(base({ file, hash: async () => hash }));
    expect(svc.mergeCalls).toEqual([{ hash }]);
  });

  it('short-circuits when the server answers skip: true (instant upload) and sends no chunk', async () => {
    const file = makeFile(4200);
    svc.files.set('/elsewhere/copy.bin', await bytesOf(file));
    const hash = await sha(file);
    const result = await uploadFile(base({ file, hash: async () => hash }));
    expect(result.instant).toBe(true);
    expect(result.entry?.path).toBe('/inbox/data.bin');
    expect(svc.chunkLog).toHaveLength(0);
    expect(svc.mergeCalls).toHaveLength(0);
  });

  it('switches to instant upload when the hash becomes known mid-upload', async () => {
    svc.chunkDelayMs = 40;
    const file = makeFile(20_000);
    svc.files.set('/elsewhere/copy.bin', await bytesOf(file));
    const hash = await sha(file);
    // The hash is known once the first chunk is stored (a chunk count, not a timer: under load a 60 ms timer
    // lost to the whole upload), and the other chunks are answered only after the server answered the
    // status query with that hash — the upload is mid-way whatever the machine's load.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let hashAnswered!: () => void;
    const answered = new Promise<void>((r) => (hashAnswered = r));
    svc.onStatusAnswered = (h) => h === hash && hashAnswered();
    svc.holdChunk = (n) => (n === 1 ? undefined : answered);
    const result = await uploadFile(
      base({ file, hash: async () => (await gate, hash), onProgress: (p) => p.loaded >= CHUNK && release() }),
    );
    expect(result.instant).toBe(true);
    expect(svc.chunkLog.length).toBeLessThan(20);
    expect(svc.mergeCalls).toHaveLength(0);
  });

  it('repairs chunks the server reports missing at merge', async () => {
    const file = makeFile(5000);
    let dropped = false;
    svc.beforeMerge = (id) => {
      if (!dropped) svc.chunks.get(id)?.delete(3);
      dropped = true;
    };
    await uploadFile(base({ file }));
    expect(svc.chunkLog.filter((c) => c.chunkNumber === 3)).toHaveLength(2);
    expect(svc.files.get('/inbox/data.bin')).toEqual(await bytesOf(file));
  });

  it('stops on abort: rejects with AbortError, starts no request after it and never merges', async () => {
    svc.chunkDelayMs = 50;
    const ctl = new AbortController();
    const file = makeFile(30_000);
    const startedAfterAbort: string[] = [];
    const spy: typeof fetch = (input, init) => {
      if (ctl.signal.aborted) startedAfterAbort.push(String(input));
      return fetch(input, init);
    };
    const p = uploadFile(base({ file, fetch: spy, signal: ctl.signal, onProgress: (pr) => pr.loaded >= 2 * CHUNK && ctl.abort() }));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 200));
    expect(startedAfterAbort).toEqual([]);
    expect(svc.chunkRequests).toBeLessThan(30);
    expect(svc.mergeCalls).toHaveLength(0);
  });

  it('refuses an already aborted signal without a request', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(uploadFile(base({ file: makeFile(10), signal: ctl.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(svc.statusCalls).toHaveLength(0);
  });

  it('surfaces a session refusal with its code and hands it to the session handler once', async () => {
    const onSessionInvalid = vi.fn();
    // Restores whatever was configured before: with one module cache per worker that can be the app's
    // session handler (app/request.ts), which a later file's expiry test relies on.
    const restore = configureTransport({ onSessionInvalid });
    try {
      const err = await uploadFile(base({ file: makeFile(10), token: 'nope' })).catch((e: unknown) => e);
      expect((err as RequestError).code).toBe(10133);
      expect(onSessionInvalid).toHaveBeenCalledTimes(1);
      expect(onSessionInvalid.mock.calls[0][1]).toBe(10133);
    } finally {
      restore();
    }
  });
});

describe('uploadFile (small files)', () => {
  it('uses the single-request upload', async () => {
    const file = makeFile(500, 'small.txt');
    const result = await uploadFile(base({ file, smallUploadMax: 1000 }));
    expect(result.entry?.path).toBe('/inbox/small.txt');
    expect(svc.smallUploads).toBe(1);
    expect(svc.statusCalls).toHaveLength(0);
  });

  it('asks for an instant upload first when the hash is available', async () => {
    const file = makeFile(500, 'small.txt');
    svc.files.set('/old/small.txt', await bytesOf(file));
    const result = await uploadFile(base({ file, smallUploadMax: 1000, hash: () => sha(file) }));
    expect(result.instant).toBe(true);
    expect(svc.smallUploads).toBe(0);
  });
});
