import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CenterCardType, CenterConfig } from '../../centers/centers';
import type { JobSpec, JobStatus } from '../executor';
import { removeAfterJobs } from '../../../test/local-jobs';
import { LocalExecutor } from './local-executor';

// What the local executor's supervisor measures of a job (issue 23's evidence): peak memory, the memory limit
// of a script's #SBATCH --mem (enforced as Slurm's cgroup would), CPU time. Real bash process groups.

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

let root: string;
let work: string;
const open: LocalExecutor[] = [];
let n = 0;

function executor() {
  const c: CenterConfig = {
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
    cardTypes: [gpu],
  };
  const e = new LocalExecutor(c, { pollMs: 50, killGraceMs: 600, minuteMs: 1000, stateDir: path.join(root, `state-${++n}`) });
  open.push(e);
  return e;
}

function spec(script: string): JobSpec {
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
  };
}

async function until(e: LocalExecutor, s: JobSpec, jobId: string, done: (st: JobStatus) => boolean, ms: number): Promise<JobStatus> {
  const end = Date.now() + ms;
  let last: JobStatus | undefined;
  while (Date.now() < end) {
    last = (await e.states([{ jobId, taskId: s.taskId, account: s.account }])).get(jobId);
    if (last && done(last)) return last;
    await new Promise((r) => setTimeout(r, 40));
  }
  throw new Error(`job ${jobId} did not get there in ${ms} ms; last status ${JSON.stringify(last)}`);
}

const ended = (st: JobStatus) => ['SUCCEEDED', 'FAILED', 'STOPPED'].includes(st.phase);

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-local-'));
  work = path.join(root, 'home', 'u1', 'work');
  fs.mkdirSync(work, { recursive: true });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

afterAll(() => removeAfterJobs(root));

describe('local executor: usage of a job', () => {
  it('kills a batch job over its #SBATCH --mem (OutOfMemory, SIGKILL) and reports its peak memory (issue 23)', async () => {
    const e = executor();
    // Grows by 20 MiB every 0.1 s (bytearray zero-fills, so resident) up to 400 MiB, then waits to be killed; the
    // limit is 80 MiB.
    const s = spec(
      '#SBATCH --mem=80M\npython3 -c "\nimport time\nb=[]\nfor i in range(20):\n    b.append(bytearray(20 << 20))\n    print(i, flush=True)\n    time.sleep(0.1)\ntime.sleep(60)\n"',
    );
    const { jobId } = await e.submit(s);
    const st = await until(e, s, jobId, ended, 50_000);
    expect(st).toMatchObject({ phase: 'FAILED', reason: 'OutOfMemory', exitCode: 137, signal: 9 });
    expect(st.usage?.requestedMemMB).toBe(80);
    expect(st.usage?.maxRssMB).toBeGreaterThan(80);
    expect(st.usage?.maxRssMB).toBeLessThan(450);
  }, 60_000);

  it('reports the CPU time of a busy job and of an idle one of the same size', async () => {
    const e = executor();
    // A fixed amount of work, not a fixed time: the shared test host may give the job a fraction of a core.
    const busy = spec('python3 -c "\nx = 0\nfor i in range(10_000_000): x += i\n"');
    const idle = spec('sleep 2');
    const b = await e.submit(busy);
    const i = await e.submit(idle, 1);
    const [bs, is] = await Promise.all([until(e, busy, b.jobId, ended, 60_000), until(e, idle, i.jobId, ended, 60_000)]);
    expect(bs).toMatchObject({ phase: 'SUCCEEDED', usage: { cpus: 8 } });
    expect(is).toMatchObject({ phase: 'SUCCEEDED', usage: { cpus: 8 } });
    expect(bs.usage?.cpuSeconds).toBeGreaterThan(0.3);
    expect(is.usage?.cpuSeconds).toBeLessThan(0.2);
    expect(bs.usage?.requestedMemMB).toBeUndefined();
  }, 70_000);

});
