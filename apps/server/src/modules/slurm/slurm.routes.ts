import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, IdParams, Null, Page, SlurmTaskCreate, SlurmTemplate, SlurmTemplateFromTask, SlurmTemplateSave, Task, TemplatePageQuery } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import { taskRoutes, type TaskCalls } from '../task/task.routes';
import type { SlurmTemplateService } from './slurm-template.service';
import type { SlurmService } from './slurm.service';

/** Registered under SLURM_BASE: templates, creating a task, and the task calls every family shares. */
export function slurmRoutes(slurm: SlurmService, templates: SlurmTemplateService, tasks: TaskCalls): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['slurm'];
    app.post('/templates/action/page', {
      schema: { tags, summary: '任务模板列表（平台模板与我的模板，按名称、应用类别、来源筛选）', body: TemplatePageQuery, response: { 200: Envelope(Page(SlurmTemplate)) } },
      handler: async (req) => ok(await templates.page(principal(req), req.body)),
    });
    app.get('/templates/:id', {
      schema: { tags, summary: '任务模板详情', params: IdParams, response: { 200: Envelope(SlurmTemplate) } },
      handler: async (req) => ok(await templates.get(principal(req), req.params.id)),
    });
    app.post('/templates', {
      schema: { tags, summary: '新建我的任务模板', body: SlurmTemplateSave, response: { 200: Envelope(SlurmTemplate) } },
      handler: async (req) => ok(await templates.create(principal(req), req.body)),
    });
    app.put('/templates/:id', {
      schema: { tags, summary: '修改我的任务模板（平台模板只读）', params: IdParams, body: SlurmTemplateSave, response: { 200: Envelope(SlurmTemplate) } },
      handler: async (req) => ok(await templates.update(principal(req), req.params.id, req.body)),
    });
    app.delete('/templates/:id', {
      schema: { tags, summary: '删除我的任务模板（平台模板只读）', params: IdParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await templates.remove(principal(req), req.params.id)),
    });
    app.post('/tasks', {
      schema: { tags, summary: '创建 Slurm 任务（由模板或自定义脚本）并提交（同一 clientRequestId 一天内只提交一次）', body: SlurmTaskCreate, response: { 200: Envelope(Task) } },
      handler: async (req) => ok(await slurm.create(principal(req), req.body)),
    });
    app.post('/tasks/:id/save-as-template', {
      schema: { tags, summary: '将 Slurm 任务的脚本与资源保存为我的模板', params: IdParams, body: SlurmTemplateFromTask, response: { 200: Envelope(SlurmTemplate) } },
      handler: async (req) => ok(await templates.fromTask(principal(req), req.params.id, req.body)),
    });
    await app.register(taskRoutes('slurm', tasks, (p, id, clientRequestId) => slurm.resubmit(p, id, clientRequestId)));
  };
}
