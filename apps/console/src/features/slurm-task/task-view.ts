import type { SlurmTaskType, Task } from '@suanli/contracts';

/** The two ways to make a Slurm task (`/slurm-task/task/:type`). */
export const SLURM_TYPE_LABELS: Record<SlurmTaskType, string> = { template: '模板任务', custom: '自定义脚本' };

export function isSlurmType(v: string | undefined): v is SlurmTaskType {
  return v === 'template' || v === 'custom';
}

export const LIST_PATH = '/slurm-task';
export const detailPath = (t: Pick<Task, 'type' | 'id'>) => `/slurm-task/detail/${isSlurmType(t.type) ? t.type : 'custom'}/${encodeURIComponent(t.id)}`;
export const formPath = (type: SlurmTaskType) => `/slurm-task/task/${type}`;
