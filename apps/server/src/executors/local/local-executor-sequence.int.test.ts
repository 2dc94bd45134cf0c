import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CenterConfig } from '../../centers/centers';
import { JobRefused, type JobRef, type JobSpec } from '../executor';
import { removeAfterJobs } from '../../../test/local-jobs';
import { LocalExecutor } from './local-executor';

// Real bash process groups on this host (local-executor.int.test.ts has the executor's own cases).
/**
 * The first version's cases (written with the task engine before this executor landed), kept as they were: one
 * executor through a sequence of jobs on a one-node center, as the engine drives it (`submit(spec, attempt)`).
 */
describe('local executor, one executor through the engine sequence', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-local-exec-'));
  const home = path.join(root, 'home');
  const stateDir = path.join(root, 'state');
  const center: CenterConfig = {
    id: 'c1',
    name: '测试中心',
    region: '',
    description: '',
    status: 'online',
    loginHost: '127.0.0.1',
    loginPort: 22,
    scheduler: { kind: 'local' },
    storageRoot: root,
    homePrefix: '/home',
    storageAccess: 'local',
    quotaBytes: 1e9,
    accounts: { prefix: 'u', uidStart: 1000, size: 10 },
    cardTypes: [{ id: 'gpu', name: 'GPU', vendor: 'NVIDIA', memoryGB: 80, nodes: 1, cardsPerNode: 2, cpusPerCard: 1, memoryGBPerCard: 1, partition: 'p' }],
  };
  const opts = { stateDir, minuteMs: 1000, killGraceMs: 500, pollMs: 100 };
  let ex: LocalExecutor;
  let n = 0;

  const spec = (script: string, over: Partial<JobSpec> = {}): JobSpec => {
    const taskId = `t${++n}`;
    return {
      taskId,
      name: taskId,
      account: { name: 'u0001', uid: process.getuid!(), home },
      workDir: home,
      script: `#!/bin/bash\n${script}\n`,
      launch: 'workers',
      env: { MY_VAR: '你好' },
      cardType: center.cardTypes[0],
      cardsPerNode: 1,
      nodes: 1,
      timeLimitMinutes: 60,
      outputPath: path.join(home, `${taskId}.log`),
      ...over,
    };
  };
  const ref = (s: JobSpec, jobId: string): JobRef => ({ jobId, taskId: s.taskId, account: s.account });
  const phase = async (s: JobSpec, jobId: string, e = ex) => (await e.states([ref(s, jobId)])).get(jobId);
  const until = (s: JobSpec, jobId: string, p: string, e = () => ex) =>
    expect.poll(async () => (await phase(s, jobId, e()))?.phase, { timeout: 15_000, interval: 100 }).toBe(p);
  const out = (s: JobSpec) => fs.readFileSync(s.outputPath, 'utf8');

  beforeAll(() => {
    fs.mkdirSync(home, { recursive: true });
    ex = new LocalExecutor(center, opts);
  });
  afterAll(async () => {
    await ex.close();
    await removeAfterJobs(root);
  });

  it('runs a job with its card, its variables and a clean environment; exit codes decide the end', async () => {
    process.env.SUANLI_SECRET_FOR_TEST = 'gateway-secret';
    const ok = spec('echo "gpu=$CUDA_VISIBLE_DEVICES rank=$RANK/$WORLD_SIZE var=$MY_VAR secret=${SUANLI_SECRET_FOR_TEST:-none}"');
    const bad = spec('echo failing >&2; exit 3');
    const a = await ex.submit(ok, 1);
    await until(ok, a.jobId, 'SUCCEEDED');
    expect(out(ok)).toContain('gpu=0 rank=0/1 var=你好 secret=none');
    const b = await ex.submit(bad, 1);
    await until(bad, b.jobId, 'FAILED');
    expect(await phase(bad, b.jobId)).toMatchObject({ reason: 'NonZeroExitCode', exitCode: 3 });
    expect(out(bad)).toContain('failing');
    delete process.env.SUANLI_SECRET_FOR_TEST;
  });

  it('queues when the cards are taken (Resources, then Priority behind it) and starts in order', async () => {
    const hog = spec('sleep 2', { cardsPerNode: 2 });
    const next = spec('echo next');
    const after = spec('echo after');
    const h = await ex.submit(hog, 1);
    await until(hog, h.jobId, 'RUNNING');
    const x = await ex.submit(next, 1);
    const y = await ex.submit(after, 1);
    expect(await phase(next, x.jobId)).toMatchObject({ phase: 'QUEUED', reason: 'Resources' });
    expect(await phase(after, y.jobId)).toMatchObject({ phase: 'QUEUED', reason: 'Priority' });
    expect((await ex.capacity())[0]).toMatchObject({ total: 2, allocated: 2, queued: 2, nodesIdle: 0 });
    await until(next, x.jobId, 'SUCCEEDED');
    await until(after, y.jobId, 'SUCCEEDED');
    expect((await ex.capacity())[0]).toMatchObject({ total: 2, allocated: 0, queued: 0, nodesIdle: 1 });
  });

  it('refuses what can never fit, and a retried submit returns the same job', async () => {
    await expect(ex.submit(spec('true', { cardsPerNode: 3 }), 1)).rejects.toBeInstanceOf(JobRefused);
    await expect(ex.submit(spec('true', { nodes: 2 }), 1)).rejects.toBeInstanceOf(JobRefused);
    const s = spec('sleep 1');
    const first = await ex.submit(s, 1);
    expect((await ex.submit(s, 2)).jobId).toBe(first.jobId);
    expect(await ex.find(s.taskId, s.account)).toBe(first.jobId);
    await until(s, first.jobId, 'SUCCEEDED');
  });

  it('enforces the time limit (FAILED TimeLimit) and cancels running and queued jobs (STOPPED)', async () => {
    const slow = spec('sleep 30', { timeLimitMinutes: 1, cardsPerNode: 2 });
    const waiting = spec('echo never');
    const s = await ex.submit(slow, 1);
    const w = await ex.submit(waiting, 1);
    await until(slow, s.jobId, 'RUNNING');
    await ex.cancel(ref(waiting, w.jobId));
    expect(await phase(waiting, w.jobId)).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled' });
    await until(slow, s.jobId, 'FAILED');
    expect((await phase(slow, s.jobId))?.reason).toBe('TimeLimit');
    expect(fs.existsSync(waiting.outputPath)).toBe(false);

    const running = spec('echo started; sleep 30');
    const r = await ex.submit(running, 1);
    await until(running, r.jobId, 'RUNNING');
    await ex.cancel(ref(running, r.jobId));
    await until(running, r.jobId, 'STOPPED');
  });

  it('distributed workers get ranks and share the master', async () => {
    const d = spec('echo "rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT gpu=$CUDA_VISIBLE_DEVICES"', { cardsPerNode: 2, tasksPerNode: 2 });
    const j = await ex.submit(d, 1);
    await until(d, j.jobId, 'SUCCEEDED');
    const lines = out(d).trim().split('\n').sort();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^rank=0 local=0 world=2 master=127\.0\.0\.1:\d+ gpu=0,1$/);
    expect(lines[1]).toMatch(/^rank=1 local=1 world=2 /);
  });

  it('survives a restart: a running job is re-attached, one that ended meanwhile settles with its exit code, a queued one still runs', async () => {
    const running = spec('sleep 1.5; echo done-running', { cardsPerNode: 2 });
    const endsWhileDown = spec('exit 5');
    const queued = spec('echo done-queued');
    const a = await ex.submit(running, 1);
    await until(running, a.jobId, 'RUNNING');
    const c = await ex.submit(queued, 1);
    await ex.close(); // the gateway stops; its jobs do not
    // A second, independent executor (another process in real life) ran a job that ended before we came back.
    const other = new LocalExecutor({ ...center, id: 'c1' }, { ...opts, stateDir: path.join(root, 'state2') });
    const b = await other.submit(endsWhileDown, 1);
    await other.close();
    await new Promise((r) => setTimeout(r, 2500));

    ex = new LocalExecutor(center, opts);
    await until(running, a.jobId, 'SUCCEEDED');
    expect(out(running)).toContain('done-running');
    await until(queued, c.jobId, 'SUCCEEDED');
    const again = new LocalExecutor(center, { ...opts, stateDir: path.join(root, 'state2') });
    expect(await phase(endsWhileDown, b.jobId, again)).toMatchObject({ phase: 'FAILED', exitCode: 5 });
    await again.close();
    // Ids keep counting after a restart.
    const s = spec('true');
    expect(Number((await ex.submit(s, 1)).jobId.split('-')[1])).toBeGreaterThan(Number(c.jobId.split('-')[1]));
  });
});
