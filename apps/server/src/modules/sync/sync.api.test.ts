// Over 400 lines: one app per engine with one user's prepared folders (a 20 MiB file, a link) that every case copies from; a file per group would build them again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ErrorCode, MESSAGE_BASE, SYNC_BASE, type Page, type SyncGrant, type SyncJob } from '@suanli/contracts';
import { LeaseRepository } from '../../db/lease.repository';
import { AppError } from '../../errors';
import { SyncService } from '../../file-service/sync.service';
import { UploadService } from '../../file-service/upload.service';
import { grantHash } from './sync.service';
import { body, createPgDatabase, createTestApp, engines, type TestApp } from '../../../test/harness';
import { registerAndLogin } from '../../../test/users';

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Every regular file below `dir` with its sha256 (relative paths), and the folders. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[`${r}/`] = 'dir';
        visit(path.join(d, e.name), r);
      } else if (e.isFile()) out[r] = sha(path.join(d, e.name));
    }
  };
  visit(dir, '');
  return out;
}

/**
 * Cross-center sync through the API on both engines, with the embedded default's two centers served by the
 * gateway itself (the receiving side calls the source in-process; `sync.int.test.ts` runs two standalone
 * file services over HTTP and kills one): success with every file's sha256 equal, the copy appearing only
 * when complete, 1005/2350/1308/10133, failures with their reason, another user refused, cancel.
 */
describe.each(engines)('cross-center sync api (%s)', (engine) => {
  let t: TestApp;
  let a: { token: string; id: string; sz: string; gz: string };
  let b: { token: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now });
    const ra = await registerAndLogin(t.app);
    const rb = await registerAndLogin(t.app);
    const home = async (center: string) => path.join(t.dataDir, 'centers', center, 'home', (await t.app.ctx.clusterAccounts.ensure(ra.user.id, center)).account);
    a = { token: ra.token, id: ra.user.id, sz: await home('sz-a100'), gz: await home('gz-ascend') };
    b = { token: rb.token };
    // A folder as an upload or a job would have left it: nested folders, a file of several 8 MiB chunks,
    // small and empty files, and a link (never followed, never copied).
    const src = path.join(a.sz, 'data/imagenet');
    fs.mkdirSync(path.join(src, 'train/cls-1'), { recursive: true });
    fs.mkdirSync(path.join(src, 'empty-dir'), { recursive: true });
    // The same bytes as Buffer.from(Array.from({ length }, (_, i) => (i * 31) & 0xff)), without a 20-million
    // element array first (2 CPU-s per engine; 60 ms this way).
    const shard = Buffer.alloc(20 * 1024 * 1024 + 123);
    for (let i = 0; i < shard.length; i++) shard[i] = (i * 31) & 0xff;
    fs.writeFileSync(path.join(src, 'train/cls-1/shard-0.bin'), shard);
    fs.writeFileSync(path.join(src, 'README.md'), '# ImageNet 子集\n');
    fs.writeFileSync(path.join(src, 'train/labels.csv'), 'id,label\n1,猫\n');
    fs.writeFileSync(path.join(src, 'train/empty.txt'), '');
    fs.symlinkSync('/etc', path.join(src, 'etc-link'));
    fs.writeFileSync(path.join(a.sz, 'model.pt'), Buffer.alloc(3 * 1024 * 1024, 5));
    fs.mkdirSync(path.join(a.gz, 'inbox'), { recursive: true });
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: object, token: string | null = a.token) =>
    t.app.inject({ method, url: `${SYNC_BASE}${url}`, payload, headers: token ? { token } : {} }).then((r) => body(r));
  const create = (payload: object, token: string | null = a.token) => api('POST', '/syncs', payload, token);
  const finished = async (id: string) => {
    await t.app.syncs.runner.idle();
    return (await api('GET', `/syncs/${id}`)).data as SyncJob;
  };
  const staging = (home: string) => {
    const dir = path.join(t.dataDir, 'centers/gz-ascend/.uploads', path.basename(home));
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('sync-')) : [];
  };

  it('copies a folder to the other center: every file with the same sha256, links left out, the job SUCCEEDED with its counts', async () => {
    const res = await create({ sourceCenterId: 'sz-a100', sourcePath: '/data/imagenet', targetCenterId: 'gz-ascend', targetDir: '/inbox' });
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data).toMatchObject({ sourceCenterName: '深圳算力分中心', targetCenterName: '广州算力分中心', sourcePath: '/data/imagenet', targetDir: '/inbox', targetPath: '/inbox/imagenet' });
    expect(['QUEUED', 'RUNNING']).toContain((res.data as SyncJob).state);
    const job = await finished((res.data as SyncJob).id);
    expect(job).toMatchObject({ state: 'SUCCEEDED', filesTotal: 4, filesDone: 4, bytesTotal: 20 * 1024 * 1024 + 123 + Buffer.byteLength('# ImageNet 子集\n') + Buffer.byteLength('id,label\n1,猫\n'), message: '' });
    expect(job.bytesDone).toBe(job.bytesTotal);
    expect(job.finishTime).toBeGreaterThan(0);
    const source = tree(path.join(a.sz, 'data/imagenet'));
    delete source['etc-link'];
    expect(tree(path.join(a.gz, 'inbox/imagenet'))).toEqual(source);
    expect(fs.existsSync(path.join(a.gz, 'inbox/imagenet/etc-link'))).toBe(false);
    // Nothing of the transfer is left: no hidden folder beside the copy, no staged chunks, no record.
    expect(fs.readdirSync(path.join(a.gz, 'inbox'))).toEqual(['imagenet']);
    expect(staging(a.gz)).toEqual([]);
    // The owner is told, and the task panel lists it.
    const msgs = body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, payload: { pageNum: 1, pageSize: 10 }, headers: { token: a.token } })).data as Page<{ title: string; content: string }>;
    expect(msgs.list.some((m) => m.title === '跨中心同步已完成' && m.content.includes('/inbox/imagenet'))).toBe(true);
    const page = (await api('POST', '/syncs/action/page', { pageNum: 1, pageSize: 10 })).data as Page<SyncJob>;
    expect(page.list.map((j) => j.id)).toContain(job.id);
    expect(((await api('POST', '/syncs/action/page', { scope: 'active', pageNum: 1, pageSize: 10 })).data as Page<SyncJob>).total).toBe(0);
  });

  it('a merge cut off after placing its file and before its cleanup is not sent again (the shard CI4 saw re-sent)', async () => {
    fs.mkdirSync(path.join(a.sz, 'cut'), { recursive: true });
    fs.writeFileSync(path.join(a.sz, 'cut/big.bin'), Buffer.alloc(20 * 1024 * 1024 + 7, 9));
    fs.mkdirSync(path.join(a.gz, 'cutbox'), { recursive: true });
    const uploads = UploadService.prototype as unknown as { dropUpload: (...args: unknown[]) => Promise<void> };
    const drop = uploads.dropUpload;
    let cut = 0;
    // The receiver "dies" right after the merge's rename: its cleanup never runs and the attempt ends as a
    // lost connection would (retryable). The next attempt must count the placed file, not send it again.
    const dropSpy = vi.spyOn(uploads, 'dropUpload').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      const identifier = String(args[2]);
      if (!cut && identifier.startsWith('sync-') && new Error().stack?.includes('merge')) {
        cut++;
        throw new AppError(ErrorCode.INTERNAL_FAILED);
      }
      return drop.apply(this, args);
    });
    const sent = vi.spyOn(UploadService.prototype, 'uploadChunk');
    try {
      const res = await create({ sourceCenterId: 'sz-a100', sourcePath: '/cut', targetCenterId: 'gz-ascend', targetDir: '/cutbox' });
      expect(res.message.code, res.message.message).toBe(0);
      await expect.poll(async () => (await api('GET', `/syncs/${(res.data as SyncJob).id}`)).data.state, { timeout: 30_000, interval: 100 }).toBe('SUCCEEDED');
      const job = (await api('GET', `/syncs/${(res.data as SyncJob).id}`)).data as SyncJob;
      expect(cut).toBe(1);
      expect(job.retries).toBeGreaterThanOrEqual(1);
      // Three 8 MiB chunks, each sent once.
      expect(sent).toHaveBeenCalledTimes(3);
      expect(sha(path.join(a.gz, 'cutbox/cut/big.bin'))).toBe(sha(path.join(a.sz, 'cut/big.bin')));
      expect(staging(a.gz)).toEqual([]);
    } finally {
      dropSpy.mockRestore();
      sent.mockRestore();
    }
  });

  it('copies a single file into the target folder', async () => {
    const res = await create({ sourceCenterId: 'sz-a100', sourcePath: '/model.pt', targetCenterId: 'gz-ascend', targetDir: '/' });
    const job = await finished((res.data as SyncJob).id);
    expect(job).toMatchObject({ state: 'SUCCEEDED', targetPath: '/model.pt', filesTotal: 1, bytesDone: 3 * 1024 * 1024 });
    expect(sha(path.join(a.gz, 'model.pt'))).toBe(sha(path.join(a.sz, 'model.pt')));
  });

  it('fails with the reason when the copy would replace an existing entry, or the source is missing; nothing is left behind', async () => {
    const taken = await finished(((await create({ sourceCenterId: 'sz-a100', sourcePath: '/data/imagenet', targetCenterId: 'gz-ascend', targetDir: '/inbox' })).data as SyncJob).id);
    expect(taken.state).toBe('FAILED');
    expect(taken.message).toContain('目录已存在');
    const missing = await finished(((await create({ sourceCenterId: 'sz-a100', sourcePath: '/no/such', targetCenterId: 'gz-ascend', targetDir: '/' })).data as SyncJob).id);
    expect(missing.state).toBe('FAILED');
    expect(missing.message).toContain('不存在');
    const noDir = await finished(((await create({ sourceCenterId: 'sz-a100', sourcePath: '/model.pt', targetCenterId: 'gz-ascend', targetDir: '/no-such-dir' })).data as SyncJob).id);
    expect(noDir.state).toBe('FAILED');
    expect(noDir.message).toContain('目录不存在');
    expect(fs.readdirSync(path.join(a.gz, 'inbox'))).toEqual(['imagenet']);
    expect(staging(a.gz)).toEqual([]);
  });

  it('refuses bad input with the field named, the same center, paths outside the home and calls without a session', async () => {
    const ok = { sourceCenterId: 'sz-a100', sourcePath: '/data/imagenet', targetCenterId: 'gz-ascend', targetDir: '/' };
    const missingField = await create({ ...ok, targetDir: undefined });
    expect(missingField.message.code).toBe(1005);
    expect(missingField.message.message).toContain('targetDir');
    const unknown = await create({ ...ok, sourceCenterId: 'nowhere' });
    expect(unknown.message).toMatchObject({ code: 1005 });
    expect(unknown.message.message).toContain('sourceCenterId');
    expect((await create({ ...ok, targetCenterId: 'sz-a100' })).message.code).toBe(2350);
    const home = await create({ ...ok, sourcePath: '/' });
    expect(home.message.code).toBe(1005);
    expect(home.message.message).toContain('sourcePath');
    expect((await create({ ...ok, sourcePath: '/data/../../etc' })).message.code).toBe(1308);
    expect((await create({ ...ok, targetDir: '/a/../../..' })).message.code).toBe(1308);
    expect((await create(ok, null)).message.code).toBe(10133);
    expect((await api('POST', '/syncs/action/page', { pageNum: 1, pageSize: 10 }, null)).message.code).toBe(10133);
  });

  it("another user's job is not found (detail, cancel) and not listed; a file service refuses a made-up grant", async () => {
    const mine = ((await api('POST', '/syncs/action/page', { pageNum: 1, pageSize: 1 })).data as Page<SyncJob>).list[0];
    expect((await api('GET', `/syncs/${mine.id}`, undefined, b.token)).message.code).toBe(1205);
    expect((await api('POST', `/syncs/${mine.id}/cancel`, undefined, b.token)).message.code).toBe(1205);
    expect(((await api('POST', '/syncs/action/page', { pageNum: 1, pageSize: 10 }, b.token)).data as Page<SyncJob>).total).toBe(0);
    const grant = await t.app.inject({ method: 'GET', url: `${SYNC_BASE}/agent/grant`, query: { subCenterId: 'gz-ascend' }, headers: { 'sync-grant': 'x'.repeat(43) } });
    expect(body(grant).message.code).toBe(10133);
    const pull = await t.app.inject({ method: 'POST', url: '/file-service/gz-ascend/api/v1/sync/pull', headers: { 'sync-grant': 'x'.repeat(43) } });
    expect(body(pull).message.code).toBe(10133);
    const read = await t.app.inject({ method: 'GET', url: '/file-service/sz-a100/api/v1/sync/source/file', query: { path: '' }, headers: { token: a.token } });
    expect(body(read).message.code).toBe(10133);
    // A finished job's grant is gone: its hash was cleared.
    expect(await t.app.ctx.db.selectFrom('sync_jobs').select('grant_hash').where('id', '=', mine.id).executeTakeFirstOrThrow()).toEqual({ grant_hash: '' });
  });

  it('cancel stops a running copy and removes what the target staged; a finished job answers 2351', async () => {
    fs.writeFileSync(path.join(a.sz, 'big.bin'), Buffer.alloc(0));
    fs.truncateSync(path.join(a.sz, 'big.bin'), 768 * 1024 * 1024);
    const job = (await create({ sourceCenterId: 'sz-a100', sourcePath: '/big.bin', targetCenterId: 'gz-ascend', targetDir: '/inbox' })).data as SyncJob;
    // Once the receiver has listed the source (the total is known), the copy is under way.
    for (let i = 0; i < 200 && !((await api('GET', `/syncs/${job.id}`)).data as SyncJob).bytesTotal; i++) await new Promise((r) => setTimeout(r, 25));
    const res = await api('POST', `/syncs/${job.id}/cancel`);
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data).toMatchObject({ state: 'CANCELLED', message: '已取消' });
    expect(fs.readdirSync(path.join(a.gz, 'inbox'))).toEqual(['imagenet']);
    expect(staging(a.gz)).toEqual([]);
    expect((await api('POST', `/syncs/${job.id}/cancel`)).message.code).toBe(2351);
    fs.rmSync(path.join(a.sz, 'big.bin'));
  });
});

/**
 * A gateway that stops mid-sync leaves the job RUNNING; the next one (same database and storage) resumes it
 * with a fresh grant from what the receiver had staged, and it ends SUCCEEDED with the same bytes.
 */
describe.each(engines)('cross-center sync across a gateway restart (%s)', (engine) => {
  it('resumes the job the stopped gateway left running', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-sync-restart-'));
    const pg = engine === 'postgres' ? await createPgDatabase() : null;
    const shared = { dataDir, databaseUrl: pg?.url, clock: Date.now };
    try {
      const first = await createTestApp(engine, shared);
      const u = await registerAndLogin(first.app);
      const home = async (c: string) => path.join(dataDir, 'centers', c, 'home', (await first.app.ctx.clusterAccounts.ensure(u.user.id, c)).account);
      const sz = await home('sz-a100');
      const gz = await home('gz-ascend');
      fs.mkdirSync(path.join(sz, 'big'), { recursive: true });
      fs.mkdirSync(gz, { recursive: true });
      const block = Buffer.alloc(64 * 1024 * 1024);
      for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(sz, 'big', `part-${i}.bin`), block.fill(i + 1));
      const created = body<SyncJob>(await first.app.inject({ method: 'POST', url: `${SYNC_BASE}/syncs`, headers: { token: u.token }, payload: { sourceCenterId: 'sz-a100', sourcePath: '/big', targetCenterId: 'gz-ascend', targetDir: '/' } })).data;
      // Stopped as soon as the receiver has listed the source (the copy is under way).
      for (let i = 0; i < 400; i++) {
        const j = body<SyncJob>(await first.app.inject({ method: 'GET', url: `${SYNC_BASE}/syncs/${created.id}`, headers: { token: u.token } })).data;
        if (j.bytesTotal > 0 || j.state !== 'RUNNING') break;
        await new Promise((r) => setTimeout(r, 5));
      }
      await first.close();
      const second = await createTestApp(engine, shared);
      try {
        // Before it is ready (nothing resumed yet): the stopped gateway left the job running.
        expect(await second.app.ctx.db.selectFrom('sync_jobs').select('state').where('id', '=', created.id).executeTakeFirstOrThrow()).toEqual({ state: 'RUNNING' });
        await second.app.ready();
        await expect
          .poll(async () => body<SyncJob>(await second.app.inject({ method: 'GET', url: `${SYNC_BASE}/syncs/${created.id}`, headers: { token: u.token } })).data.state, { timeout: 60_000, interval: 100 })
          .toBe('SUCCEEDED');
        for (let i = 0; i < 4; i++) expect(sha(path.join(gz, 'big', `part-${i}.bin`))).toBe(sha(path.join(sz, 'big', `part-${i}.bin`)));
        expect(fs.readdirSync(gz)).toEqual(['big']);
      } finally {
        await second.close();
      }
    } finally {
      await pg?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // Its own waits allow 60 s (the resumed copy of 256–384 MiB, sha256 of both sides), so its timeout covers
    // them: on a loaded machine vitest's 30 s cut it off mid-copy, its body went on beside the next tests (the
    // replicas test's spies held their copies) and three tests failed (issue 26).
  }, 120_000);
});

/**
 * Two gateway replicas on one database and storage (ADR 0010 §9): a job runs on the replica holding its
 * lease only; a cancel sent to the other replica stops it on the holder, which removes what the receiver
 * staged; a replica that dies without handing its lease over is replaced once the lease runs out, and the
 * job resumes there to SUCCEEDED.
 */
describe.each(engines)('cross-center sync across gateway replicas (%s)', (engine) => {
  it('runs each job once, cancels it from either replica and takes it over from a dead one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-sync-replicas-'));
    const pg = engine === 'postgres' ? await createPgDatabase() : null;
    const shared = { dataDir, databaseUrl: pg?.url, clock: Date.now, sync: { leaseMs: 3000 } };
    const apps: TestApp[] = [];
    try {
      const one = await createTestApp(engine, shared);
      apps.push(one);
      const two = await createTestApp(engine, shared);
      apps.push(two);
      await Promise.all(apps.map((x) => x.app.ready()));
      const u = await registerAndLogin(one.app);
      const home = async (c: string) => path.join(dataDir, 'centers', c, 'home', (await one.app.ctx.clusterAccounts.ensure(u.user.id, c)).account);
      const sz = await home('sz-a100');
      const gz = await home('gz-ascend');
      fs.mkdirSync(path.join(sz, 'big'), { recursive: true });
      fs.mkdirSync(gz, { recursive: true });
      const block = Buffer.alloc(64 * 1024 * 1024);
      for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(sz, 'big', `part-${i}.bin`), block.fill(i + 1));
      const call = (x: TestApp, method: 'GET' | 'POST', url: string, payload?: object) =>
        x.app.inject({ method, url: `${SYNC_BASE}${url}`, headers: { token: u.token }, payload }).then((r) => body<SyncJob>(r));
      const holderOf = async (id: string) => (await two.app.ctx.db.selectFrom('leases').select('holder').where('name', '=', `sync:${id}`).executeTakeFirst())?.holder;
      const underWay = async (id: string) => {
        await expect.poll(async () => (await call(one, 'GET', `/syncs/${id}`)).data.bytesTotal, { timeout: 20_000, interval: 10 }).toBeGreaterThan(0);
      };

      // The source holds every read of the first copy until its holder has taken the cancel in (it sees a
      // cancel sent to another replica when it renews its lease, every leaseMs / 3), then fails them. Holding
      // only until the cancel was written was not enough: the holder could still copy the whole 384 MiB
      // before its next renewal and end the job SUCCEEDED (CI4, the whole file run).
      const aborted = (id: string) => (one.app.syncs.runner as unknown as { running: Map<string, { abort: AbortController }> }).running.get(id)?.abort.signal.aborted ?? true;
      const held = vi.spyOn(SyncService.prototype, 'open').mockImplementation(async (_user, g) => {
        while (!aborted(g.jobId)) await new Promise((r) => setTimeout(r, 20));
        throw new Error('held until the cancel');
      });
      // Created on the first replica: it holds the lease; the second one's sweep leaves the job alone.
      const first = (await call(one, 'POST', '/syncs', { sourceCenterId: 'sz-a100', sourcePath: '/big', targetCenterId: 'gz-ascend', targetDir: '/' })).data;
      await underWay(first.id);
      expect(await holderOf(first.id)).toBe(one.app.syncs.runner.holder);
      await two.app.syncs.runner.resumeAll();
      expect(await holderOf(first.id)).toBe(one.app.syncs.runner.holder);
      // Cancelled through the second replica: the holder stops the pull and the receiver's staging is removed.
      const cancelled = await call(two, 'POST', `/syncs/${first.id}/cancel`);
      expect(cancelled.message.code, cancelled.message.message).toBe(0);
      expect(cancelled.data).toMatchObject({ state: 'CANCELLED', message: '已取消' });
      held.mockRestore();
      await one.app.syncs.runner.idle();
      expect(fs.readdirSync(gz)).toEqual([]);
      expect(fs.readdirSync(path.join(dataDir, 'centers/gz-ascend/.uploads', path.basename(gz))).filter((n) => n.startsWith('sync-'))).toEqual([]);

      // The first replica dies mid-copy without handing the lease over: the second takes the job over once
      // the lease has run out and finishes it from what was staged.
      const second = (await call(one, 'POST', '/syncs', { sourceCenterId: 'sz-a100', sourcePath: '/big', targetCenterId: 'gz-ascend', targetDir: '/' })).data;
      await underWay(second.id);
      const release = vi.spyOn(LeaseRepository.prototype, 'release').mockResolvedValue();
      await one.close();
      apps.shift();
      release.mockRestore();
      expect(await holderOf(second.id)).toBe(one.app.syncs.runner.holder);
      await expect.poll(async () => (await call(two, 'GET', `/syncs/${second.id}`)).data.state, { timeout: 60_000, interval: 100 }).toBe('SUCCEEDED');
      for (let i = 0; i < 6; i++) expect(sha(path.join(gz, 'big', `part-${i}.bin`))).toBe(sha(path.join(sz, 'big', `part-${i}.bin`)));
      expect(fs.readdirSync(gz)).toEqual(['big']);
    } finally {
      // A failure before the spies were put back must not hold the next tests' copies (CI4: one failure here
      // left SyncService.open held and timed out the four tests after it).
      vi.restoreAllMocks();
      for (const x of apps) await x.close();
      await pg?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // Its own waits allow 60 s (the resumed copy of 256–384 MiB, sha256 of both sides), so its timeout covers
    // them: on a loaded machine vitest's 30 s cut it off mid-copy, its body went on beside the next tests (the
    // replicas test's spies held their copies) and three tests failed (issue 26).
  }, 120_000);
});

/**
 * A job that ends while its receiver cannot be reached (ADR 0010 §7): the hidden folder and staged chunks
 * stay there and the job records it; the runner's periodic sweep asks the receiver again with a growing
 * delay, under a removal-only grant, and once the receiver answers they are gone — the job itself (state,
 * message, times) stays exactly as it ended. The embedded receiver runs in this process, so "down" is its
 * discard refusing with the runner's "not reached" error (1403) for as long as the test says.
 */
describe.each(engines)('cross-center sync leftovers of a receiver that was down (%s)', (engine) => {
  it('keeps the hidden folder while the receiver is down and removes it once it answers, the job unchanged', async () => {
    // The test clock stands still: the sweep's delays are moved by hand.
    const t = await createTestApp(engine);
    try {
      const u = await registerAndLogin(t.app);
      const home = async (c: string) => path.join(t.dataDir, 'centers', c, 'home', (await t.app.ctx.clusterAccounts.ensure(u.user.id, c)).account);
      const sz = await home('sz-a100');
      const gz = await home('gz-ascend');
      fs.mkdirSync(sz, { recursive: true });
      fs.mkdirSync(path.join(gz, 'inbox'), { recursive: true });
      fs.writeFileSync(path.join(sz, 'big.bin'), Buffer.alloc(0));
      fs.truncateSync(path.join(sz, 'big.bin'), 768 * 1024 * 1024);
      const call = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url: `${SYNC_BASE}${url}`, headers: { token: u.token }, payload }).then((r) => body<SyncJob>(r));
      const inbox = () => fs.readdirSync(path.join(gz, 'inbox'));
      const staged = () => {
        const dir = path.join(t.dataDir, 'centers/gz-ascend/.uploads', path.basename(gz));
        return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('sync-')) : [];
      };
      const row = (id: string) => t.app.ctx.db.selectFrom('sync_jobs').select(['discard_after', 'grant_hash']).where('id', '=', id).executeTakeFirstOrThrow();
      const sweep = () => t.app.syncs.runner.discardLeftovers();

      const job = (await call('POST', '/syncs', { sourceCenterId: 'sz-a100', sourcePath: '/big.bin', targetCenterId: 'gz-ascend', targetDir: '/inbox' })).data;
      // Once the receiver has listed the source, its hidden folder is there and chunks are arriving.
      await expect.poll(async () => (await call('GET', `/syncs/${job.id}`)).data.bytesTotal, { timeout: 20_000, interval: 10 }).toBeGreaterThan(0);

      // The receiver goes down; the job is cancelled meanwhile.
      const roles: SyncGrant['role'][] = [];
      const down = vi.spyOn(SyncService.prototype, 'discard').mockImplementation(async (_user, g) => {
        roles.push(g.role);
        throw new AppError(ErrorCode.INTERNAL_FAILED, '无法连接目标分中心的文件服务（connect ECONNREFUSED）');
      });
      const cancelled = await call('POST', `/syncs/${job.id}/cancel`);
      expect(cancelled.data).toMatchObject({ state: 'CANCELLED', message: '已取消' });
      const ended = (await call('GET', `/syncs/${job.id}`)).data;
      expect(inbox()).toEqual([expect.stringMatching(/^\.suanli-upload-sync-/)]);
      expect(staged().length).toBeGreaterThan(0);
      const first = await row(job.id);
      expect(Number(first.discard_after)).toBe(t.clock.now + 15_000);

      // Not due yet: nobody is asked. Due, still down: asked with a removal-only grant, then later again.
      await sweep();
      expect(roles).toEqual(['target']);
      t.clock.advance(15_000);
      await sweep();
      expect(roles).toEqual(['target', 'discard']);
      expect(inbox()).toHaveLength(1);
      expect(Number((await row(job.id)).discard_after)).toBe(t.clock.now + 15_000);
      expect((await row(job.id)).grant_hash).toBe('');

      // While leftovers wait, an ended job's grant allows their removal on the receiver, and nothing else.
      const raw = 'k'.repeat(43);
      await t.app.ctx.db.updateTable('sync_jobs').set({ grant_hash: grantHash(raw) }).where('id', '=', job.id).execute();
      const grant = (center: string) => t.app.inject({ method: 'GET', url: `${SYNC_BASE}/agent/grant`, query: { subCenterId: center }, headers: { 'sync-grant': raw } }).then((r) => body<SyncGrant>(r));
      expect((await grant('gz-ascend')).data).toMatchObject({ jobId: job.id, role: 'discard', targetDir: '/inbox' });
      expect((await grant('sz-a100')).message.code).toBe(1020);
      const pull = await t.app.inject({ method: 'POST', url: '/file-service/gz-ascend/api/v1/sync/pull', headers: { 'sync-grant': raw } });
      expect(JSON.parse(pull.body.split('\n')[0])).toMatchObject({ type: 'error', code: 1020 });
      const read = await t.app.inject({ method: 'GET', url: '/file-service/sz-a100/api/v1/sync/source/file', query: { path: '' }, headers: { 'sync-grant': raw } });
      expect(body(read).message.code).toBe(1020);
      await t.app.ctx.db.updateTable('sync_jobs').set({ grant_hash: '' }).where('id', '=', job.id).execute();

      // The receiver is back: at the next due sweep the hidden folder and the staged chunks are gone.
      down.mockRestore();
      await sweep();
      expect(inbox()).toHaveLength(1);
      t.clock.advance(15_000);
      await sweep();
      expect(inbox()).toEqual([]);
      expect(staged()).toEqual([]);
      expect(await row(job.id)).toEqual({ discard_after: expect.anything(), grant_hash: '' });
      expect(Number((await row(job.id)).discard_after)).toBe(0);
      expect((await call('GET', `/syncs/${job.id}`)).data).toEqual(ended);
      // Nothing is left to do: later sweeps ask nobody.
      const again = vi.spyOn(SyncService.prototype, 'discard');
      t.clock.advance(60 * 60_000);
      await sweep();
      expect(again).not.toHaveBeenCalled();
      again.mockRestore();
    } finally {
      await t.close();
    }
  });
});
