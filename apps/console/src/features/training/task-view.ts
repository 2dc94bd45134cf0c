import { TRAINING_TYPES, type Task, type TrainingType } from '@suanli/contracts';
import { queryKeys } from '../../app/query-keys';
import type { TaskFamily } from '../../shared/task/task-family';
import { trainingTasks } from './api';

/** What each of the three list pages is called, where it lives and what its form creates. */
export const TYPE_INFO: Record<TrainingType, { label: string; path: string; description: string }> = {
  train: { label: '单机训练', path: '/training', description: '在所选分中心提交单机训练任务，查看运行状态、日志与训练曲线。' },
  develop: { label: '交互式开发', path: '/training/develop', description: '申请带加速卡的交互式开发环境，在浏览器中编写与调试训练代码。' },
  distributed: { label: '分布式训练', path: '/training/distributed', description: '跨多节点、多卡提交分布式训练任务，统一查看运行情况。' },
};

export function isTrainingType(v: string | undefined): v is TrainingType {
  return (TRAINING_TYPES as readonly string[]).includes(v ?? '');
}

export const formPath = (type: TrainingType) => `/training/task/${type}`;
/** 复制并重新提交: the form, filled from the task. */
export const copyPath = (t: Pick<Task, 'type' | 'id'>) => `/training/task/${t.type}?from=${encodeURIComponent(t.id)}`;

/** 任务对比 of these runs (2–5 task ids, in the order picked). */
export const comparePath = (ids: string[]) => `/training/compare?ids=${ids.map(encodeURIComponent).join(',')}`;

/** Training tasks in the task kit (shared/task): testids `training-…`. */
export const TRAINING: TaskFamily = {
  calls: trainingTasks,
  keys: queryKeys.training,
  testId: 'training',
  typeLabels: Object.fromEntries(TRAINING_TYPES.map((t) => [t, TYPE_INFO[t].label])),
  detailPath: (t) => `/training/detail/${t.type}/${encodeURIComponent(t.id)}`,
};

/** The card request as one phrase: `A100 × 2 卡`, distributed `A100 × 2 卡 × 4 节点`. */
export function cardsText(task: Pick<Task, 'cardTypeName' | 'cardTypeId' | 'cardNum' | 'nodeNum' | 'type'>): string {
  const base = `${task.cardTypeName || task.cardTypeId} × ${task.cardNum} 卡`;
  return task.type === 'distributed' || task.nodeNum > 1 ? `${base} × ${task.nodeNum} 节点` : base;
}
