import { isTerminal, TRAINING_TYPES, type JobState, type Task, type TrainingType } from '@suanli/contracts';
import { Tag, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useJobStates } from '../../app/dicts';
import { dayjs } from '../../shared/dayjs';

/** What each of the three list pages is called, where it lives and what its form creates. */
export const TYPE_INFO: Record<TrainingType, { label: string; path: string; description: string }> = {
  train: { label: '单机训练', path: '/training', description: '在所选分中心提交单机训练任务，查看运行状态、日志与训练曲线。' },
  develop: { label: '交互式开发', path: '/training/develop', description: '申请带加速卡的交互式开发环境，在浏览器中编写与调试训练代码。' },
  distributed: { label: '分布式训练', path: '/training/distributed', description: '跨多节点、多卡提交分布式训练任务，统一查看运行情况。' },
};

export function isTrainingType(v: string | undefined): v is TrainingType {
  return (TRAINING_TYPES as readonly string[]).includes(v ?? '');
}

export const STATE_COLORS: Record<JobState, string> = {
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
export function StateTag({ state, reason, testId = 'training-state' }: { state: JobState; reason?: string; testId?: string }) {
  const states = useJobStates();
  const tag = (
    <Tag color={STATE_COLORS[state] ?? 'default'} data-testid={testId} data-state={state} style={{ marginInlineEnd: 0 }}>
      {states.labels[state] ?? state}
    </Tag>
  );
  return reason ? <Tooltip title={reason}>{tag}</Tooltip> : tag;
}

export const formatTime = (v: number | null | undefined) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—');

/** 1天2小时3分 / 2小时3分4秒 / 4秒. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d > 0) return `${d}天${h}小时${m}分`;
  if (h > 0) return `${h}小时${m}分${s}秒`;
  if (m > 0) return `${m}分${s}秒`;
  return `${s}秒`;
}

/** Running time: start → end, or → now while it runs; `—` before it started. */
export function runningTime(task: Pick<Task, 'startTime' | 'endTime'>, now: number): string {
  if (!task.startTime) return '—';
  return formatDuration((task.endTime ?? now) - task.startTime);
}

/** 90 → 1小时30分钟. */
export function formatMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h}小时${m ? `${m}分钟` : ''}` : `${m}分钟`;
}

/** The card request as one phrase: `A100 × 2 卡`, distributed `A100 × 2 卡 × 4 节点`. */
export function cardsText(task: Pick<Task, 'cardTypeName' | 'cardTypeId' | 'cardNum' | 'nodeNum' | 'type'>): string {
  const base = `${task.cardTypeName || task.cardTypeId} × ${task.cardNum} 卡`;
  return task.type === 'distributed' || task.nodeNum > 1 ? `${base} × ${task.nodeNum} 节点` : base;
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
