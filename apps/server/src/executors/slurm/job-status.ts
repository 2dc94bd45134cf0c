import type { JobPhase, JobStatus } from '../executor';
import { expandHostlist } from './hostlist';
import type { SlurmJob } from './v0038';

/** Slurm's job states (controller and accounting) → the platform's phases. */
const PHASE: Record<string, JobPhase> = {
  PENDING: 'QUEUED',
  REQUEUED: 'QUEUED',
  REQUEUE_HOLD: 'QUEUED',
  REQUEUE_FED: 'QUEUED',
  PREEMPTED: 'QUEUED',
  CONFIGURING: 'STARTING',
  RUNNING: 'RUNNING',
  COMPLETING: 'RUNNING',
  SUSPENDED: 'RUNNING',
  STAGE_OUT: 'RUNNING',
  SIGNALING: 'RUNNING',
  RESIZING: 'RUNNING',
  COMPLETED: 'SUCCEEDED',
  CANCELLED: 'STOPPED',
  REVOKED: 'STOPPED',
  FAILED: 'FAILED',
  NODE_FAIL: 'FAILED',
  OUT_OF_MEMORY: 'FAILED',
  TIMEOUT: 'FAILED',
  BOOT_FAIL: 'FAILED',
  DEADLINE: 'FAILED',
  SPECIAL_EXIT: 'FAILED',
};

/** The phases of a job that ended. */
export const ENDED: ReadonlySet<JobPhase> = new Set<JobPhase>(['SUCCEEDED', 'FAILED', 'STOPPED']);

/** Reason codes of ended jobs, in the words pending-reasons/reasons.ts knows. */
const ENDED_REASON: Record<string, string> = {
  TIMEOUT: 'TimeLimit',
  OUT_OF_MEMORY: 'OutOfMemory',
  NODE_FAIL: 'NodeFail',
  BOOT_FAIL: 'BootFail',
  DEADLINE: 'Deadline',
  PREEMPTED: 'Preempted',
  CANCELLED: 'Cancelled',
  REVOKED: 'Cancelled',
};

/**
 * Who ended a cancelled job, as accounting recorded it: the job's own account (its owner's `scancel` on the
 * login node — a stop in the console never gets here, the state engine says 用户停止), or anyone else (root,
 * SlurmUser, an operator: 管理员或调度系统). Unknown (the controller's record, no requester) stays `Cancelled`.
 */
function cancelReason(job: SlurmJob, owner: string | undefined): string {
  if (!job.cancelledBy || !owner) return 'Cancelled';
  return job.cancelledBy === owner ? 'CancelledByOwner' : 'CancelledByAdmin';
}

/**
 * A Slurm job → the platform's status. `owner` (the task's account) tells who cancelled a cancelled job. A PENDING job's `startTime` is the backfill estimate (in the
 * future), a running job's `endTime` is its limit: both are reported only where they mean what JobStatus
 * says. A job accounting still calls PREEMPTED (it left the controller without being requeued) ended.
 */
export function slurmJobStatus(job: SlurmJob, nowMs: number, owner?: string): JobStatus | undefined {
  let phase: JobPhase | undefined = PHASE[job.state];
  if (!phase) return undefined;
  if (job.state === 'PREEMPTED' && job.from === 'accounting') phase = 'FAILED';
  const ended = ENDED.has(phase);
  const exitCode = !ended ? undefined : job.signal ? 128 + job.signal : job.exitCode;
  let reason: string | undefined;
  if (phase === 'QUEUED') reason = job.reason || (job.state === 'PREEMPTED' ? 'Preempted' : undefined);
  else if (phase === 'STOPPED') reason = cancelReason(job, owner);
  else if (phase === 'FAILED') reason = ENDED_REASON[job.state] ?? (job.exitCode ? 'NonZeroExitCode' : job.reason || 'NonZeroExitCode');
  const ms = (s: number | null) => (s === null ? null : s * 1000);
  const status: JobStatus = { jobId: job.jobId, phase };
  if (reason) status.reason = reason;
  if (ended) status.exitCode = exitCode ?? null;
  // Issue 23's evidence: the signal (a job killed by the memory watch reads signal 9) and, from accounting,
  // what it used.
  if (ended && job.signal) status.signal = job.signal;
  if (ended && job.usage) status.usage = job.usage;
  if (phase === 'QUEUED') {
    const est = ms(job.startTime);
    status.estimatedStart = est !== null && est > nowMs ? est : null;
  } else {
    status.startTime = ms(job.startTime);
    if (ended) status.endTime = ms(job.endTime);
  }
  const nodes = expandHostlist(job.nodes);
  if (nodes.length && phase !== 'QUEUED') status.nodes = nodes;
  return status;
}

/**
 * A job Slurm's memory watch ended (`JobAcctGatherParams=OverMemoryKill`, how a site without the cgroup task
 * plugin enforces `--mem`) reads FAILED with reason `JobLaunchFailure` and signal 9 — not OUT_OF_MEMORY, which
 * only the cgroup plugin reports. Killed with a peak at or above the request, it was the memory limit.
 */
export function withMemoryKill(status: JobStatus): JobStatus {
  const u = status.usage;
  if (status.phase !== 'FAILED' || status.signal !== 9 || u?.maxRssMB == null || !u.requestedMemMB || u.maxRssMB < u.requestedMemMB) return status;
  return { ...status, reason: 'OutOfMemory' };
}
