import { isTerminal, type JobState } from '@suanli/contracts';
import type { JobStatus } from '../../executors/executor';
import { reasonText } from './reasons';
import { UNDERPOWERED_REASON } from './task-compute';

export interface Transition {
  state: JobState;
  reason: string;
}

/**
 * The `job_states` machine (design/domain.md) as one pure function: where a task in `current` goes when its
 * scheduler reports `status`. `null` = nothing to record. A terminal task never moves; a job nobody knows
 * (`status` undefined) is never guessed as failed; a task the user is stopping stays STOPPING until its job
 * has ended, and a job that was killed on the way out counts as stopped, not failed. A stop metering asked for
 * (`stopCause` 'underpowered': the owner's compute power ran out) ends UNDERPOWERED, not STOPPED.
 */
export function nextState(current: JobState, status: JobStatus | undefined, stopCause: 'user' | 'underpowered' = 'user'): Transition | null {
  if (isTerminal(current) || !status) return null;
  const reason = reasonText(status.reason, status.exitCode, status.phase !== 'QUEUED' && status.phase !== 'STARTING' && status.phase !== 'RUNNING');
  switch (status.phase) {
    case 'QUEUED':
    case 'STARTING':
    case 'RUNNING':
      if (current === 'STOPPING') return null;
      return { state: status.phase, reason: status.phase === 'QUEUED' ? reason : '' };
    case 'SUCCEEDED':
      return { state: 'SUCCEEDED', reason: '' };
    case 'STOPPED':
      if (current === 'STOPPING' && stopCause === 'underpowered') return { state: 'UNDERPOWERED', reason: UNDERPOWERED_REASON };
      return { state: 'STOPPED', reason: current === 'STOPPING' ? '用户停止' : reason || reasonText('Cancelled', null, true) };
    case 'FAILED':
      if (current === 'STOPPING' && stopCause === 'underpowered') return { state: 'UNDERPOWERED', reason: UNDERPOWERED_REASON };
      if (current === 'STOPPING') return { state: 'STOPPED', reason: '用户停止' };
      return { state: 'FAILED', reason: reason || (status.exitCode != null ? `退出码 ${status.exitCode}` : '运行失败') };
  }
}
