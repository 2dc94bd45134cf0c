import { TASK_MAX_DURATION_MINUTES, type Diagnosis, type DiagnosisEvidence } from '@suanli/contracts';

/**
 * What the platform knows about a task that ended badly (issue 23 item 1): the scheduler's accounting (Slurm:
 * sacct's state, exit code and signal, MaxRSS, elapsed; local executor: exit status, signal, peak RSS) and the
 * last lines of its log. Every field may be missing: a rule that needs one it lacks does not match.
 */
export interface JobEvidence {
  state: 'FAILED' | 'STOPPED';
  /** The scheduler's reason code (`TimeLimit`, `OutOfMemory`, `NodeFail`, `Cancelled`, `NonZeroExitCode`…). */
  reason?: string;
  exitCode?: number | null;
  /** The signal that ended the job's main process, when known (9 = SIGKILL). */
  signal?: number | null;
  elapsedSeconds?: number | null;
  timeLimitMinutes: number;
  /** Peak resident memory of the job's largest process/step, MiB. */
  maxRssMB?: number | null;
  /** The memory the job was given on its node, MiB (Slurm's ReqMem); unknown for a local job without a limit. */
  requestedMemMB?: number | null;
  cardNum: number;
  /** The log's last lines with their 1-based line numbers in the whole log. */
  logTail: readonly LogLine[];
}

export interface LogLine {
  line: number;
  text: string;
}

/** A rule: the diagnosis when it recognises the evidence, else undefined. */
type Rule = (e: JobEvidence) => Diagnosis | undefined;

const MiB_PER_GiB = 1024;
/** A memory figure: MiB below 1 GiB (0.1 GiB against 0.1 GiB told nothing), else GiB. */
const gib = (mb: number) => (mb < MiB_PER_GiB ? `${Math.round(mb)} MiB` : `${(mb / MiB_PER_GiB).toFixed(mb < 10 * MiB_PER_GiB ? 1 : 0)} GiB`);
const minutes = (m: number) => (m % 60 === 0 ? `${m / 60} 小时` : `${m} 分钟`);

/** The last log line matching `re`, searched from the end (the final error is the one that ended the job). */
function lastMatch(tail: readonly LogLine[], re: RegExp): { line: LogLine; m: RegExpExecArray } | undefined {
  for (let i = tail.length - 1; i >= 0; i--) {
    const m = re.exec(tail[i].text);
    if (m) return { line: tail[i], m };
  }
  return undefined;
}

const fromLog = (l: LogLine): DiagnosisEvidence => ({ text: l.text.trim().slice(0, 300), logLine: l.line });

/** SIGKILL, as a signal or as the shell's 128 + 9. */
const killed = (e: JobEvidence) => e.signal === 9 || e.exitCode === 137;

/** Twice the memory, rounded up to a whole GiB. */
const moreMemory = (mb: number) => Math.ceil((mb * 2) / MiB_PER_GiB) * MiB_PER_GiB;

/** A failure of the center, not of the job (the scheduler's reason says so): resubmitting as it is helps. */
function schedulerFault(cause: 'nodeFailure' | 'launchFailure', codes: readonly string[], title: string): { cause: Diagnosis['cause']; rule: Rule } {
  return {
    cause,
    rule: (e) =>
      e.reason && codes.includes(e.reason)
        ? { cause, title, evidence: [{ text: `调度系统记录：${e.reason}` }], suggestion: '这不是作业本身的问题，直接重新提交即可；多次出现请提交工单。' }
        : undefined,
  };
}

/**
 * The rules, most specific first; the first that matches is the diagnosis. Each names the evidence it read
 * and one change that would have avoided the failure (rules.test.ts feeds each a recorded accounting row and
 * log excerpt).
 */
export const RULES: readonly { cause: Diagnosis['cause']; rule: Rule }[] = [
  {
    cause: 'memory',
    rule: (e) => {
      const near = e.maxRssMB != null && e.requestedMemMB != null && e.maxRssMB >= e.requestedMemMB * 0.95;
      const oomLine = lastMatch(e.logTail, /oom[-_ ]kill|Out Of Memory|memory cgroup out of memory|exceeded memory limit/i);
      if (e.reason !== 'OutOfMemory' && !(near && killed(e)) && !(oomLine && killed(e))) return undefined;
      const evidence: DiagnosisEvidence[] = [];
      if (e.maxRssMB != null) evidence.push({ text: `内存峰值 ${gib(e.maxRssMB)}${e.requestedMemMB != null ? `，申请 ${gib(e.requestedMemMB)}` : ''}` });
      // Not "the scheduler recorded OUT_OF_MEMORY": a site enforcing with jobacct_gather's OverMemoryKill records
      // FAILED, and the platform infers the kill from signal 9 with MaxRSS ≥ ReqMem (executors/slurm/job-status.ts).
      if (e.reason === 'OutOfMemory') evidence.push({ text: '作业因内存超出申请量被终止（内存不足）' });
      if (oomLine) evidence.push(fromLog(oomLine.line));
      const base = e.requestedMemMB ?? e.maxRssMB;
      return {
        cause: 'memory',
        title: '内存超出限制，作业被系统终止',
        evidence,
        suggestion: base ? `申请更多内存（建议 ${gib(moreMemory(base))}），或减小数据批量、分块读取数据。` : '申请更多内存，或减小数据批量、分块读取数据。',
        change: base ? { memoryMB: moreMemory(base) } : undefined,
      };
    },
  },
  {
    cause: 'gpuMemory',
    rule: (e) => {
      const hit = lastMatch(e.logTail, /CUDA out of memory|OutOfMemoryError: CUDA|CUDA error: out of memory|NPU out of memory|RESOURCE_EXHAUSTED|hipErrorOutOfMemory/i);
      if (!hit) return undefined;
      return {
        cause: 'gpuMemory',
        title: '加速卡显存不足',
        evidence: [fromLog(hit.line)],
        suggestion: '减小批量大小（batch size），或开启混合精度、梯度累积；模型放不下一张卡时使用多卡并行。',
      };
    },
  },
  {
    cause: 'timeLimit',
    rule: (e) => {
      const over = e.elapsedSeconds != null && e.elapsedSeconds >= e.timeLimitMinutes * 60 - 30;
      if (e.reason !== 'TimeLimit' && !(e.state === 'FAILED' && over)) return undefined;
      const next = Math.min(TASK_MAX_DURATION_MINUTES, e.timeLimitMinutes * 2);
      const evidence: DiagnosisEvidence[] = [{ text: `运行时长达到上限 ${minutes(e.timeLimitMinutes)}` }];
      if (e.elapsedSeconds != null) evidence.push({ text: `实际运行 ${Math.round(e.elapsedSeconds / 60)} 分钟` });
      return {
        cause: 'timeLimit',
        title: '超过最长运行时长，作业被停止',
        evidence,
        suggestion:
          next > e.timeLimitMinutes
            ? `把最长运行时长延长到 ${minutes(next)}；长时间训练请定期保存检查点，以便从中断处继续。`
            : '已是平台允许的最长时长：请定期保存检查点，拆成多个作业接续运行。',
        change: next > e.timeLimitMinutes ? { maxDurationMinutes: next } : undefined,
      };
    },
  },
  {
    cause: 'missingModule',
    rule: (e) => {
      const hit = lastMatch(e.logTail, /(?:ModuleNotFoundError|ImportError): No module named '([^']+)'/);
      if (!hit) return undefined;
      const mod = hit.m[1];
      return {
        cause: 'missingModule',
        title: `缺少 Python 模块 ${mod}`,
        evidence: [fromLog(hit.line)],
        suggestion: `选择包含 ${mod.split('.')[0]} 的镜像，或在启动命令前执行 pip install --user ${mod.split('.')[0]}。`,
      };
    },
  },
  {
    cause: 'missingFile',
    rule: (e) => {
      const hit = lastMatch(e.logTail, /(?:FileNotFoundError|No such file or directory)[^'"]*['"]([^'"]+)['"]|(\S+): No such file or directory/);
      if (!hit) return undefined;
      const file = hit.m[1] ?? hit.m[2];
      return {
        cause: 'missingFile',
        title: `找不到文件 ${file}`,
        evidence: [fromLog(hit.line)],
        suggestion: '检查路径是否正确：相对路径从工作目录算起；数据集和模型请在表单中挂载，并使用 $SUANLI_DATASET_1 等变量给出的路径。',
      };
    },
  },
  {
    cause: 'pythonException',
    rule: (e) => {
      const trace = lastMatch(e.logTail, /^Traceback \(most recent call last\):/);
      if (!trace) return undefined;
      // The exception is the first unindented line after the traceback's frames.
      const after = e.logTail.filter((l) => l.line > trace.line.line);
      const exc = after.find((l) => /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b/.test(l.text) || /^[A-Za-z_][\w.]*: /.test(l.text));
      const frame = [...after].reverse().find((l) => /^\s+File "/.test(l.text) && (!exc || l.line < exc.line));
      const evidence = [exc, frame].filter((l): l is LogLine => l !== undefined).map(fromLog);
      return {
        cause: 'pythonException',
        title: exc ? `程序抛出异常：${exc.text.trim().split(':')[0]}` : '程序抛出 Python 异常',
        evidence: evidence.length ? evidence : [fromLog(trace.line)],
        suggestion: '打开日志中异常所在的行，按提示修改代码或参数后重新提交。',
      };
    },
  },
  {
    cause: 'killed',
    rule: (e) => {
      const line = lastMatch(e.logTail, /(^|\s)Killed(\s|$)/);
      if (!killed(e) && !line) return undefined;
      const evidence: DiagnosisEvidence[] = [{ text: e.signal === 9 ? '进程收到 SIGKILL 信号' : `退出码 ${e.exitCode ?? 137}（被 SIGKILL 终止）` }];
      if (line) evidence.push(fromLog(line.line));
      if (e.maxRssMB != null) evidence.push({ text: `内存峰值 ${gib(e.maxRssMB)}` });
      return {
        cause: 'killed',
        title: '进程被强制终止',
        evidence,
        suggestion: '常见原因是内存不足：减小数据批量或申请更多资源后重试；如非此原因，请提交工单。',
      };
    },
  },
  schedulerFault('nodeFailure', ['NodeFail', 'NodeDown', 'BatchHostFail'], '作业所在节点故障'),
  schedulerFault('launchFailure', ['JobLaunchFailure', 'BootFail', 'SystemFailure'], '调度系统未能启动作业'),
  {
    cause: 'cancelledOutside',
    rule: (e) =>
      e.state === 'STOPPED' && e.reason === 'Cancelled'
        ? {
            cause: 'cancelledOutside',
            title: '作业在平台外被取消',
            evidence: [{ text: '调度系统记录：CANCELLED（不是在控制台中停止的）' }],
            suggestion: '可能是管理员、调度系统或您在登录节点上执行了 scancel；如不清楚原因，请提交工单询问。',
          }
        : undefined,
  },
  {
    cause: 'exitCode',
    rule: (e) => {
      if (e.state !== 'FAILED') return undefined;
      const last = [...e.logTail].reverse().find((l) => l.text.trim() !== '');
      const evidence: DiagnosisEvidence[] = [{ text: e.exitCode != null ? `退出码 ${e.exitCode}` : '命令以非零退出码结束' }];
      if (last) evidence.push(fromLog(last));
      return {
        cause: 'exitCode',
        title: e.exitCode != null ? `命令以退出码 ${e.exitCode} 结束` : '命令以非零退出码结束',
        evidence,
        suggestion: '查看日志最后几行的错误信息；在本地或交互式开发环境中先用小数据跑通再提交。',
      };
    },
  },
];

/** The diagnosis of a task that ended badly, or undefined when no rule recognises it (a user's stop). */
export function diagnose(e: JobEvidence): Diagnosis | undefined {
  for (const { rule } of RULES) {
    const d = rule(e);
    if (d) return d;
  }
  return undefined;
}
