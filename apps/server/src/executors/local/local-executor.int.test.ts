import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CenterCardType, CenterConfig } from '../../centers/centers';
import { createExecutor } from '../create-executor';
import { JobRefused, type JobRef, type JobSpec, type JobStatus } from '../executor';
import { liveMembers, removeAfterJobs, waitFile } from '../../../test/local-jobs';
import { LocalExecutor, type LocalExecutorOptions } from './local-executor';

// Real bash process groups on this host; only the minute and the kill grace are shortened.
const FAST: Omit<LocalExecutorOptions, 'stateDir'> = { pollMs: 50, killGraceMs: 600, minuteMs: 1000 };

const gpu: CenterCardType = {
  id: 'a100',
  name: 'NVIDIA A100',
  vendor: 'NVIDIA',
  memoryGB: 80,
  nodes: 2,
  cardsPerNode: 2,
  cpusPerCard: 8,
  memoryGBPerCard: 64,
  partition: 'gpu',
};
const npu: CenterCardType = { ...gpu, id: '910b', name: '昇腾 910B', vendor: 'Huawei', nodes: 1, cardsPerNode: 2, partition: 'npu' };

let root: string;
let work: string;
const open: LocalExecutor[] = [];

function center(over: Partial<CenterConfig> = {}): CenterConfig {
  return {
    id: 'local-test',
    name: '测试分中心',
    region: '',
    description: '',
    status: 'online',
    loginHost: '127.0.0.1',
    loginPort: 22,
    scheduler: { kind: 'local' },
    storageRoot: root,
    homePrefix: '/home',
    storageAccess: 'local',
    quotaBytes: 1 << 30,
    accounts: { prefix: 'u', uidStart: 20000, size: 10 },
    cardTypes: [gpu, npu],
    ...over,
  };
}

function executor(stateDir: string, c = center(), opts: Omit<LocalExecutorOptions, 'stateDir'> = FAST) {
  const e = new LocalExecutor(c, { ...opts, stateDir });
  open.push(e);
  return e;
}

function spec(script: string, over: Partial<JobSpec> = {}): JobSpec {
  const taskId = randomUUID();
  return {
    taskId,
    name: 'test',
    account: { name: 'u1', uid: 20001, home: work },
    workDir: work,
    script: `#!/bin/bash\n${script}\n`,
    launch: 'batch',
    env: {},
    cardType: gpu,
    cardsPerNode: 1,
    nodes: 1,
    timeLimitMinutes: 10,
    outputPath: path.join(work, `${taskId}.log`),
    ...over,
  };
}

const ref = (s: JobSpec, jobId: string): JobRef => ({ jobId, taskId: s.taskId, account: s.account });

async function status(e: LocalExecutor, s: JobSpec, jobId: string): Promise<JobStatus | undefined> {
  return (await e.states([ref(s, jobId)])).get(jobId);
}

/** Polls the job until `done` holds (or fails the test with the last status seen). */
async function until(e: LocalExecutor, s: JobSpec, jobId: string, done: (st: JobStatus) => boolean, ms = 15_000): Promise<JobStatus> {
  const end = Date.now() + ms;
  let last: JobStatus | undefined;
  while (Date.now() < end) {
    last = await status(e, s, jobId);
    if (last && done(last)) return last;
    await sleep(40);
  }
  throw new Error(`job ${jobId} did not get there in ${ms} ms; last status ${JSON.stringify(last)}`);
}

const ended = (st: JobStatus) => ['SUCCEEDED', 'FAILED', 'STOPPED'].includes(st.phase);
const output = (s: JobSpec) => fs.readFileSync(s.outputPath, 'utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-local-'));
  work = path.join(root, 'home', 'u1', 'work');
  fs.mkdirSync(work, { recursive: true });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

afterAll(() => removeAfterJobs(root));

let n = 0;
const stateDir = () => path.join(root, `state-${++n}`);

describe('local executor', () => {
  it('runs a batch job in its work dir with its cards, environment and output file', async () => {
    const e = executor(stateDir());
    const one = spec('echo "one dev=$CUDA_VISIBLE_DEVICES node=$SUANLI_NODE foo=$FOO task=$SUANLI_TASK_ID"; pwd; echo oops >&2', {
      env: { FOO: "it's \"quoted\" $HOME", SUANLI_TASK_ID: 'from-env' },
    });
    const { jobId } = await e.submit(one);
    expect(jobId).toMatch(/^local-\d+$/);
    const st = await until(e, one, jobId, ended);
    expect(st).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0, nodes: ['a100-1'] });
    expect(st.endTime! >= st.startTime!).toBe(true);
    expect(output(one)).toBe(`one dev=0 node=a100-1 foo=it's "quoted" $HOME task=from-env\n${work}\noops\n`);

    const two = spec('echo "two dev=$CUDA_VISIBLE_DEVICES"', { cardsPerNode: 2 });
    const j2 = (await e.submit(two)).jobId;
    expect(Number(j2.slice(6))).toBe(Number(jobId.slice(6)) + 1);
    expect(await until(e, two, j2, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    expect(output(two)).toBe('two dev=0,1\n');

    // Huawei cards are shown through ASCEND_RT_VISIBLE_DEVICES, and no CUDA variable is set.
    const ascend = spec('echo "npu=$ASCEND_RT_VISIBLE_DEVICES cuda=${CUDA_VISIBLE_DEVICES-unset}"', { cardType: npu, cardsPerNode: 2 });
    const j3 = (await e.submit(ascend)).jobId;
    expect(await until(e, ascend, j3, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    expect(output(ascend)).toBe('npu=0,1 cuda=unset\n');
  });

  it('a failing script ends FAILED with its exit code', async () => {
    const e = executor(stateDir());
    // The background sleep outlives the script: it ends with the job (like Slurm ending a job's step).
    const s = spec('sleep 30 & echo before; exit 3');
    const { jobId } = await e.submit(s);
    expect(await until(e, s, jobId, ended)).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3 });
    expect(output(s)).toBe('before\n');
    const pgid = Number(fs.readFileSync(path.join(root, `state-${n}`, 'jobs', jobId, 'pid'), 'utf8'));
    await expect.poll(() => liveMembers(pgid), { timeout: 3000 }).toEqual([]);
  });

  it('ends a job over its time limit: SIGTERM, then SIGKILL after the grace period', async () => {
    const e = executor(stateDir());
    // Ignores SIGTERM (prints it), so only the SIGKILL after the grace period ends it.
    const s = spec("trap 'echo got-term' TERM; echo started; while true; do sleep 0.1; done", { timeLimitMinutes: 1 });
    const { jobId } = await e.submit(s);
    const st = await until(e, s, jobId, ended);
    expect(st).toMatchObject({ phase: 'FAILED', reason: 'TimeLimit', exitCode: 137 });
    expect(st.endTime! - st.startTime!).toBeGreaterThanOrEqual(1000 + 600 - 100);
    expect(output(s)).toContain('started\n');
    expect(output(s)).toContain('got-term\n');
  });

  it('cancel stops a running job and its whole process group', async () => {
    const e = executor(stateDir());
    const s = spec('sleep 30 & sleep 30; echo not-reached');
    const { jobId } = await e.submit(s);
    await until(e, s, jobId, (st) => st.phase === 'RUNNING');
    const pidFile = path.join(root, `state-${n}`, 'jobs', jobId, 'pid');
    await waitFile(pidFile);
    const pgid = Number(fs.readFileSync(pidFile, 'utf8'));
    await e.cancel(ref(s, jobId));
    const st = await until(e, s, jobId, ended);
    expect(st).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled', exitCode: 143 });
    await expect.poll(() => liveMembers(pgid), { timeout: 3000 }).toEqual([]); // no member of the group is left
    expect(output(s)).not.toContain('not-reached');
    await e.cancel(ref(s, jobId)); // idempotent
    expect(await status(e, s, jobId)).toMatchObject({ phase: 'STOPPED' });
  });

  it('queues FIFO when the cards are taken (Resources, then Priority) and starts the queue when they free up', async () => {
    const e = executor(stateDir());
    expect(await e.capacity()).toEqual([
      { cardTypeId: 'a100', total: 4, allocated: 0, queued: 0, nodesTotal: 2, nodesIdle: 2 },
      { cardTypeId: '910b', total: 2, allocated: 0, queued: 0, nodesTotal: 1, nodesIdle: 1 },
    ]);
    const go = path.join(work, `go-${randomUUID()}`);
    const hold = spec(`while [ ! -e ${go} ]; do sleep 0.05; done; echo held`, { cardType: npu, cardsPerNode: 2 });
    const h = (await e.submit(hold)).jobId;
    expect(await status(e, hold, h)).toMatchObject({ phase: 'RUNNING', nodes: ['910b-1'] });
    const b = spec('echo "b dev=$ASCEND_RT_VISIBLE_DEVICES"', { cardType: npu });
    const c = spec('echo "c dev=$ASCEND_RT_VISIBLE_DEVICES"', { cardType: npu });
    const cancelled = spec('echo never', { cardType: npu });
    const jb = (await e.submit(b)).jobId;
    const jc = (await e.submit(c)).jobId;
    const jx = (await e.submit(cancelled)).jobId;
    expect(await status(e, b, jb)).toMatchObject({ phase: 'QUEUED', reason: 'Resources' });
    expect(await status(e, c, jc)).toMatchObject({ phase: 'QUEUED', reason: 'Priority' });
    expect((await e.capacity())[1]).toEqual({ cardTypeId: '910b', total: 2, allocated: 2, queued: 3, nodesTotal: 1, nodesIdle: 0 });
    // A job of another card type is not held up by this queue.
    const other = spec('sleep 0.5');
    expect(await status(e, other, (await e.submit(other)).jobId)).toMatchObject({ phase: 'RUNNING' });

    await e.cancel(ref(cancelled, jx));
    expect(await status(e, cancelled, jx)).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled' });
    expect((await e.capacity())[1].queued).toBe(2);

    fs.writeFileSync(go, '');
    expect(await until(e, hold, h, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    const sb = await until(e, b, jb, ended);
    const sc = await until(e, c, jc, ended);
    expect([sb.phase, sc.phase]).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(sb.startTime!).toBeGreaterThanOrEqual((await status(e, hold, h))!.endTime! - 50);
    expect(output(b)).toBe('b dev=0\n');
    expect(output(c)).toBe('c dev=1\n');
    expect(fs.existsSync(cancelled.outputPath)).toBe(false);
    expect((await e.capacity())[1]).toEqual({ cardTypeId: '910b', total: 2, allocated: 0, queued: 0, nodesTotal: 1, nodesIdle: 1 });
  });

  it('refuses a request no node or the inventory can hold', async () => {
    const e = executor(stateDir());
    await expect(e.submit(spec('true', { cardsPerNode: 3 }))).rejects.toThrow(new JobRefused('Requested node configuration is not available'));
    await expect(e.submit(spec('true', { nodes: 3 }))).rejects.toThrow(JobRefused);
    await expect(e.submit(spec('true', { cardType: { ...gpu, id: 'nope' } }))).rejects.toThrow(JobRefused);
    await expect(e.submit(spec('true', { env: { 'BAD NAME': 'x' } }))).rejects.toThrow(JobRefused);
    expect((await e.capacity()).map((c) => c.queued + c.allocated)).toEqual([0, 0]);
  });

  it('submit is idempotent by task id: one job, one process', async () => {
    const e = executor(stateDir());
    const s = spec('echo once');
    const [a, b] = await Promise.all([e.submit(s), e.submit(s)]);
    expect(b.jobId).toBe(a.jobId);
    expect(await e.find(s.taskId, s.account)).toBe(a.jobId);
    expect(await e.find(randomUUID(), s.account)).toBeUndefined();
    await until(e, s, a.jobId, ended);
    expect((await e.submit(s)).jobId).toBe(a.jobId);
    await sleep(200);
    expect(output(s)).toBe('once\n');
    // A ref with another task id is not this job's owner: absent, never guessed.
    expect((await e.states([{ ...ref(s, a.jobId), taskId: 'other' }])).size).toBe(0);
    expect((await e.states([{ ...ref(s, 'local-999'), taskId: s.taskId }])).size).toBe(0);
  });

  it('workers launch: one process per worker with ranks, world size and one master port', async () => {
    const e = executor(stateDir());
    const line = 'echo "rank=$RANK world=$WORLD_SIZE node=$NODE_RANK local=$LOCAL_RANK host=$SUANLI_NODE addr=$MASTER_ADDR port=$MASTER_PORT dev=$CUDA_VISIBLE_DEVICES"';
    const s = spec(line, { launch: 'workers', cardsPerNode: 2, tasksPerNode: 2 });
    const { jobId } = await e.submit(s);
    expect(await until(e, s, jobId, ended)).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0 });
    const lines = output(s).trim().split('\n').sort();
    const port = /port=(\d+)/.exec(lines[0])![1];
    expect(Number(port)).toBeGreaterThan(0);
    expect(lines).toEqual([
      `rank=0 world=2 node=0 local=0 host=a100-1 addr=127.0.0.1 port=${port} dev=0,1`,
      `rank=1 world=2 node=0 local=1 host=a100-1 addr=127.0.0.1 port=${port} dev=0,1`,
    ]);

    // Two nodes × one worker; the first failing worker ends the job with its code and stops the others.
    // Rank 1 fails once rank 0 has printed (so both lines are there); rank 0 would sleep for 30 s.
    const mark = path.join(work, `rank0-${randomUUID()}`);
    const multi = spec(`${line}; if [ "$RANK" = 0 ]; then touch ${mark}; sleep 30; fi; while [ ! -e ${mark} ]; do sleep 0.02; done; exit 5`, {
      launch: 'workers',
      nodes: 2,
      cardsPerNode: 1,
    });
    const jm = (await e.submit(multi)).jobId;
    const st = await until(e, multi, jm, ended);
    expect(st).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 5, nodes: ['a100-1', 'a100-2'] });
    expect(st.endTime! - st.startTime!).toBeLessThan(10_000);
    const ml = output(multi).trim().split('\n').sort();
    expect(ml.map((l) => l.replace(/ port=\d+/, ''))).toEqual([
      'rank=0 world=2 node=0 local=0 host=a100-1 addr=127.0.0.1 dev=0',
      'rank=1 world=2 node=1 local=0 host=a100-2 addr=127.0.0.1 dev=0',
    ]);
  });

  it('a workers job stops on cancel (SIGTERM reaches every worker)', async () => {
    const e = executor(stateDir());
    const s = spec('echo "up $RANK"; sleep 30', { launch: 'workers', cardsPerNode: 2, tasksPerNode: 2 });
    const { jobId } = await e.submit(s);
    const deadline = Date.now() + 10_000;
    while (!(fs.existsSync(s.outputPath) && output(s).split('\n').length > 2) && Date.now() < deadline) await sleep(40);
    await e.cancel(ref(s, jobId));
    const st = await until(e, s, jobId, ended);
    expect(st).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled', exitCode: 143 });
    expect(st.endTime! - st.startTime!).toBeLessThan(5_000); // well before the 30 s sleeps
  });

  it('a stopped workers job reports the signal, never exit 0 (workers that exit 0 on TERM, a cancel during start-up)', async () => {
    const e = executor(stateDir());
    // Workers that catch TERM and exit 0: the job was still stopped by a signal, as Slurm's 0:15 says.
    const graceful = spec('trap "exit 0" TERM; echo "up $RANK"; sleep 30 & wait', { launch: 'workers', cardsPerNode: 2, tasksPerNode: 2 });
    const g = await e.submit(graceful);
    const deadline = Date.now() + 10_000;
    while (!(fs.existsSync(graceful.outputPath) && output(graceful).split('\n').length > 2) && Date.now() < deadline) await sleep(40);
    await e.cancel(ref(graceful, g.jobId));
    expect(await until(e, graceful, g.jobId, ended)).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled', exitCode: 143 });
    // Cancels at every moment of the start-up: before the supervisor, before the trap, while workers start.
    for (const delay of [0, 5, 20, 60]) {
      const s = spec('echo "up $RANK"; sleep 30', { launch: 'workers', cardsPerNode: 2, tasksPerNode: 2 });
      const { jobId } = await e.submit(s);
      await sleep(delay);
      await e.cancel(ref(s, jobId));
      const st = await until(e, s, jobId, ended);
      expect(st.phase).toBe('STOPPED');
      expect(st.exitCode === null || st.exitCode === 143).toBe(true);
    }
  });

  it('runs the command under the center image launcher with the image uri', async () => {
    const e = executor(stateDir(), center({ imageLauncher: 'env SUANLI_LAUNCHED_WITH={uri}' }));
    const s = spec('echo "image=$SUANLI_LAUNCHED_WITH recorded=$SUANLI_IMAGE"', { image: { id: 'pt', uri: "docker://pytorch:2.3 'x'" } });
    const { jobId } = await e.submit(s);
    expect(await until(e, s, jobId, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    expect(output(s)).toBe(`image=docker://pytorch:2.3 'x' recorded=docker://pytorch:2.3 'x'\n`);
  });

  it('a new executor over the same state dir re-attaches: running jobs finish, queued jobs stay queued, ids go on', async () => {
    const dir = stateDir();
    const a = executor(dir);
    const go = path.join(work, `go-${randomUUID()}`);
    const run = spec(`while [ ! -e ${go} ]; do sleep 0.05; done; echo finished`, { cardType: npu, cardsPerNode: 2 });
    const queued = spec('echo "queued ran dev=$ASCEND_RT_VISIBLE_DEVICES"', { cardType: npu });
    const jr = (await a.submit(run)).jobId;
    const jq = (await a.submit(queued)).jobId;
    expect(await status(a, run, jr)).toMatchObject({ phase: 'RUNNING' });
    const startTime = (await status(a, run, jr))!.startTime;
    await a.close();

    const b = executor(dir);
    expect(await status(b, run, jr)).toMatchObject({ phase: 'RUNNING', startTime });
    expect(await status(b, queued, jq)).toMatchObject({ phase: 'QUEUED', reason: 'Resources' });
    expect(await b.find(run.taskId, run.account)).toBe(jr);
    expect(await b.submit(run)).toEqual({ jobId: jr });
    expect((await b.capacity())[1]).toMatchObject({ allocated: 2, queued: 1 });
    fs.writeFileSync(go, '');
    expect(await until(b, run, jr, ended)).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0 });
    expect(await until(b, queued, jq, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    expect(output(run)).toBe('finished\n');
    expect(output(queued)).toBe('queued ran dev=0\n');
    const next = spec('true');
    expect((await b.submit(next)).jobId).toBe(`local-${Number(jq.slice(6)) + 1}`);
  });

  it('a job that ends while no executor watches settles from its exit file with the true exit code', async () => {
    const dir = stateDir();
    const a = executor(dir);
    const s = spec('sleep 0.3; echo bye; exit 7');
    const { jobId } = await a.submit(s);
    await a.close();
    await waitFile(path.join(dir, 'jobs', jobId, 'exit'));
    const b = executor(dir);
    const st = await status(b, s, jobId);
    expect(st).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 7 });
    expect(st!.endTime! - st!.startTime!).toBeGreaterThanOrEqual(250);
    expect(output(s)).toBe('bye\n');
  });

  it('a cancel asked before a restart ends as STOPPED after it (the stop survives in the state dir)', async () => {
    const dir = stateDir();
    const a = executor(dir, center(), { ...FAST, killGraceMs: 60_000 });
    // Ignores SIGTERM: the stop can only finish by the SIGKILL the next executor sends after the grace.
    const s = spec("trap 'echo got-term' TERM; while true; do sleep 0.1; done");
    const { jobId } = await a.submit(s);
    await waitFile(path.join(dir, 'jobs', jobId, 'pid'));
    await sleep(200); // the trap is set
    await a.cancel(ref(s, jobId));
    await a.close();
    const b = executor(dir, center(), { ...FAST, killGraceMs: 300 });
    const st = await until(b, s, jobId, ended);
    expect(st).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled', exitCode: 137 });
    expect(output(s)).toContain('got-term');
  });

  it('createExecutor builds the local executor under <dataDir>/executor/<centerId>', async () => {
    const dataDir = path.join(root, `state-${++n}`);
    const e = createExecutor(center(), { dataDir, local: FAST }) as LocalExecutor;
    open.push(e);
    expect(e.kind).toBe('local');
    const s = spec('echo via-factory');
    const { jobId } = await e.submit(s);
    expect(await until(e, s, jobId, ended)).toMatchObject({ phase: 'SUCCEEDED' });
    expect(fs.existsSync(path.join(dataDir, 'executor', 'local-test', 'jobs', jobId, 'exit'))).toBe(true);
  });
});
