import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { slurmAuthHeaders, type SlurmClusterInfo } from '../../../test/slurm-harness';
import { workerSlurmHarness } from '../../../test/slurm-worker';
import type { CenterConfig } from '../../centers/centers';
import { JobRefused, platformEnv, type JobPhase, type JobRef, type JobSpec, type JobStatus } from '../executor';
import { jobComment, jobName, SlurmExecutor } from './slurm-executor';

/**
 * The Slurm executor against the harness's two real clusters (slurmrestd v0.0.38 + dbv0.0.38). Each node has
 * CPUs=2, RealMemory=2000 and two cards. Cluster a runs the cases that need its whole node one after the
 * other (`onA`); cluster b runs the long ones (a time limit Slurm enforces after ~85 s, a job that must leave
 * the controller — MinJobAge=30 plus slurmctld's purge pass) at the same time, so the file takes about as long
 * as its slowest case.
 */

const { clusters } = workerSlurmHarness();
const [ca, cb] = clusters;

function centerOf(c: SlurmClusterInfo, extra: Partial<CenterConfig> = {}): CenterConfig {
  const g = c.gres[0];
  return {
    id: `slurm-${c.id}`,
    name: `测试集群 ${c.id}`,
    region: '本机',
    description: '',
    status: 'online',
    loginHost: '127.0.0.1',
    loginPort: c.sshPort,
    scheduler: { kind: 'slurm', cluster: c.cluster, restUrl: c.restUrl, apiVersion: 'v0.0.38', jwtKeyFile: c.jwtKeyFile, account: c.account },
    storageRoot: c.storageRoot,
    homePrefix: '/home',
    storageAccess: 'local',
    quotaBytes: 1 << 30,
    accounts: { prefix: c.accounts.prefix, uidStart: c.accounts.uidStart, size: c.accounts.names.length },
    cardTypes: [
      {
        id: `${g.type}-card`,
        name: g.type,
        vendor: 'test',
        memoryGB: 16,
        nodes: c.nodes.length,
        cardsPerNode: g.perNode,
        // A card's share of a harness node (CPUs=2, RealMemory=2000): two one-card jobs fit side by side.
        cpusPerCard: 1,
        memoryGBPerCard: 0.25,
        partition: c.partitions[0],
        gres: `${g.name}:${g.type}`,
      },
    ],
    ...extra,
  };
}

const executors: SlurmExecutor[] = [];
function executorFor(center: CenterConfig) {
  const e = new SlurmExecutor(center, { requestTimeoutMs: 20_000 });
  executors.push(e);
  return e;
}
const ea = executorFor(centerOf(ca));
const eb = executorFor(centerOf(cb));
afterAll(async () => {
  await Promise.all(executors.map((e) => e.close()));
});

const home = (c: SlurmClusterInfo, acct = c.accounts.names[0]) => path.join(c.storageRoot, 'home', acct);

function specFor(c: SlurmClusterInfo, over: Partial<JobSpec> & { acct?: string } = {}): JobSpec {
  const taskId = randomUUID();
  const acct = over.acct ?? c.accounts.names[0];
  const h = home(c, acct);
  const outputPath = path.join(h, `${taskId}.out`);
  const { acct: _acct, ...rest } = over;
  return {
    taskId,
    name: 'test task',
    account: { name: acct, uid: c.accounts.uidStart + c.accounts.names.indexOf(acct), home: h },
    workDir: h,
    script: '#!/bin/bash\necho hello\n',
    launch: 'workers',
    env: { ...platformEnv({ taskId, workDir: h }, { metrics: path.join(h, `${taskId}.metrics`), exit: path.join(h, `${taskId}.exit`) }), GREETING: '你好 world' },
    cardType: centerOf(c).cardTypes[0],
    cardsPerNode: 1,
    nodes: 1,
    tasksPerNode: 1,
    timeLimitMinutes: 5,
    outputPath,
    ...rest,
  };
}

const refOf = (spec: JobSpec, jobId: string): JobRef => ({ jobId, taskId: spec.taskId, account: spec.account });
const ENDED: JobPhase[] = ['SUCCEEDED', 'FAILED', 'STOPPED'];

/** Polls `states` (as the poller does) until the job is in one of `phases`; returns every status seen. */
async function until(e: SlurmExecutor, ref: JobRef, phases: JobPhase[], timeoutMs = 60_000, accept: (s: JobStatus) => boolean = () => true) {
  const seen: JobStatus[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = (await e.states([ref])).get(ref.jobId);
    if (s) seen.push(s);
    if (s && phases.includes(s.phase) && accept(s)) return { last: s, seen };
    if (Date.now() > deadline) throw new Error(`job ${ref.jobId}: not ${phases.join('/')} in time; seen ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The Slurm CLI of a harness cluster (as root, through munge). */
const cli = (c: SlurmClusterInfo, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { env: { ...process.env, SLURM_CONF: c.slurmConf }, encoding: 'utf8', timeout: 20_000 }).trim();

/** The controller's own record of a job (to check what was asked of Slurm). */
async function ctldJob(c: SlurmClusterInfo, jobId: string) {
  const res = await fetch(`${c.restUrl}/slurm/v0.0.38/job/${jobId}`, { headers: slurmAuthHeaders(c, c.accounts.names[0]) });
  return ((await res.json()) as any).jobs?.[0];
}

/** Cluster a's node is used by one case at a time (they fill it); the cases still run beside cluster b's. */
let aQueue: Promise<unknown> = Promise.resolve();
function onA<T>(fn: () => Promise<T>): Promise<T> {
  const run = aQueue.then(fn, fn);
  aQueue = run.catch(() => undefined);
  return run;
}

const LONG = 200_000;

describe('SlurmExecutor on real slurmrestd v0.0.38 clusters', () => {
  it.concurrent(
    'runs a job as the cluster account with its card and environment: QUEUED/RUNNING → SUCCEEDED',
    () =>
      onA(async () => {
        const spec = specFor(ca, {
          script: '#!/bin/bash\necho "user=$(id -un) uid=$(id -u)"\necho "cvd=$CUDA_VISIBLE_DEVICES"\necho "pwd=$(pwd)"\necho "greeting=$GREETING"\necho "task=$SUANLI_TASK_ID"\necho "rank=$RANK/$WORLD_SIZE"\nsleep 3\n',
        });
        const { jobId } = await ea.submit(spec);
        expect(jobId).toMatch(/^\d+$/);
        // squeue names the account as the job's user (never root, never the gateway's user).
        expect(cli(ca, 'squeue', ['-h', '-j', jobId, '-o', '%u %j %k'])).toBe(`${spec.account.name} ${jobName(spec.taskId)} ${jobComment(spec.taskId)}`);
        const { last, seen } = await until(ea, refOf(spec, jobId), ENDED);
        expect(seen.some((s) => ['QUEUED', 'STARTING', 'RUNNING'].includes(s.phase))).toBe(true);
        expect(seen.map((s) => s.phase).every((p) => ['QUEUED', 'STARTING', 'RUNNING', 'SUCCEEDED'].includes(p))).toBe(true);
        expect(last).toMatchObject({ jobId, phase: 'SUCCEEDED', exitCode: 0, nodes: [ca.nodes[0]] });
        expect(last.reason).toBeUndefined();
        expect(last.endTime! - last.startTime!).toBeGreaterThanOrEqual(3000);
        const text = fs.readFileSync(spec.outputPath, 'utf8');
        expect(text).toContain(`user=${spec.account.name} uid=${spec.account.uid}`);
        expect(text).toContain('cvd=0');
        expect(text).toContain(`pwd=${spec.workDir}`);
        expect(text).toContain('greeting=你好 world');
        expect(text).toContain(`task=${spec.taskId}`);
        expect(text).toContain('rank=0/1');
        expect(fs.statSync(spec.outputPath).uid).toBe(spec.account.uid);
        // What was asked of Slurm: the card type's partition and gres, a card's share of cpus and memory.
        const j = await ctldJob(ca, jobId);
        expect(j).toMatchObject({ partition: ca.partitions[0], tres_per_node: `gres:gpu:${ca.gres[0].type}:1`, cpus: 1, memory_per_node: 256, account: ca.account });
      }),
    LONG,
  );

  it.concurrent(
    'reports a failing command as FAILED with its exit code and stderr in the same log',
    () =>
      onA(async () => {
        const spec = specFor(ca, { script: '#!/bin/bash\necho to-stdout\necho to-stderr >&2\nexit 3\n', cardsPerNode: 0 });
        const { jobId } = await ea.submit(spec);
        const { last } = await until(ea, refOf(spec, jobId), ENDED);
        expect(last).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3 });
        expect(fs.readFileSync(spec.outputPath, 'utf8')).toMatch(/to-stdout\n[\s\S]*to-stderr/);
      }),
    LONG,
  );

  it.concurrent(
    'a second job with a followed task\'s tags (a late submit from a frozen controller) is cancelled by the next poll',
    () =>
      onA(async () => {
        const spec = specFor(ca, { script: '#!/bin/bash\nsleep 60\n', cardsPerNode: 0 });
        // Two first attempts skip the lookup: the second stands for a request the controller took late.
        const first = await ea.submit(spec, 1);
        const stray = await ea.submit(spec, 1);
        expect(stray.jobId).not.toBe(first.jobId);
        const ref = refOf(spec, first.jobId);
        await expect
          .poll(
            async () => {
              await ea.states([ref]);
              return cli(ca, 'squeue', ['-h', '-n', jobName(spec.taskId), '-o', '%i']);
            },
            { timeout: 30_000, interval: 1000 },
          )
          .toBe(first.jobId);
        // The followed job is untouched; stop it so it does not hold the partition.
        expect((await ea.states([ref])).get(first.jobId)?.phase).toMatch(/QUEUED|STARTING|RUNNING/);
        await ea.cancel(ref);
        await until(ea, ref, ['STOPPED']);
      }),
    LONG,
  );

  it.concurrent(
    'a retried submit returns the job the first attempt made: exactly one Slurm job per task',
    () =>
      onA(async () => {
        const spec = specFor(ca, { script: '#!/bin/bash\nsleep 2\n', cardsPerNode: 0 });
        // Two attempts racing (a first one that "timed out" while the retry starts) plus a later retry.
        const first = await ea.submit(spec);
        const [second, third] = await Promise.all([ea.submit(spec), ea.find(spec.taskId, spec.account)]);
        expect(second.jobId).toBe(first.jobId);
        expect(third).toBe(first.jobId);
        expect(cli(ca, 'squeue', ['-h', '-n', jobName(spec.taskId), '-o', '%i']).split('\n')).toEqual([first.jobId]);
        await until(ea, refOf(spec, first.jobId), ['SUCCEEDED']);
        // After the end, the job is still found (controller, then accounting) and not submitted again.
        expect((await ea.submit(spec)).jobId).toBe(first.jobId);
        const acct = await (async () => {
          for (let i = 0; i < 40; i++) {
            const out = cli(ca, 'sacct', ['-n', '-X', '-P', '--name', jobName(spec.taskId), '-o', 'JobID,State', '-S', 'now-1hour']);
            if (out.includes('COMPLETED')) return out;
            await new Promise((r) => setTimeout(r, 500));
          }
          return cli(ca, 'sacct', ['-n', '-X', '-P', '--name', jobName(spec.taskId), '-o', 'JobID,State', '-S', 'now-1hour']);
        })();
        expect(acct.split('\n')).toEqual([`${first.jobId}|COMPLETED`]);
      }),
    LONG,
  );

  it.concurrent(
    'cancel stops a running job (STOPPED, cancelled by its own account as accounting records) and is idempotent',
    () =>
      onA(async () => {
        const spec = specFor(ca, { script: '#!/bin/bash\nsleep 300\n' });
        const { jobId } = await ea.submit(spec);
        const ref = refOf(spec, jobId);
        await until(ea, ref, ['RUNNING']);
        await ea.cancel(ref);
        await ea.cancel(ref);
        const { last } = await until(ea, ref, ['STOPPED', 'FAILED', 'SUCCEEDED']);
        // The executor cancels as the job's account: accounting names it (the state engine says 用户停止).
        expect(last).toMatchObject({ phase: 'STOPPED', reason: 'CancelledByOwner' });
        await ea.cancel(ref);
        // A job id Slurm never had: nothing to cancel, no error.
        await ea.cancel({ ...ref, jobId: '99999999' });
      }),
    LONG,
  );

  it.concurrent(
    'busy cards keep a job QUEUED with reason Resources and an estimated start; capacity counts the cards',
    () =>
      onA(async () => {
        // The previous case's cancelled job may still be releasing its card for a moment.
        let idle = await ea.capacity();
        for (let i = 0; i < 40 && idle[0].allocated > 0; i++) {
          await new Promise((r) => setTimeout(r, 500));
          idle = await ea.capacity();
        }
        expect(idle).toEqual([{ cardTypeId: `${ca.gres[0].type}-card`, total: 2, allocated: 0, queued: 0, nodesTotal: 1, nodesIdle: 1 }]);
        const blockers = [specFor(ca, { script: '#!/bin/bash\nsleep 300\n' }), specFor(ca, { script: '#!/bin/bash\nsleep 300\n', acct: ca.accounts.names[1] })];
        const refs: JobRef[] = [];
        try {
          for (const s of blockers) refs.push(refOf(s, (await ea.submit(s)).jobId));
          for (const r of refs) await until(ea, r, ['RUNNING']);
          const waiting = specFor(ca, { script: '#!/bin/bash\necho never\n' });
          const wref = refOf(waiting, (await ea.submit(waiting)).jobId);
          refs.push(wref);
          const { last } = await until(ea, wref, ['QUEUED'], 30_000, (s) => s.reason === 'Resources' && !!s.estimatedStart);
          expect(last.estimatedStart!).toBeGreaterThan(Date.now());
          expect(last.startTime ?? null).toBeNull();
          // One states call answers for jobs of two accounts.
          const all = await ea.states(refs);
          expect([...all.values()].map((s) => s.phase)).toEqual(['RUNNING', 'RUNNING', 'QUEUED']);
          expect(await ea.capacity()).toEqual([{ cardTypeId: `${ca.gres[0].type}-card`, total: 2, allocated: 2, queued: 1, nodesTotal: 1, nodesIdle: 0 }]);
        } finally {
          await Promise.all(refs.map((r) => ea.cancel(r)));
        }
        for (const r of refs) expect((await until(ea, r, ENDED)).last.phase).toBe('STOPPED');
      }),
    LONG,
  );

  it.concurrent(
    'runs a distributed job once per worker with RANK, WORLD_SIZE, MASTER_ADDR and a card each',
    () =>
      onA(async () => {
        const spec = specFor(ca, {
          cardsPerNode: 2,
          tasksPerNode: 2,
          script: '#!/bin/bash\necho "rank=$RANK local=$LOCAL_RANK node=$NODE_RANK world=$WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT user=$(id -un) cards=$CUDA_VISIBLE_DEVICES"\n',
        });
        const { jobId } = await ea.submit(spec);
        expect((await until(ea, refOf(spec, jobId), ENDED)).last).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0 });
        const lines = fs.readFileSync(spec.outputPath, 'utf8').trim().split('\n').sort();
        const port = 20000 + (Number(jobId) % 20000);
        expect(lines).toHaveLength(2);
        lines.forEach((l, i) => expect(l).toMatch(new RegExp(`^rank=${i} local=${i} node=0 world=2 master=${ca.nodes[0]}:${port} user=${spec.account.name} cards=0,1$`)));
      }),
    LONG,
  );

  it.concurrent('refuses for good a request larger than any node and an unknown partition (JobRefused with Slurm’s words)', async () => {
    const tooBig = specFor(ca, { cardsPerNode: ca.gres[0].perNode + 1 });
    const err = await ea.submit(tooBig).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobRefused);
    expect((err as JobRefused).reason).toBe('Requested node configuration is not available');
    const badPart = specFor(ca, { cardType: { ...centerOf(ca).cardTypes[0], partition: 'no-such-partition' } });
    const err2 = await ea.submit(badPart).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(JobRefused);
    expect((err2 as JobRefused).reason).toBe('Invalid partition name specified');
    expect(cli(ca, 'squeue', ['-h', '-n', `${jobName(tooBig.taskId)},${jobName(badPart.taskId)}`, '-o', '%i'])).toBe('');
    // An unreachable scheduler is not a refusal: the caller retries later.
    const down = new SlurmExecutor(centerOf(ca, { scheduler: { ...(centerOf(ca).scheduler as any), restUrl: 'http://127.0.0.1:1' } }), { requestTimeoutMs: 2000 });
    const err3 = await down.submit(specFor(ca)).catch((e: unknown) => e);
    expect(err3).toBeInstanceOf(Error);
    expect(err3).not.toBeInstanceOf(JobRefused);
  });

  it.concurrent(
    'a time limit ends the job FAILED with reason TimeLimit',
    async () => {
      const spec = specFor(cb, { script: '#!/bin/bash\necho started\nsleep 600\n', cardsPerNode: 0, timeLimitMinutes: 1 });
      const { jobId } = await eb.submit(spec);
      // Slurm checks limits periodically: a 1-minute job ends after ~85 s.
      const { last } = await until(eb, refOf(spec, jobId), ENDED, 170_000);
      expect(last).toMatchObject({ phase: 'FAILED', reason: 'TimeLimit' });
      expect(last.endTime! - last.startTime!).toBeGreaterThanOrEqual(60_000);
    },
    LONG,
  );

  it.concurrent(
    'settles jobs that left the controller from accounting with their true state; unknown jobs stay absent',
    async () => {
      const ok = specFor(cb, { script: '#!/bin/bash\necho fine\n', cardsPerNode: 0 });
      const bad = specFor(cb, { script: '#!/bin/bash\nexit 4\n', cardsPerNode: 0, acct: cb.accounts.names[1] });
      const okRef = refOf(ok, (await eb.submit(ok)).jobId);
      const badRef = refOf(bad, (await eb.submit(bad)).jobId);
      await until(eb, okRef, ENDED);
      expect((await until(eb, badRef, ENDED)).last).toMatchObject({ phase: 'FAILED', exitCode: 4 });
      // MinJobAge=30 in the harness, then slurmctld's purge pass removes them from its memory.
      const deadline = Date.now() + 150_000;
      for (;;) {
        const res = await fetch(`${cb.restUrl}/slurm/v0.0.38/jobs`, { headers: slurmAuthHeaders(cb, cb.accounts.names[0]) });
        const ids = ((await res.json()) as any).jobs.map((j: any) => String(j.job_id));
        if (!ids.includes(okRef.jobId) && !ids.includes(badRef.jobId)) break;
        if (Date.now() > deadline) throw new Error('the finished jobs never left the controller');
        await new Promise((r) => setTimeout(r, 2000));
      }
      const stranger: JobRef = { jobId: '99999999', taskId: randomUUID(), account: ok.account };
      // A real job id, but not this task's job: not taken for it.
      const wrongTask: JobRef = { ...okRef, taskId: randomUUID(), jobId: badRef.jobId };
      const states = await eb.states([okRef, badRef, stranger]);
      expect(states.get(okRef.jobId)).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0 });
      // Accounting (dbv0.0.38) cannot tell the exit code of a FAILED job (reads 0); the state and reason are true.
      expect(states.get(badRef.jobId)).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: null });
      expect(states.get(okRef.jobId)!.endTime).toBeGreaterThan(0);
      expect(states.has(stranger.jobId)).toBe(false);
      expect((await eb.states([wrongTask])).size).toBe(0);
      // find still answers from accounting.
      expect(await eb.find(bad.taskId, bad.account)).toBe(badRef.jobId);
    },
    LONG,
  );

  it.concurrent(
    'runs the command under the center’s image launcher with the image’s uri',
    async () => {
      const launcher = path.join(cb.storageRoot, 'launch-image.sh');
      fs.writeFileSync(launcher, '#!/bin/bash\n# test launcher: records the image, then runs the command\nuri="$1"; shift\necho "$uri" > "$SUANLI_WORK_DIR/image-$SUANLI_TASK_ID"\nexec "$@"\n', { mode: 0o755 });
      const e = executorFor(centerOf(cb, { imageLauncher: `${launcher} {uri}` }));
      const uri = "docker://registry.example/pytorch:2.1 it's";
      const workers = specFor(cb, { script: '#!/bin/bash\necho "in-image rank=$RANK"\n', cardsPerNode: 0, image: { id: 'img-1', uri } });
      const batch = specFor(cb, { script: '#!/bin/bash\n#SBATCH --mem=300\necho "batch mem=$SLURM_MEM_PER_NODE"\n', launch: 'batch', cardsPerNode: 0, image: { id: 'img-1', uri } });
      const refs = await Promise.all([workers, batch].map(async (s) => refOf(s, (await e.submit(s)).jobId)));
      for (const r of refs) expect((await until(e, r, ENDED)).last.phase).toBe('SUCCEEDED');
      for (const s of [workers, batch]) expect(fs.readFileSync(path.join(s.workDir, `image-${s.taskId}`), 'utf8')).toBe(`${uri}\n`);
      expect(fs.readFileSync(workers.outputPath, 'utf8')).toContain('in-image rank=0');
      // The batch script's #SBATCH line is honoured (slurmrestd itself ignores them).
      expect(fs.readFileSync(batch.outputPath, 'utf8')).toContain('batch mem=300');
    },
    LONG,
  );
});
