import { formatCardHours, type Diagnosis, type DiagnosisChange, type Efficiency } from '@suanli/contracts';
import type { JobUsage } from '../../../executors/executor';
import { memoryMB } from '../../../executors/slurm/sbatch-options';
import { isOperatorStop } from '../reasons';
import type { TaskRow } from '../task.repository';
import { diagnose, type JobEvidence, type LogLine } from './rules';

/**
 * Issue 23 on a stored task: the evidence its end left (the scheduler's reason code, signal and usage the
 * poller stored, migration 0035; the log's last lines) turned into the diagnosis (rules.ts), the efficiency
 * report and its hint (EFFICIENCY_HINTS), and 按建议重新提交's change applied to the old parameters.
 */

type EndedRow = Pick<TaskRow, 'state' | 'reason' | 'reason_code' | 'exit_code' | 'exit_signal' | 'job_usage' | 'start_time' | 'end_time' | 'max_duration_min' | 'card_num' | 'node_num' | 'command' | 'kind'>;

export function usageOf(row: Pick<TaskRow, 'job_usage'>): JobUsage {
  return row.job_usage ? (JSON.parse(row.job_usage) as JobUsage) : {};
}

function elapsedSeconds(row: Pick<TaskRow, 'start_time' | 'end_time'>): number | null {
  return row.start_time != null && row.end_time != null ? Math.max(0, (Number(row.end_time) - Number(row.start_time)) / 1000) : null;
}

/** The memory a Slurm task's script asked for (`#SBATCH --mem`), when the scheduler did not say. */
function scriptMemMB(row: Pick<TaskRow, 'kind' | 'command'>): number | undefined {
  if (row.kind !== 'slurm') return undefined;
  const m = /^#SBATCH\s+--mem[= ](\S+)/m.exec(row.command);
  return m ? memoryMB(m[1]) : undefined;
}

export function evidenceOf(row: EndedRow, logTail: readonly LogLine[]): JobEvidence | undefined {
  if (row.state !== 'FAILED' && row.state !== 'STOPPED') return undefined;
  const usage = usageOf(row);
  return {
    state: row.state,
    reason: row.reason_code ?? undefined,
    exitCode: row.exit_code,
    signal: row.exit_signal,
    elapsedSeconds: elapsedSeconds(row),
    timeLimitMinutes: row.max_duration_min,
    maxRssMB: usage.maxRssMB ?? null,
    requestedMemMB: usage.requestedMemMB ?? scriptMemMB(row) ?? null,
    cardNum: row.card_num * row.node_num,
    logTail,
  };
}

/** The diagnosis of a FAILED or STOPPED task, or null (another state, or a stop from the console). */
export function diagnosisOf(row: EndedRow, logTail: readonly LogLine[]): Diagnosis | null {
  // A stop asked in the console is no failure (the state engine's 用户停止, task-state.ts; an operator's stop
  // with its reason): nothing to diagnose.
  if (row.state === 'STOPPED' && (row.reason === CONSOLE_STOP || isOperatorStop(row.reason))) return null;
  const e = evidenceOf(row, logTail);
  return e ? (diagnose(e) ?? null) : null;
}

const CONSOLE_STOP = '用户停止';

/** One hint for a task that used little of what it asked for: the first that matches. */
export const EFFICIENCY_HINTS: readonly ((f: Efficiency, cards: number) => string | undefined)[] = [
  (f) =>
    f.cpuEfficiency != null && f.cpus != null && f.cpus > 1 && f.elapsedSeconds >= 60 && f.cpuEfficiency < 0.25
      ? `CPU 利用率只有 ${pct(f.cpuEfficiency)}：申请了 ${f.cpus} 个核，平均只用了约 ${Math.max(1, Math.round(f.cpuEfficiency * f.cpus))} 个。请检查程序是否使用多线程/多进程（如 DataLoader 的 num_workers），或减少申请的资源。`
      : undefined,
  (f) =>
    f.memoryEfficiency != null && f.requestedMemMB != null && f.requestedMemMB >= 4096 && f.memoryEfficiency < 0.25
      ? `内存峰值只有申请量的 ${pct(f.memoryEfficiency)}：下次可申请约 ${Math.ceil(((f.maxRssMB ?? 0) * 1.5) / 1024)} GiB。`
      : undefined,
];

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** seff-like report of a task that ran and ended; null before. */
export function efficiencyOf(row: EndedRow): Efficiency | null {
  const elapsed = elapsedSeconds(row);
  if (elapsed == null || !['SUCCEEDED', 'FAILED', 'STOPPED', 'UNDERPOWERED'].includes(row.state)) return null;
  const u = usageOf(row);
  const requested = u.requestedMemMB ?? scriptMemMB(row) ?? null;
  const cards = row.card_num * row.node_num;
  const f: Efficiency = {
    elapsedSeconds: Math.round(elapsed),
    cpus: u.cpus ?? null,
    cpuSeconds: u.cpuSeconds ?? null,
    cpuEfficiency: u.cpuSeconds != null && u.cpus && elapsed > 0 ? round(u.cpuSeconds / (elapsed * u.cpus)) : null,
    maxRssMB: u.maxRssMB ?? null,
    requestedMemMB: requested,
    memoryEfficiency: u.maxRssMB != null && requested ? round(u.maxRssMB / requested) : null,
    cardHours: formatCardHours(Math.round(cards * elapsed)),
    acceleratorReported: false,
    hint: null,
  };
  for (const h of EFFICIENCY_HINTS) {
    const text = h(f, cards);
    if (text) return { ...f, hint: text };
  }
  return f;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** 按建议重新提交: the old parameters with the diagnosis's change (a Slurm script's `#SBATCH --mem` rewritten). */
export function withChange<T extends { kind: string; command: string; maxDurationMinutes: number; cardNum: number }>(t: T, change: DiagnosisChange | undefined): T {
  if (!change) return t;
  const out = { ...t };
  if (change.maxDurationMinutes) out.maxDurationMinutes = change.maxDurationMinutes;
  if (change.cardNum != null) out.cardNum = change.cardNum;
  if (change.memoryMB && t.kind === 'slurm') {
    const line = `#SBATCH --mem=${change.memoryMB}M`;
    out.command = /^#SBATCH\s+--mem[= ]\S+.*$/m.test(t.command)
      ? t.command.replace(/^#SBATCH\s+--mem[= ]\S+.*$/m, line)
      : t.command.replace(/^(#!.*\n)?/, (shebang) => `${shebang}${line}\n`);
  }
  return out;
}
