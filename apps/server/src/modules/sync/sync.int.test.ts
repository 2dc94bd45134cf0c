import type { ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_BASE, type SyncJob } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { freePort, listeningPort, startProcess, stopProcess } from '../../../test/process';
import { registerAndLogin } from '../../../test/users';
import { serverEntryArgs } from '../../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../../..');
const MiB = 1024 * 1024;

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const piece of fs.createReadStream(file, { highWaterMark: 4 * MiB })) h.update(piece as Buffer);
  return h.digest('hex');
}

/** The demo centers file with each center's file service at its own loopback port (production shape). */
function centersWithFileServices(dir: string, ports: Record<string, number>): string {
  let yaml = fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8');
  for (const [id, port] of Object.entries(ports)) {
    yaml = yaml.replace(new RegExp(`(  - id: ${id}\\n)`), `$1    fileServiceUrl: http://127.0.0.1:${port}\n`);
  }
  const file = path.join(dir, 'centers.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

/**
 * Issue 11 criterion 4: a 1 GiB folder synced between the two demo centers' **standalone file services**
 * (separate OS processes, each knowing users and grants only through the gateway) survives a SIGKILL of the
 * receiving side mid-transfer — the gateway retries, the restarted receiver resumes from the chunks it had
 * staged (progress never goes back further than the chunks in flight) — and finishes with every file's
 * sha256 equal to the source's.
 */
describe('cross-center sync between two file-service processes', () => {
  let t: TestApp;
  let token: string;
  let ports: Record<'sz-a100' | 'gz-ascend', number>;
  const procs = new Map<string, ChildProcess>();
  let gatewayUrl: string;
  let src: string;
  let dst: string;
  let centersFile: string;

  beforeAll(async () => {
    ports = { 'sz-a100': await freePort(), 'gz-ascend': await freePort() };
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'suanli-sync-'));
    centersFile = centersWithFileServices(dir, ports);
    // A short lease: the runner's periodic sweep (every leaseMs) comes round within seconds.
    t = await createTestApp('sqlite', { centersFile, clock: Date.now, sync: { maxDelayMs: 1_000, leaseMs: 3_000 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    for (const c of ['sz-a100', 'gz-ascend'] as const) procs.set(c, await launch(c));
    const u = await registerAndLogin(t.app);
    token = u.token;
    const home = async (c: string) => path.join(t.dataDir, 'centers', c, 'home', (await t.app.ctx.clusterAccounts.ensure(u.user.id, c)).account);
    src = path.join(await home('sz-a100'), 'corpus');
    dst = await home('gz-ascend');
    // 1 GiB: four 255 MiB shards of random bytes and a few small files in folders.
    fs.mkdirSync(path.join(src, 'shards'), { recursive: true });
    fs.mkdirSync(path.join(src, 'meta/docs'), { recursive: true });
    fs.mkdirSync(dst, { recursive: true });
    const block = Buffer.alloc(17 * MiB);
    for (let i = 0; i < 4; i++) {
      const fd = fs.openSync(path.join(src, 'shards', `part-${i}.bin`), 'w');
      for (let j = 0; j < 15; j++) fs.writeSync(fd, randomFillSync(block));
      fs.closeSync(fd);
    }
    fs.writeFileSync(path.join(src, 'meta/index.json'), JSON.stringify({ shards: 4, 说明: '语料' }));
    fs.writeFileSync(path.join(src, 'meta/docs/README.md'), '# 语料\n');
    fs.writeFileSync(path.join(src, 'meta/empty'), '');
  }, 180_000);

  afterAll(async () => {
    for (const child of procs.values()) await stopProcess(child);
    await t?.close();
  });

  /** A standalone file service on its fixed port, ready once it answers. */
  async function launch(center: 'sz-a100' | 'gz-ascend'): Promise<ChildProcess> {
    const { child } = await startProcess(process.execPath, await serverEntryArgs('file-service/main.ts'), {
      cwd: repoRoot,
      env: { CENTER_ID: center, CENTERS_FILE: centersFile, DATA_DIR: t.dataDir, GATEWAY_URL: gatewayUrl, HOST: '127.0.0.1', PORT: String(ports[center]), LOG_LEVEL: 'info' },
      ready: listeningPort,
    });
    return child;
  }

  const job = async (id: string) => body<SyncJob>(await t.app.inject({ method: 'GET', url: `${SYNC_BASE}/syncs/${id}`, headers: { token } })).data;
  const until = async (id: string, ok: (j: SyncJob) => boolean, timeoutMs: number, seen?: (j: SyncJob) => void) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const j = await job(id);
      seen?.(j);
      if (ok(j)) return j;
      if (Date.now() > end) throw new Error(`sync job not there within ${timeoutMs} ms: ${JSON.stringify(j)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('survives a SIGKILL of the receiving file service and finishes with every sha256 equal', async () => {
    const res = body<SyncJob>(await t.app.inject({ method: 'POST', url: `${SYNC_BASE}/syncs`, headers: { token }, payload: { sourceCenterId: 'sz-a100', sourcePath: '/corpus', targetCenterId: 'gz-ascend', targetDir: '/' } }));
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id;

    // Kill the receiver once about a third has arrived.
    const before = await until(id, (j) => j.bytesTotal > 0 && j.bytesDone >= j.bytesTotal / 3, 120_000);
    expect(before.state).toBe('RUNNING');
    expect(before.bytesTotal).toBe(4 * 255 * MiB + Buffer.byteLength(JSON.stringify({ shards: 4, 说明: '语料' })) + Buffer.byteLength('# 语料\n'));
    await stopProcess(procs.get('gz-ascend')!, 'SIGKILL');
    const killedAt = (await job(id)).bytesDone;

    // The gateway notices and retries while the receiver is down.
    const retrying = await until(id, (j) => j.retries >= 1, 30_000);
    expect(retrying.state).toBe('RUNNING');
    expect(retrying.message).toContain('自动续传');
    expect(fs.existsSync(path.join(dst, 'corpus'))).toBe(false);

    procs.set('gz-ascend', await launch('gz-ascend'));
    // After the restart progress resumes from what was staged (see the bound below).
    let lowest = Infinity;
    const done = await until(id, (j) => j.state !== 'RUNNING', 300_000, (j) => {
      if (j.retries >= 1 && j.message !== retrying.message) lowest = Math.min(lowest, j.bytesDone);
    });
    expect(done, done.message).toMatchObject({ state: 'SUCCEEDED', filesDone: 7, filesTotal: 7 });
    expect(done.bytesDone).toBe(done.bytesTotal);
    // At most the chunks in flight (3 × 8 MiB) are sent again. (CI4 once saw a whole shard re-sent: a merge
    // killed after its rename and before its cleanup; fixed in the receiver's plan, sync.api.test.ts "cut off".)
    expect(lowest).toBeGreaterThanOrEqual(killedAt - 3 * 8 * MiB);

    for (const rel of ['shards/part-0.bin', 'shards/part-1.bin', 'shards/part-2.bin', 'shards/part-3.bin', 'meta/index.json', 'meta/docs/README.md', 'meta/empty']) {
      expect(await sha256File(path.join(dst, 'corpus', rel)), rel).toBe(await sha256File(path.join(src, rel)));
    }
    // Only the copy is left on the receiving side: no hidden folder, no staged chunks.
    expect(fs.readdirSync(dst)).toEqual(['corpus']);
    const staging = path.join(t.dataDir, 'centers/gz-ascend/.uploads', path.basename(dst));
    expect(fs.existsSync(staging) ? fs.readdirSync(staging).filter((n) => n.startsWith('sync-')) : []).toEqual([]);
  }, 420_000);

  it('a job cancelled while the receiver is down leaves its hidden folder there until the receiver is back, then the sweep removes it', async () => {
    fs.mkdirSync(path.join(dst, 'again'), { recursive: true });
    const res = body<SyncJob>(await t.app.inject({ method: 'POST', url: `${SYNC_BASE}/syncs`, headers: { token }, payload: { sourceCenterId: 'sz-a100', sourcePath: '/corpus', targetCenterId: 'gz-ascend', targetDir: '/again' } }));
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id;
    await until(id, (j) => j.bytesDone >= 64 * MiB, 120_000);
    const hidden = () => fs.readdirSync(path.join(dst, 'again'));
    const staging = path.join(t.dataDir, 'centers/gz-ascend/.uploads', path.basename(dst));
    const staged = () => (fs.existsSync(staging) ? fs.readdirSync(staging).filter((n) => n.startsWith('sync-')) : []);
    const leftovers = async () => Number((await t.app.ctx.db.selectFrom('sync_jobs').select('discard_after').where('id', '=', id).executeTakeFirstOrThrow()).discard_after);

    await stopProcess(procs.get('gz-ascend')!, 'SIGKILL');
    const cancelled = body<SyncJob>(await t.app.inject({ method: 'POST', url: `${SYNC_BASE}/syncs/${id}/cancel`, headers: { token } }));
    expect(cancelled.data).toMatchObject({ state: 'CANCELLED', message: '已取消' });
    const ended = await job(id);
    // The receiver could not be asked to discard: its hidden folder and chunks stay, the job says so.
    expect(hidden()).toEqual([expect.stringMatching(/^\.suanli-upload-sync-/)]);
    expect(staged().length).toBeGreaterThan(0);
    expect(await leftovers()).toBeGreaterThan(0);
    // Sweeps while it stays down change nothing.
    await new Promise((r) => setTimeout(r, 7_000));
    expect(hidden()).toHaveLength(1);
    expect(await leftovers()).toBeGreaterThan(0);

    procs.set('gz-ascend', await launch('gz-ascend'));
    // The job records the removal only once the receiver has removed everything (the hidden folder goes
    // first, then each staged file: CI saw the folder gone and one chunk file still there).
    await expect.poll(leftovers, { timeout: 60_000, interval: 200 }).toBe(0);
    expect(hidden()).toEqual([]);
    expect(staged()).toEqual([]);
    expect(await job(id)).toEqual(ended);
  }, 180_000);
});
