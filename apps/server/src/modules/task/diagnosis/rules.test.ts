import { describe, expect, it } from 'vitest';
import { diagnose, RULES, type JobEvidence } from './rules';

/** A recorded log excerpt: its lines numbered from `first` (the tail of a longer log). */
const tail = (text: string, first = 1) => text.split('\n').map((t, i) => ({ line: first + i, text: t }));

const base: JobEvidence = { state: 'FAILED', timeLimitMinutes: 60, cardNum: 1, logTail: [] };

// Each case: what sacct / the local executor recorded for a real failure of that kind, and the log's end.
const CASES: Record<(typeof RULES)[number]['cause'], { evidence: JobEvidence; expect: Partial<ReturnType<typeof diagnose>> & object }> = {
  memory: {
    // sacct: State=OUT_OF_MEMORY ExitCode=0:125 MaxRSS=1010M ReqMem=1000M (a job allocating past --mem).
    evidence: { ...base, reason: 'OutOfMemory', exitCode: null, maxRssMB: 1010, requestedMemMB: 1000, logTail: tail('alloc 900M\nslurmstepd: error: Detected 1 oom_kill event in StepId=41.batch. Some of the step tasks have been OOM Killed.', 200) },
    expect: { cause: 'memory', title: '内存超出限制，作业被系统终止', change: { memoryMB: 2048 } },
  },
  gpuMemory: {
    evidence: { ...base, exitCode: 1, logTail: tail('Epoch 1\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)') },
    expect: { cause: 'gpuMemory', title: '加速卡显存不足' },
  },
  timeLimit: {
    // sacct: State=TIMEOUT Elapsed=00:02:01 Timelimit=00:02:00.
    evidence: { ...base, reason: 'TimeLimit', timeLimitMinutes: 2, elapsedSeconds: 121, exitCode: null, logTail: tail('step 1\nslurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2026-11-27T12:00:00 DUE TO TIME LIMIT ***') },
    expect: { cause: 'timeLimit', title: '超过最长运行时长，作业被停止', change: { maxDurationMinutes: 4 } },
  },
  missingModule: {
    evidence: { ...base, exitCode: 1, logTail: tail('Traceback (most recent call last):\n  File "/home/u1/train.py", line 3, in <module>\n    import transformers.models\nModuleNotFoundError: No module named \'transformers\'', 10) },
    expect: { cause: 'missingModule', title: '缺少 Python 模块 transformers', evidence: [{ text: "ModuleNotFoundError: No module named 'transformers'", logLine: 13 }] },
  },
  missingFile: {
    evidence: { ...base, exitCode: 1, logTail: tail('Traceback (most recent call last):\n  File "train.py", line 8, in <module>\n    open("data/train.csv")\nFileNotFoundError: [Errno 2] No such file or directory: \'data/train.csv\'') },
    expect: { cause: 'missingFile', title: '找不到文件 data/train.csv' },
  },
  pythonException: {
    evidence: { ...base, exitCode: 1, logTail: tail('loss=0.3\nTraceback (most recent call last):\n  File "/home/u1/train.py", line 40, in <module>\n    main()\n  File "/home/u1/train.py", line 31, in main\n    lr = float(args.lr)\nValueError: could not convert string to float: \'1e-3x\'', 500) },
    expect: {
      cause: 'pythonException',
      title: '程序抛出异常：ValueError',
      evidence: [
        { text: "ValueError: could not convert string to float: '1e-3x'", logLine: 506 },
        { text: 'File "/home/u1/train.py", line 31, in main', logLine: 504 },
      ],
    },
  },
  killed: {
    // A process killed by the kernel outside any memory limit: exit 137, bash's "Killed" line.
    evidence: { ...base, exitCode: 137, logTail: tail('working\n/var/spool/slurmd/job43/slurm_script: line 4: 12345 Killed                  python big.py') },
    expect: { cause: 'killed', title: '进程被强制终止' },
  },
  nodeFailure: {
    evidence: { ...base, reason: 'NodeFail', exitCode: null },
    expect: { cause: 'nodeFailure', title: '作业所在节点故障' },
  },
  launchFailure: {
    evidence: { ...base, reason: 'JobLaunchFailure', exitCode: null },
    expect: { cause: 'launchFailure', title: '调度系统未能启动作业' },
  },
  cancelledOutside: {
    // sacct: State="CANCELLED by 0".
    evidence: { ...base, state: 'STOPPED', reason: 'Cancelled', exitCode: 143 },
    expect: { cause: 'cancelledOutside', title: '作业在平台外被取消' },
  },
  exitCode: {
    evidence: { ...base, exitCode: 3, reason: 'NonZeroExitCode', logTail: tail('starting\nerror: bad input\n\n', 7) },
    expect: { cause: 'exitCode', title: '命令以退出码 3 结束', evidence: [{ text: '退出码 3' }, { text: 'error: bad input', logLine: 8 }] },
  },
};

describe('failure diagnosis rules (issue 23 item 5)', () => {
  for (const { cause } of RULES) {
    it(`recognises ${cause} from its recorded evidence, with a suggestion`, () => {
      const c = CASES[cause];
      const d = diagnose(c.evidence);
      expect(d).toMatchObject(c.expect);
      expect(d!.suggestion.length).toBeGreaterThan(0);
      expect(d!.evidence.length).toBeGreaterThan(0);
    });
  }

  it('a memory kill near the limit without the scheduler saying so is still memory; far from it, a plain kill', () => {
    const near = { ...base, exitCode: 137, maxRssMB: 990, requestedMemMB: 1000 };
    expect(diagnose(near)?.cause).toBe('memory');
    expect(diagnose({ ...near, maxRssMB: 200 })?.cause).toBe('killed');
  });

  it('a time-limit change never goes past the platform maximum of 7 days', () => {
    const d = diagnose({ ...base, reason: 'TimeLimit', timeLimitMinutes: 7 * 24 * 60 });
    expect(d?.cause).toBe('timeLimit');
    expect(d?.change).toBeUndefined();
    expect(diagnose({ ...base, reason: 'TimeLimit', timeLimitMinutes: 6000 })?.change).toEqual({ maxDurationMinutes: 7 * 24 * 60 });
  });

  it('a stop from the console has no diagnosis', () => {
    expect(diagnose({ ...base, state: 'STOPPED', exitCode: 143 })).toBeUndefined();
  });

  it('the final error wins over an earlier one in the log', () => {
    const d = diagnose({ ...base, exitCode: 1, logTail: tail("warning: No module named 'apex' (optional)\nTraceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nKeyError: 'lr'") });
    expect(d).toMatchObject({ cause: 'pythonException', title: '程序抛出异常：KeyError' });
  });
});
