/**
 * 科学计算 › 任务管理 calls (docs/plan/9.md, base SLURM_BASE): creating a Slurm task, saving one as a
 * template, and the task calls every family shares (under this base they only see kind `slurm`).
 */
import {
  SLURM_BASE,
  type SlurmTaskCreate,
  type SlurmTemplate,
  type SlurmTemplateFromTask,
  type Task,
} from '@suanli/contracts';
import { request } from '../../app/request';
import { taskCalls } from '../../shared/task/task-calls';

/** The calls every task family shares (page, get, stop, resubmit, delete, log) under SLURM_BASE. */
export const slurmTasks = taskCalls(request, SLURM_BASE);

export function createSlurmTask(body: SlurmTaskCreate): Promise<Task> {
  return request.post<Task>(`${SLURM_BASE}/tasks`, { data: body });
}

/** 另存为模板: the task's script and resources as a new template of the caller's. */
export function saveSlurmTaskAsTemplate(id: string, body: SlurmTemplateFromTask): Promise<SlurmTemplate> {
  return request.post<SlurmTemplate>(`${SLURM_BASE}/tasks/${encodeURIComponent(id)}/save-as-template`, { data: body });
}
