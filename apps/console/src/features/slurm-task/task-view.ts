import type { SlurmTaskType, Task } from '@suanli/contracts';
import { queryKeys } from '../../app/query-keys';
import type { TaskFamily } from '../../shared/task/task-family';
import { slurmTasks } from './api';

/** The two ways to make a Slurm task (`/slurm-task/task/:type`). */
export const SLURM_TYPE_LABELS: Record<SlurmTaskType, string> = { template: '模板任务', custom: '自定义脚本' };

export function isSlurmType(v: string | undefined): v is SlurmTaskType {
  return v === 'template' || v === 'custom';
}

export const LIST_PATH = '/slurm-task';
/** 任务对比 of these tasks (2–5 ids of one type, in the order picked). */
export const comparePath = (ids: string[]) => `/slurm-task/compare?ids=${ids.map(encodeURIComponent).join(',')}`;
export const formPath = (type: SlurmTaskType) => `/slurm-task/task/${type}`;
/** 使用此模板: the form with the template chosen. */
export const templateFormPath = (templateId: string) => `${formPath('template')}?templateId=${encodeURIComponent(templateId)}`;

/** Slurm tasks in the task kit (shared/task): testids `slurm-…`. */
export const SLURM: TaskFamily = {
  calls: slurmTasks,
  keys: queryKeys.slurmTask,
  testId: 'slurm',
  typeLabels: SLURM_TYPE_LABELS,
  detailPath: (t: Pick<Task, 'type' | 'id'>) => `/slurm-task/detail/${isSlurmType(t.type) ? t.type : 'custom'}/${encodeURIComponent(t.id)}`,
};
