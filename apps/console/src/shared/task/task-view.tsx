import { isTerminal, type JobState, type Task } from '@suanli/contracts';
import { Tag, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useJobStates } from '../../app/dicts';
import { formatDuration } from '../time';

/** How every task page draws a state, whichever family the task is of. */
const STATE_COLORS: Record<JobState, string> = {
  CREATED: 'default',
  SUBMITTING: 'processing',
  SUBMIT_FAILED: 'error',
  QUEUED: 'gold',
  STARTING: 'processing',
  RUNNING: 'blue',
  STOPPING: 'orange',
  STOPPED: 'default',
  SUCCEEDED: 'success',
  FAILED: 'error',
  UNDERPOWERED: 'magenta',
};

/** States in which the job's process exists, so its log and metrics files grow. */
export const ACTIVE_STATES: readonly JobState[] = ['STARTING', 'RUNNING', 'STOPPING'];

/** A stop is offered while the task is not terminal and not already stopping. */
export const canStop = (s: JobState) => !isTerminal(s) && s !== 'STOPPING';

/** The state as the `job_states` dictionary names it, colored, with its reason on hover. */
export function StateTag({ state, reason, testId }: { state: JobState; reason?: string; testId: string }) {
  const states = useJobStates();
  const tag = (
    <Tag color={STATE_COLORS[state] ?? 'default'} data-testid={testId} data-state={state} style={{ marginInlineEnd: 0 }}>
      {states.labels[state] ?? state}
    </Tag>
  );
  return reason ? <Tooltip title={reason}>{tag}</Tooltip> : tag;
}

/** Running time: start → end, or → now while it runs; `—` before it started. */
export function runningTime(task: Pick<Task, 'startTime' | 'endTime'>, now: number): string {
  if (!task.startTime) return '—';
  return formatDuration((task.endTime ?? now) - task.startTime);
}

/** A maximum run time: 90 → 1小时30分钟. */
export function formatMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h}小时${m ? `${m}分钟` : ''}` : `${m}分钟`;
}

/** A clock for running times, ticking only while `live` (a local timer; no server call). */
export function useNow(live: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [live, everyMs]);
  return now;
}
