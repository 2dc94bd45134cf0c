import { type Static } from '@sinclair/typebox';
import { IdParams, Null, Page } from './common';
import { route, type SchemasOf } from './route';
import { SLURM_BASE, SlurmTaskCreate, SlurmTemplate, SlurmTemplateFromTask, SlurmTemplateSave, Task, TemplatePageQuery } from './task';

export const SlurmTemplatePage = Page(SlurmTemplate);
export type SlurmTemplatePage = Static<typeof SlurmTemplatePage>;

/**
 * 科学计算 (SLURM_BASE): task templates and creating a Slurm task; the task calls both families share are
 * SlurmTaskApi. Platform templates are read-only (2102).
 */
export const SlurmApi = {
  templatePage: route<{ body: typeof TemplatePageQuery; response: typeof SlurmTemplatePage }>('POST', SLURM_BASE, '/templates/action/page'),
  template: route<{ params: typeof IdParams; response: typeof SlurmTemplate }>('GET', SLURM_BASE, '/templates/:id'),
  createTemplate: route<{ body: typeof SlurmTemplateSave; response: typeof SlurmTemplate }>('POST', SLURM_BASE, '/templates'),
  updateTemplate: route<{ params: typeof IdParams; body: typeof SlurmTemplateSave; response: typeof SlurmTemplate }>('PUT', SLURM_BASE, '/templates/:id'),
  removeTemplate: route<{ params: typeof IdParams; response: typeof Null }>('DELETE', SLURM_BASE, '/templates/:id'),
  create: route<{ body: typeof SlurmTaskCreate; response: typeof Task }>('POST', SLURM_BASE, '/tasks'),
  saveAsTemplate: route<{ params: typeof IdParams; body: typeof SlurmTemplateFromTask; response: typeof SlurmTemplate }>('POST', SLURM_BASE, '/tasks/:id/save-as-template'),
};

export const SlurmApiSchemas: SchemasOf<typeof SlurmApi> = {
  templatePage: { summary: '任务模板列表（平台模板与我的模板，按名称、应用类别、来源筛选）', body: TemplatePageQuery, response: SlurmTemplatePage },
  template: { summary: '任务模板详情', params: IdParams, response: SlurmTemplate },
  createTemplate: { summary: '新建我的任务模板', body: SlurmTemplateSave, response: SlurmTemplate },
  updateTemplate: { summary: '修改我的任务模板（平台模板只读）', params: IdParams, body: SlurmTemplateSave, response: SlurmTemplate },
  removeTemplate: { summary: '删除我的任务模板（平台模板只读）', params: IdParams, response: Null },
  create: { summary: '创建 Slurm 任务（由模板或自定义脚本）并提交（同一 clientRequestId 一天内只提交一次）', body: SlurmTaskCreate, response: Task },
  saveAsTemplate: { summary: '将 Slurm 任务的脚本与资源保存为我的模板', params: IdParams, body: SlurmTemplateFromTask, response: SlurmTemplate },
};
