import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, TRAINING_BASE, type JobState } from '@suanli/contracts';
import { createPgDatabase, createTestApp, REDIS_URL, type TestApp } from '../../../test/harness';
import { startGateway, stopProcess } from '../../../test/process';
import { sleep } from '../../../test/metering';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { newId } from '../../lib/id';

const { clusters } = workerSlurmHarness();
const A = 'slurm-a';
const CARD = 'cpu-share';
const TASKS = 20;
const clusterA = () => clusters.find((c) => c.id === 'a')!;

/** State and ElapsedRaw of jobs as Slurm's accounting has them, by job id. */
function sacct(c: SlurmClusterInfo, jobIds: string[]): Map<string, { state: string; elapsed: number }> {
  const out = execFileSync('sacct', ['-X', '-n', '-P', '-M', c.cluster, '-j', jobIds.join(','), '-o', 'JobID,State,ElapsedRaw'], {
    env: { ...process.env, SLURM_CONF: c.slurmConf },
    encoding: 'utf8',
  });
  const jobs = new Map<string, { state: string; elapsed: number }>();
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const [id, state, elapsed] = line.split('|');
    jobs.set(id, { state: state.split(' ')[0], elapsed: Number(elapsed) });
  }
  return jobs;
}

/**
 * Acceptance 2 of issue 19 on the Slurm harness: a gateway process (PostgreSQL + Redis) is SIGKILLed while 20
 * Slurm jobs run; they end while it is down. After a restart every task's draws equal its billed cards × the
 * ElapsedRaw `sacct` reports — nothing lost, nothing doubled — while a second gateway (this test process, same
 * PostgreSQL and Redis channel, never polling) meters the same tasks at the same time throughout.
 *
 * Why 20 fit at once: the harness node has 2 CPUs and 2 fake cards; these jobs use a CPU-only card type on the
 * harness's `<partition>-share` partition (OverSubscribe=FORCE:25, scripts/slurm/up.sh) with 1 core and 51 MiB
 * each (1 GiB for the 20 of the node's 2000 MB), so all 20 start together and the file stays well under 90 s.
 * The memory is not smaller: the harness kills a job whose step holds more than that (OverMemoryKill), and the
 * batch step of a training job alone — its bash and srun — holds ~12 MiB.
 */
describe('metering across a gateway killed while Slurm jobs run (PostgreSQL + Redis)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-meter-fault-slurm-'));
  const channel = `suanli:test:${randomBytes(6).toString('hex')}`;
  const centersFile = writeSlurmCentersFile({ clusters, workDir: dir }, dir, (c) => ({
    cardTypes: [
      {
        id: CARD,
        name: 'CPU 共享型',
        vendor: 'Intel',
        memoryGB: 0,
        nodes: c.nodes.length,
        cardsPerNode: 2,
        cpusPerCard: 1,
        memoryGBPerCard: 0.05,
        partition: `${c.partitions[0]}-share`,
      },
    ],
  }));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let h: TestApp;
  let env: NodeJS.ProcessEnv;
  const userId = 'u-meter-fault-slurm';

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    // The second gateway: never made ready, so it never polls — it only meters, as a replica would.
    h = await createTestApp('postgres', {
      databaseUrl: pgDb.url,
      redisUrl: REDIS_URL,
      redisChannel: channel,
      dataDir: dir,
      centersFile,
      clock: Date.now,
      metering: { periodMs: 1000 },
    });
    const acc = await h.app.ctx.clusterAccounts.ensure(userId, A);
    const work = path.join(acc.homeDir, 'work');
    fs.mkdirSync(work, { recursive: true });
    fs.chownSync(work, acc.uid, acc.uid);
    env = {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: pgDb.url,
      REDIS_URL,
      REDIS_CHANNEL: channel,
      DATA_DIR: dir,
      CENTERS_FILE: centersFile,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      TASK_POLL_MS: '500',
      TASK_LEASE_MS: '3000',
      TASK_SUBMIT_RETRY_MS: '3000',
      METERING_PERIOD_MS: '1000',
      WELCOME_GRANT_CARD_HOURS: '0',
    };
  });
  afterAll(async () => {
    await h?.close();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('after a SIGKILL and a restart every task has drawn exactly its cards × sacct ElapsedRaw', async () => {
    const db = h.app.ctx.db;
    const { token } = await h.app.ctx.sessions.create(userId);
    const granted = 100 * 3600;
    const bucket = newId();
    const now = Date.now();
    await db
      .insertInto('comp_power_buckets')
      .values({ id: bucket, owner_id: userId, sub_center_id: A, card_type_id: CARD, granted, remaining: granted, expire_time: now + 86_400_000, source: 'order', create_time: now })
      .execute();
    const remaining = async () => Number((await db.selectFrom('comp_power_buckets').select('remaining').where('id', '=', bucket).executeTakeFirstOrThrow()).remaining);

    const g1 = await startGateway(env);
    const ids: string[] = [];
    try {
      for (let i = 0; i < TASKS; i++) {
        const res = await fetch(`http://127.0.0.1:${g1.port}${TRAINING_BASE}/tasks`, {
          method: 'POST',
          headers: { token, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `Slurm 故障计量 ${i}`,
            type: 'train',
            subCenterId: A,
            cardTypeId: CARD,
            cardNum: 1,
            nodeNum: 1,
            imageId: 'python-3.11-cpu',
            command: `sleep ${8 + (i % 4)}`,
            workDir: '/work',
            env: [],
            maxDurationMinutes: 5,
          }),
        }).then((r) => r.json());
        expect(res.message.code, res.message.message).toBe(0);
        ids.push(res.data.id);
      }
      const states = async () => (await db.selectFrom('tasks').select('state').where('id', 'in', ids).execute()).map((r) => r.state);
      // Every task started (on a loaded machine the first may already have ended while the last are submitted),
      // and the gateway dies while some still run.
      await expect.poll(async () => (await states()).every((s) => s === 'RUNNING' || s === 'SUCCEEDED'), { timeout: 45_000, interval: 250 }).toBe(true);
      // A few passes of the gateway's own (period 1 s) before it dies.
      await sleep(2000);
      expect((await states()).some((s) => s === 'RUNNING')).toBe(true);
      expect(await remaining()).toBeLessThan(granted);
    } finally {
      await stopProcess(g1.child, 'SIGKILL');
    }

    const jobIds = (await db.selectFrom('tasks').select('job_id').where('id', 'in', ids).execute()).map((r) => r.job_id!);
    expect(new Set(jobIds).size).toBe(TASKS);
    // Down while every job ends in Slurm; the other gateway keeps metering them as running (drawing too much).
    await expect
      .poll(
        async () => {
          await h.app.metering.pass(A);
          const acct = sacct(clusterA(), jobIds);
          return jobIds.every((j) => acct.get(j)?.state === 'COMPLETED');
        },
        { timeout: 40_000, interval: 700 },
      )
      .toBe(true);

    const g2 = await startGateway(env);
    try {
      const rows = async () => db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
      await expect.poll(async () => (await rows()).every((r) => isTerminal(r.state as JobState)), { timeout: 30_000, interval: 250 }).toBe(true);
      // Both gateways meter at once until every task is settled.
      await expect
        .poll(
          async () => {
            await h.app.metering.pass(A);
            const meters = await db.selectFrom('task_meters').select('settled').where('task_id', 'in', ids).execute();
            return meters.length === TASKS && meters.every((m) => Number(m.settled) === 1);
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBe(true);
      const acct = sacct(clusterA(), jobIds);
      let total = 0;
      for (const r of await rows()) {
        expect(r.state, r.name).toBe('SUCCEEDED');
        const job = acct.get(r.job_id!)!;
        expect(job.state).toBe('COMPLETED');
        expect(job.elapsed).toBeGreaterThanOrEqual(5);
        // Billed cards: max(cardNum, 1) × nodes = 1.
        const expected = 1 * job.elapsed;
        const meter = await db.selectFrom('task_meters').selectAll().where('task_id', '=', r.id).executeTakeFirstOrThrow();
        const records = await db.selectFrom('consume_records').select('card_seconds').where('task_id', '=', r.id).execute();
        expect([Number(meter.drawn), Number(meter.shortfall), records.reduce((s, x) => s + Number(x.card_seconds), 0)], r.name).toEqual([expected, 0, expected]);
        total += expected;
      }
      expect(await remaining()).toBe(granted - total);
    } finally {
      await stopProcess(g2.child);
    }
  }, 120_000);
});
