/**
 * 科学计算 › 任务管理 calls (docs/plan/9.md, base SLURM_BASE): creating a Slurm task, saving one as a
 * template, and the task calls every family shares (under this base they only see kind `slurm`). Log
 * reads that follow a running task are `silent`: the panel shows a failure in place instead of toasting
 * every 2 s.
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

const tasks = taskCalls(request, SLURM_BASE);
export const pageSlurmTasks = tasks.page;
export const getSlurmTask = tasks.get;
export const stopSlurmTask = tasks.stop;
export const resubmitSlurmTask = tasks.resubmit;
export const deleteSlurmTask = tasks.remove;
export const readSlurmTaskLog = tasks.readLog;
export const downloadSlurmTaskLog = tasks.downloadLog;

export function createSlurmTask(body: SlurmTaskCreate): Promise<Task> {
  return request.post<Task>(`${SLURM_BASE}/tasks`, { data: body });
}

/** 另存为模板: the task's script and resources as a new template of the caller's. */
export function saveSlurmTaskAsTemplate(id: string, body: SlurmTemplateFromTask): Promise<SlurmTemplate> {
  return request.post<SlurmTemplate>(`${SLURM_BASE}/tasks/${encodeURIComponent(id)}/save-as-template`, { data: body });
}
