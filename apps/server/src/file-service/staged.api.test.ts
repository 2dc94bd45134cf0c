/**
 * 中断的上传 (issue 22 item 3): a file service lists the caller's staged chunked uploads and discards one, for
 * the caller only. Real HTTP against the embedded file service on both engines (sessions live in the database).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../test/harness';
import { FileClient, partialMultipart, sha256 } from '../../test/file-client';

const ident = () => randomBytes(16).toString('hex');
const CS = 64 * 1024;

describe.each(engines)('interrupted uploads (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  let alice: FileClient;
  let bob: FileClient;
  let aliceStaging: string;

  const client = (token?: string, center = 'sz-a100') => new FileClient(`${origin}/file-service/${center}/api/v1`, token);
  const stagingOf = async (userId: string) => {
    const home = (await t.app.ctx.clusterAccounts.ensure(userId, 'sz-a100')).homeDir;
    return path.join(path.dirname(path.dirname(home)), '.uploads', path.basename(home));
  };
  const list = (c: FileClient) => c.json('GET', '/file/chunk/staged');
  const discard = (c: FileClient, identifier: string) => c.json('DELETE', '/file/chunk/staged', { identifier });

  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    alice = client((await t.app.ctx.sessions.create('u-alice')).token);
    bob = client((await t.app.ctx.sessions.create('u-bob')).token);
    aliceStaging = await stagingOf('u-alice');
  });
  afterAll(() => t.close());

  it('lists what arrived of an interrupted upload: name, folder, size, chunks and bytes, newest first', async () => {
    expect(await list(alice)).toMatchObject({ code: 0, data: [] });
    const before = t.clock.now;
    const first = ident();
    const bytes = randomBytes(3 * CS - 100);
    await alice.chunks(first, '/实验/数据', '语料 第1部分.bin', bytes, CS, [1, 3]);
    // The service's clock dates the start: the second upload starts a minute later.
    t.clock.advance(60_000);
    const second = ident();
    await alice.chunks(second, '/', 'b.bin', randomBytes(2 * CS), CS, [2]);

    const res = await list(alice);
    expect(res.code).toBe(0);
    expect(res.data.map((u: { identifier: string }) => u.identifier)).toEqual([second, first]);
    expect(res.data[1]).toEqual({
      identifier: first,
      filename: '语料 第1部分.bin',
      path: '/实验/数据',
      totalSize: bytes.length,
      chunkSize: CS,
      totalChunks: 3,
      uploadedChunks: 2,
      // chunk 1 is whole, chunk 3 the short tail
      uploadedBytes: CS + (CS - 100),
      startedAt: expect.any(Number),
    });
    expect(res.data[1].startedAt).toBe(before);
    expect(res.data[0].startedAt).toBe(before + 60_000);

    // Resuming from the list: the chunk status answers what is staged, the rest completes the file.
    const status = await alice.status({ identifier: first, path: '/实验/数据', filename: '语料 第1部分.bin', totalSize: bytes.length });
    expect(status.data.uploaded).toEqual([1, 3]);
    await alice.chunks(first, '/实验/数据', '语料 第1部分.bin', bytes, CS, [2]);
    expect((await alice.merge({ identifier: first, filename: '语料 第1部分.bin', path: '/实验/数据', totalChunks: 3, totalSize: bytes.length, hash: sha256(bytes) })).code).toBe(0);
    expect((await list(alice)).data.map((u: { identifier: string }) => u.identifier)).toEqual([second]);
    expect((await discard(alice, second)).code).toBe(0);
  });

  it('leaves out what is not a resumable upload of the caller: a sync’s staging, a merged upload, stray entries', async () => {
    const c = client((await t.app.ctx.sessions.create('u-carol')).token);
    const staging = await stagingOf('u-carol');
    const kept = ident();
    await c.chunks(kept, '/', 'kept.bin', randomBytes(2 * CS), CS, [1]);
    // A cross-center sync's file, staged by the platform (sync.service.ts names them sync-…).
    const sync = `sync-${ident()}`;
    await c.chunks(sync, '/', 'synced.bin', randomBytes(2 * CS), CS, [1]);
    // A merge stopped after renaming the data into place: no bytes left to resume.
    const merged = ident();
    await c.chunks(merged, '/', 'merged.bin', randomBytes(2 * CS), CS, [1]);
    fs.rmSync(path.join(staging, merged, 'data'));
    // Something else on disk.
    fs.mkdirSync(path.join(staging, 'no meta here'));
    fs.writeFileSync(path.join(staging, 'stray-file-1234'), 'x');

    const res = await list(c);
    expect(res.code).toBe(0);
    expect(res.data.map((u: { identifier: string }) => u.identifier)).toEqual([kept]);
  });

  it('lists an upload staged before names were recorded by its size and progress only', async () => {
    const c = client((await t.app.ctx.sessions.create('u-dave')).token);
    const staging = await stagingOf('u-dave');
    const id = ident();
    await c.chunks(id, '/old', 'old.bin', randomBytes(2 * CS), CS, [1]);
    // The meta.json an earlier version wrote: the shape only.
    fs.writeFileSync(path.join(staging, id, 'meta.json'), JSON.stringify({ totalSize: 2 * CS, totalChunks: 2, chunkSize: CS }));
    expect((await list(c)).data).toEqual([{ identifier: id, totalSize: 2 * CS, chunkSize: CS, totalChunks: 2, uploadedChunks: 1, uploadedBytes: CS }]);
    expect((await discard(c, id)).code).toBe(0);
    expect(fs.existsSync(path.join(staging, id))).toBe(false);
  });

  it('discards the staged chunks: gone from disk, from the list and from the quota', async () => {
    const c = client((await t.app.ctx.sessions.create('u-erin')).token, 'gz-ascend');
    // As long as an identifier may be (128): in the body, not the URL.
    const id = 'e'.repeat(128);
    await c.chunks(id, '/', 'e.bin', randomBytes(3 * 4096), 4096, [1, 2]);
    expect((await c.usage()).data.used).toBe(2 * 4096);
    const res = await discard(c, id);
    expect(res).toMatchObject({ code: 0, data: null });
    expect((await list(c)).data).toEqual([]);
    expect((await c.usage()).data.used).toBe(0);
    // Gone means gone: a second discard finds nothing (1301).
    expect((await discard(c, id)).code).toBe(1301);
  });

  it('is the caller’s own: another user neither sees nor discards it, and nothing of it changes', async () => {
    const id = ident();
    await alice.chunks(id, '/mine', 'secret.bin', randomBytes(2 * CS), CS, [1]);
    expect((await list(bob)).data).toEqual([]);
    const refused = await discard(bob, id);
    expect(refused.code).toBe(1301);
    expect(fs.readdirSync(path.join(aliceStaging, id)).sort()).toEqual(['1', 'data', 'meta.json']);
    expect((await list(alice)).data.map((u: { identifier: string }) => u.identifier)).toContain(id);
    // The same identifier staged by bob is bob's own: discarding it leaves alice's in place.
    await bob.chunks(id, '/his', 'other.bin', randomBytes(2 * CS), CS, [2]);
    expect((await discard(bob, id)).code).toBe(0);
    expect(fs.existsSync(path.join(aliceStaging, id))).toBe(true);
    expect((await discard(alice, id)).code).toBe(0);
  });

  it('validates the identifier (1005) and refuses a sync’s staging (1301): nothing outside the caller’s uploads is reachable', async () => {
    for (const bad of ['short', '..', 'a.b.c.d.e.f', 'a'.repeat(129), 'has space x', '../../u-bob']) {
      const res = await discard(alice, bad);
      expect(res.code, `${bad} ${JSON.stringify(res)}`).toBe(1005);
      expect(res.message, bad).toContain('identifier');
    }
    const sync = `sync-${ident()}`;
    await alice.chunks(sync, '/', 's.bin', randomBytes(2 * CS), CS, [1]);
    expect((await discard(alice, sync)).code).toBe(1301);
    expect(fs.existsSync(path.join(aliceStaging, sync))).toBe(true);
  });

  it('refuses to discard an upload while one of its chunks is streaming (1305), and discards it afterwards', async () => {
    const id = ident();
    const bytes = randomBytes(2 * CS);
    await alice.chunks(id, '/busy', 'b.bin', bytes, CS, [1]);
    const fields = { identifier: id, chunkNumber: '2', totalChunks: '2', chunkSize: String(CS), totalSize: String(bytes.length), filename: 'b.bin', path: '/busy' };
    const slow = partialMultipart(`${alice.api}/file/chunk/upload`, alice.token!, fields, fields.filename, bytes.subarray(CS), CS / 2);
    await slow.sent;
    const res = await discard(alice, id);
    expect(res.code).toBe(1305);
    expect(res.message).toContain('正在上传');
    slow.finish();
    expect((await slow.answer).code).toBe(0);
    expect((await discard(alice, id)).code).toBe(0);
    expect(fs.existsSync(path.join(aliceStaging, id))).toBe(false);
  });

  it('needs a valid session (10133 / 10307)', async () => {
    expect((await list(client())).code).toBe(10133);
    expect((await discard(client('forged'), ident())).code).toBe(10133);
    const s = await t.app.ctx.sessions.create('u-revoked');
    await t.app.ctx.sessions.revoke(s.sessionId, 'logout');
    expect((await list(client(s.token))).code).toBe(10307);
  });
});
