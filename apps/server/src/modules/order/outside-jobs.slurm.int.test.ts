import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, ORDER_BASE, TRAINING_BASE, type JobState, type OutsideJobPage, type Reconciliation } from '@suanli/contracts';
import { body, createPgDatabase, createTestApp, REDIS_URL, type TestApp } from '../../../test/harness';
import { startGateway, stopProcess } from '../../../test/process';
import { sleep } from '../../../test/metering';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import { installedLogin, ssh, sshSpawn } from '../../../test/ssh-login';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { newId } from '../../lib/id';
import { dayOf } from './metering-plan';

const { clusters } = workerSlurmHarness();
const A = 'slurm-a';
const GPU = 'a100-80g';
const CPU = 'cpu-share';
const clusterA = () => clusters.find((c) => c.id === 'a')!;

/** State, ElapsedRaw and AllocTRES of jobs as Slurm's accounting has them, by job id. */
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
 * Issue 25, acceptance 1 and 3 on the Slurm harness: a user with compute power runs `sbatch` and `srun`
 * over SSH on the cluster's login node with a key pair they generated and installed through the console, next to a task
 * submitted through the console. The outside jobs appear as 外部作业 within a poll and a period; the gateway
 * that meters them is SIGKILLed while they run and restarted after they ended, while a second gateway (this
 * process, same PostgreSQL) meters the same center throughout. Each outside job draws exactly its billed cards
 * × sacct's ElapsedRaw, once; the console task's job is metered as the task and never as an outside job; the
 * reconciliation of the run against accounting shows no difference.
 */
describe('jobs run outside the console are metered once from Slurm accounting (issue 25)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-outside-slurm-'));
  const channel = `suanli:test:${randomBytes(6).toString('hex')}`;
  const centersFile = writeSlurmCentersFile({ clusters, workDir: dir }, dir, (c) => ({
    cardTypes: [
      {
        id: GPU,
        name: 'NVIDIA A100 80G',
        vendor: 'NVIDIA',
        memoryGB: 80,
        nodes: c.nodes.length,
        cardsPerNode: c.gres[0].perNode,
        cpusPerCard: 1,
        // 51 MiB: above the ~12 MiB a training job's batch step (bash + srun) holds; the harness kills a job
        // whose step holds more than its memory (OverMemoryKill, scripts/slurm/up.sh).
        memoryGBPerCard: 0.05,
        partition: c.partitions[0],
        gres: `${c.gres[0].name}:${c.gres[0].type}`,
      },
      { id: CPU, name: 'CPU 共享型', vendor: 'Intel', memoryGB: 0, nodes: c.nodes.length, cardsPerNode: 2, cpusPerCard: 1, memoryGBPerCard: 0.05, partition: `${c.partitions[0]}-share` },
    ],
  }));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let h: TestApp;
  let env: NodeJS.ProcessEnv;
  const userId = 'u-outside-slurm';
  const operatorId = 'u-outside-slurm-op';
  let account = '';

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    h = await createTestApp('postgres', { databaseUrl: pgDb.url, redisUrl: REDIS_URL, redisChannel: channel, dataDir: dir, centersFile, clock: Date.now, metering: { periodMs: 1000 } });
    const acc = await h.app.ctx.clusterAccounts.ensure(userId, A);
    account = acc.account;
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

  it('sbatch and srun over SSH appear as 外部作业 and draw cards × ElapsedRaw once across a SIGKILL; reconciliation is zero', async () => {
    const c = clusterA();
    const db = h.app.ctx.db;
    const { token } = await h.app.ctx.sessions.create(userId);
    const granted = 100 * 3600;
    const now = Date.now();
    const buckets = { [GPU]: newId(), [CPU]: newId() };
    for (const [card, id] of Object.entries(buckets)) {
      await db
        .insertInto('comp_power_buckets')
        .values({ id, owner_id: userId, sub_center_id: A, card_type_id: card, granted, remaining: granted, expire_time: now + 86_400_000, source: 'order', create_time: now })
        .execute();
    }
    const remaining = async (id: string) => Number((await db.selectFrom('comp_power_buckets').select('remaining').where('id', '=', id).executeTakeFirstOrThrow()).remaining);
    const slurmEnv = { ...process.env, SLURM_CONF: c.slurmConf };
    // The user's own login: a key pair generated and installed through the console, then OpenSSH.
    const login = await installedLogin(h, token, A, c.sshPort, dir);
    expect(login.account).toBe(account);

    const g1 = await startGateway(env);
    let srun: ChildProcess | undefined;
    let taskId = '';
    let sbatchJob = '';
    try {
      // srun with one card first, straight as the cluster account: the harness node has 2 CPUs, and a job of the
      // card partition needs a core of its own, which the shared partition's jobs below would otherwise hold.
      srun = sshSpawn(login, `srun -J srun-direct -p ${c.partitions[0]} --gres=${c.gres[0].name}:${c.gres[0].type}:1 --mem=50M sleep 20`);
      await expect.poll(() => execFileSync('squeue', ['-h', '-u', account, '-n', 'srun-direct', '-o', '%T'], { env: slurmEnv, encoding: 'utf8' }).trim(), { timeout: 20_000, interval: 250 }).toBe('RUNNING');
      // A console task, on the CPU card type: its job is the task's, never an outside job.
      const res = await fetch(`http://127.0.0.1:${g1.port}${TRAINING_BASE}/tasks`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: '控制台任务',
          type: 'train',
          subCenterId: A,
          cardTypeId: CPU,
          cardNum: 1,
          nodeNum: 1,
          imageId: 'python-3.11-cpu',
          command: 'sleep 6',
          workDir: '/work',
          env: [],
          maxDurationMinutes: 5,
        }),
      }).then((r) => r.json());
      expect(res.message.code, res.message.message).toBe(0);
      taskId = res.data.id;
      // Outside: sbatch on the shared CPU partition.
      const sb = ssh(login, account, `sbatch --parsable -J 外部批处理 -p ${c.partitions[0]}-share -o /dev/null --mem=50M --wrap 'sleep 15'`);
      expect(sb.status, sb.err).toBe(0);
      sbatchJob = sb.out.split(';')[0];

      // Within a poll and a period (500 ms + 1 s here) of starting, each is listed as a running 外部作业 of the
      // user. (The harness node has 2 CPUs: the jobs may run one after another, so each is caught running on its
      // own; the poll's value is every state seen so far, so a failure says where it stuck.)
      const page = async () => body<OutsideJobPage>(await h.app.inject({ method: 'POST', url: `${ORDER_BASE}/outside-jobs/action/page`, headers: { token }, payload: { pageNum: 1, pageSize: 20 } })).data;
      const seen = new Set<string>();
      await expect
        .poll(
          async () => {
            for (const j of (await page()).list) seen.add(`${j.name}:${j.state}`);
            const missing = ['srun-direct:RUNNING', '外部批处理:RUNNING'].filter((x) => !seen.has(x));
            return missing.length ? `not yet ${missing.join(', ')}; seen ${[...seen].sort().join(', ')}` : 'both seen running';
          },
          { timeout: 50_000, interval: 250 },
        )
        .toBe('both seen running');
      const listed = (await page()).list;
      const srunRow = listed.find((j) => j.name === 'srun-direct')!;
      expect(listed.find((j) => j.jobId === sbatchJob)).toMatchObject({ name: '外部批处理', account, subCenterId: A, cardTypeId: CPU, cardNum: 0, nodeNum: 1, billedCards: 1 });
      expect(srunRow).toMatchObject({ account, cardTypeId: GPU, cardNum: 1, nodeNum: 1, billedCards: 1 });
      // The console task's job never shows up as an outside job.
      await expect.poll(async () => (await db.selectFrom('tasks').select('job_id').where('id', '=', taskId).executeTakeFirst())?.job_id ?? null, { timeout: 20_000 }).not.toBeNull();
      // A few passes of the gateway's own before it dies: both outside buckets drawn from.
      await expect.poll(async () => (await remaining(buckets[GPU])) < granted, { timeout: 10_000, interval: 250 }).toBe(true);
      await sleep(1000);
    } finally {
      await stopProcess(g1.child, 'SIGKILL');
    }
    const srunJob = (await db.selectFrom('outside_jobs').select('job_id').where('name', '=', 'srun-direct').executeTakeFirstOrThrow()).job_id;
    const taskJob = (await db.selectFrom('tasks').select('job_id').where('id', '=', taskId).executeTakeFirstOrThrow()).job_id!;
    const all = [sbatchJob, srunJob, taskJob];
    // Down while every job ends in Slurm; this process keeps metering the center as a second replica.
    await expect
      .poll(
        async () => {
          await h.app.metering.pass(A);
          const acct = sacct(c, all);
          return all.every((j) => acct.get(j)?.state === 'COMPLETED');
        },
        { timeout: 60_000, interval: 700 },
      )
      .toBe(true);
    await new Promise((r) => (srun!.exitCode === null ? srun!.once('exit', r) : r(null)));

    const g2 = await startGateway(env);
    const outsideIds = [`${A}:${sbatchJob}`, `${A}:${srunJob}`];
    try {
      await expect.poll(async () => isTerminal((await db.selectFrom('tasks').select('state').where('id', '=', taskId).executeTakeFirstOrThrow()).state as JobState), { timeout: 30_000, interval: 250 }).toBe(true);
      // Both gateways meter at once until the task and both outside jobs are settled.
      const keys = [taskId, ...outsideIds];
      await expect
        .poll(
          async () => {
            await h.app.metering.pass(A);
            const meters = await db.selectFrom('task_meters').select('settled').where('task_id', 'in', keys).execute();
            return meters.length === keys.length && meters.every((m) => Number(m.settled) === 1);
          },
          { timeout: 30_000, interval: 300 },
        )
        .toBe(true);
    } finally {
      await stopProcess(g2.child);
    }

    const acct = sacct(c, all);
    // The console task's job is metered as the task only.
    expect(await db.selectFrom('outside_jobs').select('id').where('job_id', '=', taskJob).execute()).toEqual([]);
    const drawnOf = async (key: string) => {
      const meter = await db.selectFrom('task_meters').selectAll().where('task_id', '=', key).executeTakeFirstOrThrow();
      const records = await db.selectFrom('consume_records').select(['card_seconds', 'task_kind']).where('task_id', '=', key).execute();
      return { drawn: Number(meter.drawn), shortfall: Number(meter.shortfall), records: records.reduce((s, r) => s + Number(r.card_seconds), 0), kinds: [...new Set(records.map((r) => r.task_kind))] };
    };
    // Billed cards are 1 for each (1 card; CPU-only on one node).
    expect(acct.get(sbatchJob)!.elapsed).toBeGreaterThanOrEqual(15);
    expect(await drawnOf(`${A}:${sbatchJob}`)).toEqual({ drawn: acct.get(sbatchJob)!.elapsed, shortfall: 0, records: acct.get(sbatchJob)!.elapsed, kinds: ['outside'] });
    expect(await drawnOf(`${A}:${srunJob}`)).toEqual({ drawn: acct.get(srunJob)!.elapsed, shortfall: 0, records: acct.get(srunJob)!.elapsed, kinds: ['outside'] });
    expect(await drawnOf(taskId)).toEqual({ drawn: acct.get(taskJob)!.elapsed, shortfall: 0, records: acct.get(taskJob)!.elapsed, kinds: ['training'] });
    expect(await remaining(buckets[GPU])).toBe(granted - acct.get(srunJob)!.elapsed);
    expect(await remaining(buckets[CPU])).toBe(granted - acct.get(sbatchJob)!.elapsed - acct.get(taskJob)!.elapsed);
    // The 外部作业 rows read as ended, with their cost.
    const { list } = body<OutsideJobPage>(await h.app.inject({ method: 'POST', url: `${ORDER_BASE}/outside-jobs/action/page`, headers: { token }, payload: { pageNum: 1, pageSize: 20 } })).data;
    expect(list.map((j) => [j.jobId, j.state, j.slurmState, j.consumedSeconds]).sort()).toEqual(
      [
        [sbatchJob, 'SUCCEEDED', 'COMPLETED', acct.get(sbatchJob)!.elapsed],
        [srunJob, 'SUCCEEDED', 'COMPLETED', acct.get(srunJob)!.elapsed],
      ].sort(),
    );

    // Acceptance 3: the reconciliation of the run (console and outside jobs, the kill and the restart) is zero.
    await h.app.ctx.access.grant(operatorId, 'operator');
    const op = await h.app.ctx.sessions.create(operatorId);
    const day = dayOf(Date.now());
    const rec = body<Reconciliation>(
      await h.app.inject({ method: 'POST', url: `${ORDER_BASE}/metering/action/reconcile`, headers: { token: op.token }, payload: { subCenterId: A, fromDay: dayOf(Date.now() - 86_400_000), toDay: day } }),
    );
    expect(rec.message.code, rec.message.message).toBe(0);
    expect(rec.data.differences).toEqual([]);
    expect(rec.data.unavailable).toEqual([]);
    expect(rec.data.reconciled).toEqual(['测试集群甲']);
    const total = all.reduce((s, j) => s + acct.get(j)!.elapsed, 0);
    expect(rec.data.days.reduce((s, d) => s + d.accountedSeconds, 0)).toBe(total);
    expect(rec.data.days.every((d) => d.differenceSeconds === 0 && d.drawnSeconds === d.accountedSeconds)).toBe(true);
    // The owner may not read it.
    expect(body(await h.app.inject({ method: 'POST', url: `${ORDER_BASE}/metering/action/reconcile`, headers: { token }, payload: { fromDay: day, toDay: day } })).message.code).not.toBe(0);
  }, 150_000);
});
