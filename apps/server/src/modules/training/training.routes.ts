import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, IdeTicket, IdParams, ImageItem, ImageQuery, Placement, PlacementQuery, Task, TaskSsh, TrainingTaskCreate } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import { taskRoutes, type TaskCalls } from '../task/task.routes';
import type { TaskQueries } from '../task/task-queries';
import type { IdeProxy } from './ide-proxy';
import type { TrainingService } from './training.service';

/** What the training routes use of the task module: the shared task calls, and SSH into a develop environment. */
export interface TrainingRouteTasks extends TaskCalls {
  queries: TaskCalls['queries'] & Pick<TaskQueries, 'sshCommand'>;
}

/** Registered under TRAINING_BASE. */
export function trainingRoutes(training: TrainingService, tasks: TrainingRouteTasks, ide: IdeProxy): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['training'];
    app.post('/tasks', {
      schema: { tags, summary: '创建训练任务（train / develop / distributed）并提交（同一 clientRequestId 一天内只提交一次）', body: TrainingTaskCreate, response: { 200: Envelope(Task) } },
      handler: async (req) => ok(await training.create(principal(req), req.body)),
    });
    app.post('/placement', {
      schema: { tags, summary: '智能调度预览：选择的分中心及原因', body: PlacementQuery, response: { 200: Envelope(Placement) } },
      handler: async (req) => ok(await training.place(principal(req), req.body)),
    });
    app.get('/images', {
      schema: { tags, summary: '镜像目录：公共镜像（按框架、卡型筛选）与我的私有镜像（visibility: private）', querystring: ImageQuery, response: { 200: Envelope(Type.Array(ImageItem)) } },
      handler: async (req) => ok(await training.listImages(principal(req), req.query)),
    });
    app.get('/tasks/:id/ssh', {
      schema: { tags, summary: 'SSH 登录运行中的开发环境（经登录节点进入作业分配；使用已安装到该分中心的密钥对）', params: IdParams, response: { 200: Envelope(TaskSsh) } },
      handler: async (req) => ok(await tasks.queries.sshCommand(principal(req), req.params.id)),
    });
    app.post('/tasks/:id/ide-ticket', {
      schema: { tags, summary: '打开开发环境：一分钟内有效的首跳链接（之后由限定路径的 Cookie 认证）', params: IdParams, response: { 200: Envelope(IdeTicket) } },
      handler: async (req) => ok(await ide.ticketFor(principal(req), req.params.id)),
    });
    await app.register(taskRoutes('training', tasks, (p, id, clientRequestId) => training.resubmit(p, id, clientRequestId)));
  };
}
