/**
 * 科学计算 › 任务管理 calls (docs/plan/9.md), through the route descriptors: creating a Slurm task, saving one as
 * a template (SlurmApi), and the task calls every family shares (SlurmTaskApi: only kind `slurm`).
 */
import { OutsideJobApi, SlurmApi, SlurmTaskApi, type OutsideJobPage, type OutsideJobPageQuery, type SlurmTaskCreate, type SlurmTemplate, type SlurmTemplateFromTask, type Task } from '@suanli/contracts';
import { call } from '../../app/request';
import { taskCalls } from '../../shared/task/task-calls';

/** The calls every task family shares (page, get, stop, resubmit, delete, log) under SLURM_BASE. */
export const slurmTasks = taskCalls(SlurmTaskApi);

export function createSlurmTask(body: SlurmTaskCreate): Promise<Task> {
  return call(SlurmApi.create, { body });
}

/** 另存为模板: the task's script and resources as a new template of the caller's. */
export function saveSlurmTaskAsTemplate(id: string, body: SlurmTemplateFromTask): Promise<SlurmTemplate> {
  return call(SlurmApi.saveAsTemplate, { params: { id }, body });
}

/** 外部作业 (issue 25): the caller's jobs run on a center without the console, metered from its accounting. */
export function pageOutsideJobs(body: OutsideJobPageQuery): Promise<OutsideJobPage> {
  return call(OutsideJobApi.page, { body });
}
