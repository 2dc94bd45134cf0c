import { describe, expect, it } from 'vitest';
import type { CenterCardType } from '../../centers/centers';
import { JobRefused, type JobSpec } from '../executor';
import { expandHostlist } from './hostlist';
import { memoryMB, parseSbatchOptions } from './sbatch-options';
import { slurmJobStatus, withMemoryKill } from './job-status';
import { diagnose } from '../../modules/task/diagnosis/rules';
import usageRecord from './fixtures/dbv0038-jobs-usage.json';
import { batchScript, launcherPrefix } from './batch-script';
import { jwtExpiry, mintSlurmJwt, parseTokenOutput, SlurmTokens } from './slurm-token';
import { parseGres, v0038, v0038ControllerJob, v0038IsRefusal, v0038Node, v0038SubmitBody } from './v0038';
import { v0038AccountedJob, v0038AccountingJob } from './v0038-accounting';

/** Pure mapping of the v0.0.38 shapes (recorded in docs/operations/slurm-center.md) and the script builder. */

const ctld = (over: Record<string, unknown> = {}) => ({
  job_id: 12,
  name: 'suanli-t1',
  comment: 'suanli:t1',
  user_name: 'sla0001',
  cluster: 'c1',
  partition: 'gpu-a100',
  job_state: 'RUNNING',
  state_reason: 'None',
  exit_code: 0,
  submit_time: 1000,
  start_time: 1010,
  end_time: 1610,
  nodes: 'n[1-2]',
  tres_per_node: 'gres:gpu:a100:1',
  ...over,
});

describe('v0.0.38 controller jobs', () => {
  it('decodes the raw wait status and keeps the tags', () => {
    expect(v0038ControllerJob(ctld({ job_state: 'FAILED', state_reason: 'NonZeroExitCode', exit_code: 768 }))).toMatchObject({
      jobId: '12',
      name: 'suanli-t1',
      comment: 'suanli:t1',
      state: 'FAILED',
      reason: 'NonZeroExitCode',
      exitCode: 3,
      signal: 0,
      gresPerNode: 'gpu:a100:1',
      from: 'controller',
    });
    expect(v0038ControllerJob(ctld({ job_state: 'TIMEOUT', exit_code: 15 }))).toMatchObject({ exitCode: 0, signal: 15, reason: '' });
  });

  it('maps states to phases, reasons and times the platform understands', () => {
    const now = 2_000_000;
    const pending = slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'PENDING', state_reason: 'Resources', start_time: 2100, nodes: '' })), now);
    expect(pending).toEqual({ jobId: '12', phase: 'QUEUED', reason: 'Resources', estimatedStart: 2_100_000 });
    // An estimate in the past (or 0: backfill has not run) is no estimate.
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'PENDING', state_reason: 'Priority', start_time: 0 })), now)).toMatchObject({ reason: 'Priority', estimatedStart: null });
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'CONFIGURING' })), now)?.phase).toBe('STARTING');
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'COMPLETING' })), now)?.phase).toBe('RUNNING');
    const running = slurmJobStatus(v0038ControllerJob(ctld()), now)!;
    // A running job's end_time is its limit, not an end.
    expect(running).toEqual({ jobId: '12', phase: 'RUNNING', startTime: 1_010_000, nodes: ['n1', 'n2'] });
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'COMPLETED' })), now)).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0, endTime: 1_610_000 });
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'FAILED', exit_code: 768 })), now)).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3 });
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'TIMEOUT', state_reason: 'TimeLimit', exit_code: 15 })), now)).toMatchObject({ phase: 'FAILED', reason: 'TimeLimit', exitCode: 143 });
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'CANCELLED', exit_code: 15 })), now)).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled' });
    for (const [state, reason] of [
      ['OUT_OF_MEMORY', 'OutOfMemory'],
      ['NODE_FAIL', 'NodeFail'],
      ['BOOT_FAIL', 'BootFail'],
      ['DEADLINE', 'Deadline'],
    ]) {
      expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: state })), now)).toMatchObject({ phase: 'FAILED', reason });
    }
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'REQUEUED' })), now)?.phase).toBe('QUEUED');
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'PREEMPTED' })), now)).toMatchObject({ phase: 'QUEUED', reason: 'Preempted' });
    // A state this code does not know is not guessed.
    expect(slurmJobStatus(v0038ControllerJob(ctld({ job_state: 'SOMETHING_NEW' })), now)).toBeUndefined();
  });
});

describe('v0.0.38 accounting jobs (dbv0.0.38)', () => {
  const db = (over: Record<string, unknown> = {}) => ({
    job_id: 12,
    name: 'suanli-t1',
    comment: { job: 'suanli:t1' },
    user: 'sla0001',
    cluster: 'c1',
    partition: 'gpu-a100',
    state: { current: 'COMPLETED', reason: 'None' },
    exit_code: { status: 'SUCCESS', return_code: 0 },
    time: { submission: 1000, start: 1010, end: 1020 },
    nodes: 'n1',
    tres: { allocated: [{ type: 'gres', name: 'gpu', count: 1 }] },
    ...over,
  });

  it('trusts the exit code only where the 22.05 defect cannot hide one', () => {
    expect(v0038AccountingJob(db())).toMatchObject({ state: 'COMPLETED', exitCode: 0, comment: 'suanli:t1', from: 'accounting' });
    // exit 3 reads SUCCESS/0 in dbv0.0.38: unknown, not 0.
    const failed = v0038AccountingJob(db({ state: { current: 'FAILED', reason: 'None' } }));
    expect(failed).toMatchObject({ exitCode: null, reason: '' });
    expect(slurmJobStatus(failed, 0)).toMatchObject({ phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: null, startTime: 1_010_000, endTime: 1_020_000 });
    expect(v0038AccountingJob(db({ state: { current: 'FAILED' }, exit_code: { status: 'SIGNALED', return_code: 0, signal: { signal_id: 9, name: 'KILL' } } }))).toMatchObject({ signal: 9 });
    expect(v0038AccountingJob(db({ comment: { job: null } })).comment).toBeNull();
    // A PREEMPTED job that left the controller was not requeued: it ended.
    expect(slurmJobStatus(v0038AccountingJob(db({ state: { current: 'PREEMPTED' } })), 0)).toMatchObject({ phase: 'FAILED', reason: 'Preempted' });
    // Who cancelled (sacct's `CANCELLED by <uid>`): the job's own account, anyone else, or not known.
    const cancelled = (by: unknown) => v0038AccountingJob(db({ state: { current: 'CANCELLED' }, user: 'acc0001', kill_request_user: by }));
    expect(cancelled('acc0001').cancelledBy).toBe('acc0001');
    expect(slurmJobStatus(cancelled('acc0001'), 0, 'acc0001')).toMatchObject({ phase: 'STOPPED', reason: 'CancelledByOwner' });
    expect(slurmJobStatus(cancelled('root'), 0, 'acc0001')).toMatchObject({ phase: 'STOPPED', reason: 'CancelledByAdmin' });
    expect(slurmJobStatus(cancelled('slurm'), 0, 'acc0001')).toMatchObject({ phase: 'STOPPED', reason: 'CancelledByAdmin' });
    expect(cancelled(null).cancelledBy).toBeUndefined();
    expect(slurmJobStatus(cancelled(null), 0, 'acc0001')).toMatchObject({ phase: 'STOPPED', reason: 'Cancelled' });
  });
});

describe('usage from a recorded dbv0.0.38 record (issue 23)', () => {
  const recorded = (name: string) => (usageRecord.jobs as any[]).find((j) => j.name === name);
  const ctldJob = (over: Record<string, unknown>) => ctld({ job_id: 1, job_state: 'FAILED', ...over });

  it('reads ReqMem, AllocCPUS, TotalCPU and MaxRSS as sacct prints them', () => {
    // sacct -o TotalCPU,Elapsed,AllocCPUS,MaxRSS,ReqMem of the same jobs: 00:00.003 2 s 1 114372K 60M (batch
    // step CANCELLED by 0, 0:9); 00:03.521 8 s 1 7920K 200M; 00:00.003 8 s 1 4768K 200M; exit 3: no MaxRSS.
    expect(v0038AccountingJob(recorded('over-mem')).usage).toEqual({ requestedMemMB: 60, cpus: 1, cpuSeconds: 0.003, maxRssMB: 112 });
    expect(v0038AccountingJob(recorded('cpu-bound')).usage).toEqual({ requestedMemMB: 200, cpus: 1, cpuSeconds: 3.521, maxRssMB: 8 });
    expect(v0038AccountingJob(recorded('idle')).usage).toEqual({ requestedMemMB: 200, cpus: 1, cpuSeconds: 0.004, maxRssMB: 5 });
    expect(v0038AccountingJob(recorded('exit-3')).usage).toEqual({ requestedMemMB: 100, cpus: 1, cpuSeconds: 0.003 });
    // A job that never ran a step (cancelled while pending) has no usage at all.
    expect(v0038AccountingJob({ ...recorded('idle'), steps: [] }).usage).toBeUndefined();
    // Per node: a two-node job's tres mem is the sum of its nodes'.
    expect(v0038AccountingJob({ ...recorded('idle'), allocation_nodes: 2 }).usage?.requestedMemMB).toBe(100);
  });

  it('ends a job with its signal and usage; the memory watch\'s kill reads OutOfMemory', () => {
    const j = v0038AccountingJob(recorded('over-mem'));
    const status = slurmJobStatus(j, 0)!;
    expect(status).toMatchObject({ phase: 'FAILED', signal: 9, exitCode: 137, usage: { maxRssMB: 112, requestedMemMB: 60 } });
    expect(withMemoryKill(status).reason).toBe('OutOfMemory');
    // The controller alone (what the executor sees first) says JobLaunchFailure with the raw status 9.
    const live = slurmJobStatus(v0038ControllerJob(ctldJob({ state_reason: 'JobLaunchFailure', exit_code: 9 })), 0)!;
    expect(live).toMatchObject({ reason: 'JobLaunchFailure', signal: 9, exitCode: 137 });
    expect(live.usage).toBeUndefined();
    expect(withMemoryKill(live).reason).toBe('JobLaunchFailure');
    // Killed below its request (someone's kill -9), or over it but not killed: not the memory limit.
    expect(withMemoryKill({ ...status, usage: { maxRssMB: 30, requestedMemMB: 60 } }).reason).not.toBe('OutOfMemory');
    expect(withMemoryKill({ ...status, signal: undefined }).reason).not.toBe('OutOfMemory');
    // A success keeps its usage and has no signal.
    expect(slurmJobStatus(v0038AccountingJob(recorded('cpu-bound')), 0)).toMatchObject({ phase: 'SUCCEEDED', exitCode: 0, usage: { cpuSeconds: 3.521, cpus: 1 } });
    expect(slurmJobStatus(v0038AccountingJob(recorded('cpu-bound')), 0)?.signal).toBeUndefined();
  });

  it('the recorded memory kill is diagnosed as memory, with the figures and the change to --mem', () => {
    const status = withMemoryKill(slurmJobStatus(v0038AccountingJob(recorded('over-mem')), 0)!);
    const d = diagnose({
      state: 'FAILED',
      reason: status.reason,
      exitCode: status.exitCode,
      signal: status.signal,
      elapsedSeconds: 2,
      timeLimitMinutes: 10,
      maxRssMB: status.usage?.maxRssMB,
      requestedMemMB: status.usage?.requestedMemMB,
      cardNum: 0,
      logTail: [{ line: 7, text: 'slurmstepd-a-node1: error: StepId=1.batch exceeded memory limit (117116928 > 62914560), being killed' }],
    });
    expect(d).toMatchObject({ cause: 'memory', change: { memoryMB: 1024 } });
    expect(d?.evidence.map((e) => e.text).join(' ')).toContain('内存峰值 112 MiB，申请 60 MiB');
  });
});

describe('v0.0.38 submit', () => {
  const req = {
    script: '#!/bin/bash\n',
    name: 'suanli-t1',
    comment: 'suanli:t1',
    account: 'suanli',
    partition: 'p',
    gres: 'gpu:a100:2',
    nodes: 2,
    tasks: 4,
    tasksPerNode: 2,
    cpusPerTask: 4,
    memoryPerNodeMB: 2048,
    timeLimitMinutes: 30,
    workDir: '/h',
    outputPath: '/h/o',
    environment: { PATH: '/bin' },
  };

  it('builds the v0.0.38 body: environment as an object, gres, [min,max] nodes', () => {
    expect(v0038SubmitBody(req)).toEqual({
      script: '#!/bin/bash\n',
      job: {
        name: 'suanli-t1',
        comment: 'suanli:t1',
        account: 'suanli',
        partition: 'p',
        gres: 'gpu:a100:2',
        nodes: [2, 2],
        tasks: 4,
        tasks_per_node: 2,
        cpus_per_task: 4,
        memory_per_node: 2048,
        time_limit: 30,
        current_working_directory: '/h',
        standard_output: '/h/o',
        environment: { PATH: '/bin' },
      },
    });
  });

  it('tells refusals from failures to retry', async () => {
    const refusal = { status: 500, body: { errors: [{ error_code: 2014, error: 'Requested node configuration is not available' }] } };
    expect(v0038IsRefusal(refusal)).toBe(true);
    expect(v0038IsRefusal({ status: 500, body: { errors: [{ error_code: 2045, error: 'Invalid account or account/partition combination specified' }] } })).toBe(true);
    // A refused token (slurmctld's answer through SLURM_JWT=daemon) and "try again" codes are not refusals.
    expect(v0038IsRefusal({ status: 500, body: { errors: [{ error_number: -1, error: 'Unspecified error', source: 'slurm_load_jobs' }] } })).toBe(false);
    expect(v0038IsRefusal({ status: 500, body: { errors: [{ error_code: 2016, error: 'Requested nodes are busy' }] } })).toBe(false);
    await expect(v0038.submit(async () => refusal, 'u', req)).rejects.toEqual(new JobRefused('Requested node configuration is not available'));
    const transient = v0038.submit(async () => ({ status: 502, body: null }), 'u', req);
    await expect(transient).rejects.toThrow('HTTP 502');
    await expect(transient).rejects.not.toBeInstanceOf(JobRefused);
  });

  it('cancels idempotently: a job already gone is not an error', async () => {
    await expect(v0038.cancel(async () => ({ status: 500, body: { errors: [{ error_number: 2017, error: 'Invalid job id specified' }] } }), 'u', '9')).resolves.toBeUndefined();
    await expect(v0038.cancel(async () => ({ status: 500, body: { errors: [{ error_number: -1, error: 'Unspecified error' }] } }), 'u', '9')).rejects.toThrow('Unspecified error');
  });

  it('reads "nothing found" in accounting as no jobs', async () => {
    const jobs = await v0038.accountingJobs(async () => ({ status: 500, body: { errors: [{ error_number: 9003, error: 'Nothing found with query' }] } }), 'u', { cluster: 'c', jobIds: ['1', '2'] });
    expect(jobs).toEqual([]);
  });
});

describe('nodes and gres', () => {
  it('parses gres with and without types and indexes', () => {
    expect(parseGres('gpu:a100:2(S:0-1),gpu:t4:1')).toEqual([
      { name: 'gpu', type: 'a100', count: 2 },
      { name: 'gpu', type: 't4', count: 1 },
    ]);
    expect(parseGres('gpu:a100:1(IDX:0)')).toEqual([{ name: 'gpu', type: 'a100', count: 1 }]);
    expect(parseGres('gpu:a100:0(IDX:N/A)')).toEqual([{ name: 'gpu', type: 'a100', count: 0 }]);
    expect(parseGres('N/A')).toEqual([]);
    expect(parseGres('gpu:3')).toEqual([{ name: 'gpu', type: '', count: 3 }]);
  });

  it('reads a node and whether it takes jobs', () => {
    const n = v0038Node({ name: 'n1', address: '10.0.0.7', partitions: ['p'], cpus: 2, real_memory: 1000, gres: 'gpu:a100:2', gres_used: 'gpu:a100:1(IDX:0)', state: 'mixed', state_flags: [] });
    expect(n).toEqual({ name: 'n1', address: '10.0.0.7', partitions: ['p'], cpus: 2, realMemoryMB: 1000, gres: [{ name: 'gpu', type: 'a100', count: 2 }], gresUsed: [{ name: 'gpu', type: 'a100', count: 1 }], state: 'mixed', usable: true });
    expect(v0038Node({ name: 'n2', state: 'idle', state_flags: ['DRAIN'] }).usable).toBe(false);
    expect(v0038Node({ name: 'n3', state: 'down' }).usable).toBe(false);
  });

  it('expands hostlists', () => {
    expect(expandHostlist('gpu[01-03,07],login1')).toEqual(['gpu01', 'gpu02', 'gpu03', 'gpu07', 'login1']);
    expect(expandHostlist('a-node1')).toEqual(['a-node1']);
    expect(expandHostlist('')).toEqual([]);
    expect(expandHostlist('r[1-2]n[1-2]')).toEqual(['r1n1', 'r1n2', 'r2n1', 'r2n2']);
  });
});

describe('#SBATCH lines', () => {
  it('reads the header up to the first command, in long and short forms', () => {
    const s = '#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH -c 2\n#SBATCH --mem 4G\n#SBATCH --exclusive\n# a comment\n#SBATCH --qos=high --constraint=ib\n\necho hi\n#SBATCH --ntasks=99\n';
    expect(parseSbatchOptions(s)).toEqual({ tasks: 4, cpusPerTask: 2, memoryPerNodeMB: 4096, exclusive: true, qos: 'high', constraints: 'ib' });
    expect(parseSbatchOptions('#!/bin/bash\n#SBATCH -n4 --mem-per-cpu=500M\n')).toEqual({ tasks: 4, memoryPerCpuMB: 500 });
    expect(memoryMB('1.5G')).toBe(1536);
    expect(memoryMB('oops')).toBeUndefined();
  });
});

describe('batch scripts', () => {
  const spec = (over: Partial<JobSpec> = {}): JobSpec => ({
    taskId: 't1',
    name: 'n',
    account: { name: 'sla0001', uid: 61001, home: '/h' },
    workDir: '/h',
    script: "#!/bin/bash\n#SBATCH --mem=1G\necho 'it''s' \"$RANK\"\n",
    launch: 'batch',
    env: {},
    cardType: { partition: 'p', gres: 'gpu:a100' } as CenterCardType,
    cardsPerNode: 1,
    nodes: 1,
    timeLimitMinutes: 5,
    outputPath: '/h/o',
    ...over,
  });

  it('runs a batch script through bash (under the image launcher when there is one) and records its exit code', () => {
    const plain = batchScript(spec());
    expect(plain).toContain(Buffer.from(spec().script).toString('base64'));
    expect(plain).toContain('\nbash -c "$SUANLI_SCRIPT" suanli-batch\nrc=$?\n');
    expect(plain).toContain('mv -f "$SUANLI_EXIT_FILE.$$" "$SUANLI_EXIT_FILE"');
    expect(plain.trimEnd().endsWith('exit "$rc"')).toBe(true);
    const wrapped = batchScript(spec({ image: { id: 'i', uri: "docker://x/y:1 it's" } }), 'apptainer exec --nv {uri}');
    expect(wrapped).toContain(`\napptainer exec --nv 'docker://x/y:1 it'\\''s' bash -c "$SUANLI_SCRIPT" suanli-batch`);
    expect(wrapped).toContain(Buffer.from(spec().script).toString('base64'));
    expect(launcherPrefix(undefined, { id: 'i', uri: 'u' })).toBe('');
    expect(launcherPrefix('run {uri}', undefined)).toBe('');
  });

  it('runs workers through one srun step with the distributed variables', () => {
    const s = batchScript(spec({ launch: 'workers' }));
    expect(s.startsWith('#!/bin/bash\n')).toBe(true);
    expect(s).toContain('export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))');
    expect(s).toContain('export WORLD_SIZE="${SLURM_NTASKS:-1}"');
    expect(s).toMatch(/\nsrun --kill-on-bad-exit=1 bash -c '.*RANK="\$SLURM_PROCID"/);
    expect(s).toContain('\nrc=$?\n');
  });
});

describe('tokens', () => {
  it('mints HS256 {exp, iat, sun} and caches per account until near expiry', async () => {
    const key = Buffer.alloc(32, 7);
    const t = mintSlurmJwt(key, 'sla0001', 600, 1000);
    expect(JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString())).toEqual({ exp: 1600, iat: 1000, sun: 'sla0001' });
    expect(jwtExpiry(t)).toBe(1600);
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-jwt-')), 'key');
    fs.writeFileSync(file, key);
    let now = 1000;
    const tokens = new SlurmTokens({ jwtKeyFile: file }, { ttlSeconds: 600, renewBeforeSeconds: 60, now: () => now });
    const a = await tokens.token('sla0001');
    expect(a).toBe(t);
    now = 1500;
    expect(await tokens.token('sla0001')).toBe(a);
    expect(await tokens.token('sla0002')).not.toBe(a);
    now = 1541;
    expect(await tokens.token('sla0001')).not.toBe(a);
    await expect(tokens.token('bad name; rm')).rejects.toThrow('not a cluster account name');
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it('runs the tokenCommand with the account as its last argument', async () => {
    const tokens = new SlurmTokens({ tokenCommand: ['bash', '-c', 'echo "SLURM_JWT=aaa.$0.ccc"'] });
    expect(await tokens.token('sla0003')).toBe('aaa.sla0003.ccc');
    await expect(new SlurmTokens({ tokenCommand: ['bash', '-c', 'echo nope'] }).token('sla0003')).rejects.toThrow('printed no JWT');
    await expect(new SlurmTokens({ tokenCommand: ['bash', '-c', 'echo boom >&2; exit 1'] }).token('sla0003')).rejects.toThrow('boom');
    expect(parseTokenOutput('eyJ.x.y\n')).toBe('eyJ.x.y');
  });
});


describe('v0038AccountedJob (issue 25: every job of accounting, as metering needs it)', () => {
  const base = { job_id: 7001, user: 'sla0001', name: 'lammps', comment: { job: null }, partition: 'gpu-a100', state: { current: 'COMPLETED' }, time: { submission: 100, start: 110, end: 170 } };

  it('reads nodes and the gres total from the allocated TRES (a typed gres counted once), times in ms', () => {
    const j = v0038AccountedJob({
      ...base,
      nodes: 'node[1-2]',
      tres: {
        allocated: [
          { type: 'cpu', count: 2 },
          { type: 'node', count: 2 },
          { type: 'gres', name: 'gpu', count: 4 },
          { type: 'gres', name: 'gpu:a100', count: 4 },
        ],
      },
    });
    expect(j).toEqual({ jobId: '7001', user: 'sla0001', name: 'lammps', comment: null, partition: 'gpu-a100', state: 'COMPLETED', submitTime: 100_000, startTime: 110_000, endTime: 170_000, nodes: 2, cards: 4, gres: 'gpu:a100' });
  });

  it('a pending job: requested TRES, no start, at least one node; a CPU-only job has no cards', () => {
    const pending = v0038AccountedJob({ ...base, state: { current: 'PENDING' }, time: { submission: 100, start: 0, end: 0 }, nodes: 'None assigned', tres: { allocated: [], requested: [{ type: 'gres', name: 'gpu', count: 1 }] } });
    expect(pending).toMatchObject({ state: 'PENDING', startTime: null, endTime: null, nodes: 1, cards: 1, gres: 'gpu' });
    const cpu = v0038AccountedJob({ ...base, comment: { job: 'suanli:t1' }, nodes: 'node1', tres: { allocated: [{ type: 'cpu', count: 1 }, { type: 'node', count: 1 }] } });
    expect(cpu).toMatchObject({ comment: 'suanli:t1', nodes: 1, cards: 0, gres: '' });
  });
});
