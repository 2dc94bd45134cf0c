import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type Task, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { body, createPgDatabase, createTestApp, REDIS_URL, type TestApp } from '../../../test/harness';
import { startGateway, stopProcess } from '../../../test/process';
import { writeSlurmCentersFile } from '../../../test/slurm-centers';
import type { SlurmClusterInfo } from '../../../test/slurm-harness';
import { connect, wsUrl } from '../../../test/ws-client';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import { trainingForm } from '../../../test/training-form';

/**
 * Training tasks on the two real Slurm clusters of the harness (sub-centers slurm-a: A100, slurm-b: 910B), through
 * the API of real gateways on PostgreSQL + Redis: the task flows (issue 9, criterion 1), the faults (3: the
 * gateway SIGKILLed while tasks end; a submit retried after slurmctld was frozen) and two replicas (4: one
 * poller per center, handover, a state change reaching the other replica's socket).
 */
const { clusters } = workerSlurmHarness();
const A = 'slurm-a';
const B = 'slurm-b';
const clusterOf = (center: string) => clusters.find((c) => `slurm-${c.id}` === center)!;

const slurmEnv = (c: SlurmClusterInfo) => ({ ...process.env, SLURM_CONF: c.slurmConf });
/** Jobs of a task as Slurm's accounting sees them (both live and ended ones), by the tag in the job name. */
function jobsOfTask(c: SlurmClusterInfo, taskId: string): string[] {
  const out = execFileSync('sacct', ['-X', '-n', '-P', '-a', '-M', c.cluster, '-S', 'now-2hours', '-o', 'JobID,JobName,User'], { env: slurmEnv(c), encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(taskId));
}
/** Whether slurmctld still holds the job in memory (MinJobAge after its end, it does not). */
function inController(c: SlurmClusterInfo, jobId: string): boolean {
  try {
    execFileSync('scontrol', ['show', 'job', jobId], { env: slurmEnv(c), stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
function slurmctldPid(c: SlurmClusterInfo): number {
  const conf = fs.readFileSync(c.slurmConf, 'utf8');
  const pidFile = /SlurmctldPidFile=(\S+)/.exec(conf)![1];
  return Number(fs.readFileSync(pidFile, 'utf8').trim());
}

describe('training tasks on real Slurm clusters', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-train-slurm-'));
  const channel = `suanli:test:${randomBytes(6).toString('hex')}`;
  const centersFile = writeSlurmCentersFile({ clusters, workDir: dir }, dir);
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let a: TestApp;
  let token: string;
  let userId: string;
  let gatewayEnv: NodeJS.ProcessEnv;

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    a.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const form = (over: Partial<TrainingTaskCreate> = {}) => trainingForm({ name: 'slurm 任务', subCenterId: A, maxDurationMinutes: 5, ...over });
  const create = async (over: Partial<TrainingTaskCreate> = {}) => {
    const res = await call('POST', '/tasks', form(over));
    expect(res.message.code, res.message.message).toBe(0);
    return res.data as Task;
  };
  const detail = async (id: string) => (await call('GET', `/tasks/${id}`)).data as TaskDetail;
  const until = (id: string, state: string, timeout = 45_000) =>
    expect.poll(async () => (await detail(id)).state, { timeout, interval: 250 }).toBe(state);
  const log = async (id: string) => (await call('GET', `/tasks/${id}/log`)).data.content as string;

  beforeAll(async () => {
    pgDb = await createPgDatabase();
    const compute = { pollIntervalMs: 500, leaseMs: 4000, submitRetryMs: 3000 };
    a = await createTestApp('postgres', {
      databaseUrl: pgDb.url,
      redisUrl: REDIS_URL,
      redisChannel: channel,
      dataDir: dir,
      centersFile,
      clock: Date.now,
      compute: { ...compute, holder: 'gateway-a' },
    });
    await a.app.listen({ host: '127.0.0.1', port: 0 });
    userId = 'u-slurm-train';
    token = (await a.app.ctx.sessions.create(userId)).token;
    // The user's work directory on both centers, owned by their cluster account (as the file service makes it).
    for (const center of [A, B]) {
      const acc = await a.app.ctx.clusterAccounts.ensure(userId, center);
      const work = path.join(acc.homeDir, 'work');
      fs.mkdirSync(work, { recursive: true });
      fs.chownSync(work, acc.uid, acc.uid);
    }
    gatewayEnv = {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: pgDb.url,
      REDIS_URL,
      REDIS_CHANNEL: channel,
      DATA_DIR: dir,
      CENTERS_FILE: centersFile,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      TASK_POLL_MS: String(compute.pollIntervalMs),
      TASK_LEASE_MS: String(compute.leaseMs),
      TASK_SUBMIT_RETRY_MS: String(compute.submitRetryMs),
      // The user submits through these gateways too (ADR 0015: no task without compute power).
      WELCOME_GRANT_CARD_HOURS: '10000',
    };
  });
  afterAll(async () => {
    await a?.close();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('train, distributed, failing, timed-out and stopped tasks reach their true states, as the cluster account', async () => {
    const [ok, dist, bad, slow] = await Promise.all([
      create({ name: '成功', command: 'echo "user=$(id -un) gpu=$CUDA_VISIBLE_DEVICES rank=$RANK/$WORLD_SIZE"; echo "{\\"step\\":1,\\"loss\\":0.5}" >> "$SUANLI_METRICS_FILE"' }),
      create({ name: '分布式', type: 'distributed', cardNum: 2, command: 'echo "rank=$RANK world=$WORLD_SIZE local=$LOCAL_RANK node=$NODE_RANK master=$MASTER_ADDR:$MASTER_PORT"' }),
      create({ name: '失败', subCenterId: B, cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'echo failing; exit 3' }),
      create({ name: '超时', subCenterId: B, cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'sleep 300', maxDurationMinutes: 1 }),
    ]);
    for (const t of [ok, dist, bad, slow]) expect(t.jobId).toMatch(/^\d+$/);

    await until(ok.id, 'SUCCEEDED');
    const okDetail = await detail(ok.id);
    expect(okDetail.exitCode).toBe(0);
    expect(okDetail.events.map((e) => e.state)).toEqual(expect.arrayContaining(['CREATED', 'SUBMITTING', 'QUEUED', 'SUCCEEDED']));
    const account = (await a.app.ctx.clusterAccounts.list(userId, A))[0].account;
    expect(await log(ok.id)).toContain(`user=${account} gpu=0 rank=0/1`);
    expect((await call('GET', `/tasks/${ok.id}/metrics`)).data.points).toEqual([{ step: 1, loss: 0.5 }]);
    // The job ran as the account in Slurm's own records too.
    expect(jobsOfTask(clusterOf(A), ok.id).every((l) => l.endsWith(`|${account}`))).toBe(true);

    await until(dist.id, 'SUCCEEDED');
    const distLog = await log(dist.id);
    expect(distLog).toMatch(/rank=0 world=2 local=0 node=0 master=\S+:\d+/);
    expect(distLog).toMatch(/rank=1 world=2 local=1 node=0/);

    await until(bad.id, 'FAILED');
    expect(await detail(bad.id)).toMatchObject({ exitCode: 3, reason: '退出码 3' });

    // Slurm enforces a 1-minute limit late (about 85 s here).
    await until(slow.id, 'FAILED', 150_000);
    expect((await detail(slow.id)).reason).toBe('超时');
  }, 200_000);

  it('a task that cannot fit now waits with a Chinese reason; 智能调度 goes where the cards are free; stop → 已停止', async () => {
    const hog = await create({ name: '占满', cardNum: 2, command: 'sleep 120' });
    await until(hog.id, 'RUNNING');
    const waiting = await create({ name: '排队', cardNum: 1, command: 'echo finally' });
    await until(waiting.id, 'QUEUED');
    await expect.poll(async () => (await detail(waiting.id)).reason, { timeout: 15_000 }).toBe('资源不足，等待空闲算力');

    // Cluster a's A100s are all busy; cluster b's cards are free — but only b offers 910B, and only a A100:
    // ask for A100 and the reason must say that no center has them free (the queue is the tie-breaker).
    const preview = (await call('POST', '/placement', { cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1 })).data;
    expect(preview.subCenterId).toBe(A);
    expect(preview.reason).toContain('排队最短');
    const npu = await create({ name: '自动', subCenterId: 'auto', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', workDir: '/work' });
    expect(npu.subCenterId).toBe(B);
    expect(npu.placementReason).toContain('测试集群乙现有 2 张空闲');
    await until(npu.id, 'SUCCEEDED');

    const stopped = await call('POST', `/tasks/${hog.id}/stop`);
    expect(stopped.message.code).toBe(0);
    await until(hog.id, 'STOPPED');
    expect((await detail(hog.id)).reason).toBe('用户停止');
    await until(waiting.id, 'SUCCEEDED');
  }, 120_000);

  it('after the gateway is SIGKILLed while tasks end and leave slurmctld, a restart settles them from accounting', async () => {
    // The only poller for a while: gateway A stops polling (it hands its centers over).
    await a.app.tasks.poller.stop();
    const g = await startGateway({ ...gatewayEnv, TASK_POLL_MS: '500' });
    const url = (p: string) => `http://127.0.0.1:${g.port}${TRAINING_BASE}${p}`;
    const post = (p: string, payload: object) =>
      fetch(url(p), { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(payload) }).then((r) => r.json());
    const quick = (await post('/tasks', form({ name: '重启前-成功', command: 'sleep 3; echo done' }))).data as Task;
    const failing = (await post('/tasks', form({ name: '重启前-失败', subCenterId: B, cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'sleep 3; exit 7' }))).data as Task;
    expect(quick.jobId).toBeTruthy();
    expect(failing.jobId).toBeTruthy();
    await stopProcess(g.child, 'SIGKILL');
    // Both jobs end while no gateway runs, then leave slurmctld's memory (MinJobAge=30 in the harness).
    await expect
      .poll(() => inController(clusterOf(A), quick.jobId!) || inController(clusterOf(B), failing.jobId!), { timeout: 150_000, interval: 2_000 })
      .toBe(false);
    const g2 = await startGateway(gatewayEnv);
    try {
      await until(quick.id, 'SUCCEEDED', 30_000);
      await until(failing.id, 'FAILED', 30_000);
      expect((await detail(failing.id)).exitCode).toBe(7);
      expect((await detail(failing.id)).reason).toBe('退出码 7');
    } finally {
      await stopProcess(g2.child);
      a.app.tasks.poller.start();
    }
  }, 240_000);

  it('a submit retried after slurmctld was frozen leaves exactly one Slurm job', async () => {
    const c = clusterOf(B);
    const pid = slurmctldPid(c);
    process.kill(pid, 'SIGSTOP');
    let task: Task;
    try {
      const res = await call('POST', '/tasks', form({ name: '冻结', subCenterId: B, cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'echo once' }));
      expect(res.message.code).toBe(0);
      task = res.data;
      expect(task.state).toBe('SUBMITTING');
      await new Promise((r) => setTimeout(r, 15_000));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until(task.id, 'SUCCEEDED', 60_000);
    await expect.poll(() => jobsOfTask(c, task.id).length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(jobsOfTask(c, task.id)).toHaveLength(1);
  }, 120_000);

  it('two gateways: one poller per center, handover within 10 s after the leader is SIGKILLed, events reach the other replica', async () => {
    const leases = async () => (await a.app.ctx.db.selectFrom('leases').selectAll().where('name', 'like', 'poller:%').execute()).map((r) => r.holder);
    // Gateway A hands its centers over; two gateway processes (g1 first, so it leads) share the database.
    await a.app.tasks.poller.stop();
    const g1 = await startGateway(gatewayEnv);
    let g2: { child: ChildProcess; port: number } | undefined;
    try {
      await expect.poll(async () => new Set(await leases()).size === 1 && !(await leases()).includes('gateway-a'), { timeout: 10_000 }).toBe(true);
      const [leader] = await leases();
      g2 = await startGateway(gatewayEnv);
      // Several lease periods later the first leader still polls both centers, alone.
      await new Promise((r) => setTimeout(r, 5_000));
      expect(await leases()).toEqual([leader, leader]);

      // A socket held by gateway A (which does not poll) gets the state changes g1's poller finds.
      const portA = (a.app.server.address() as { port: number }).port;
      const sock = await connect(wsUrl(portA, token));
      const t = await create({ name: '跨网关', command: 'sleep 2; echo ok' });
      const ev = await sock.next((m) => m.businessType === 'task.state.changed' && m.data.taskId === t.id && m.data.state === 'SUCCEEDED', 45_000);
      expect(ev.data).toMatchObject({ kind: 'training', state: 'SUCCEEDED', reason: '' });
      sock.ws.close();

      // The leader dies without handing over: g2 takes both centers within 10 s.
      const killedAt = Date.now();
      await stopProcess(g1.child, 'SIGKILL');
      await expect.poll(async () => (await leases()).every((h) => h !== leader), { timeout: 10_000, interval: 200 }).toBe(true);
      expect(Date.now() - killedAt).toBeLessThanOrEqual(10_000);
      const after = await leases();
      expect(new Set(after).size).toBe(1);
    } finally {
      await stopProcess(g1.child, 'SIGKILL');
      if (g2) await stopProcess(g2.child);
      a.app.tasks.poller.start();
    }
  }, 120_000);
});
