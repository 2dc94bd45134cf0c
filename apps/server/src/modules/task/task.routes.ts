import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, IdParams, Null, Page, Task, TaskDetail, TaskLog, TaskLogQuery, TaskMetrics, TaskMetricsQuery, TaskPageQuery, TaskResubmit, type TaskKind } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { TaskQueries } from './task-queries';
import type { TaskService } from './task.service';

/** What the shared task calls use of the task module: reads from the access/query part, changes from the engine. */
export interface TaskCalls {
  queries: Pick<TaskQueries, 'page' | 'detail' | 'readLog' | 'openLog' | 'readMetrics'>;
  service: Pick<TaskService, 'stop' | 'remove'>;
}

/**
 * The calls every task family shares, registered by each family's routes plugin under its own base
 * (training: /gateway/training/api/v1/tasks…, slurm: /gateway/slurm/api/v1/tasks…). `resubmit` is the
 * family's own (it re-runs the family's form rules).
 */
export function taskRoutes(kind: TaskKind, { queries, service }: TaskCalls, resubmit: (p: ReturnType<typeof principal>, id: string, clientRequestId?: string) => Promise<Task>): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = [kind === 'training' ? 'training' : 'slurm'];
    const what = kind === 'training' ? '训练任务' : 'Slurm 任务';

    app.post('/tasks/action/page', {
      schema: { tags, summary: `${what}列表（分页，按类型、状态、名称筛选）`, body: TaskPageQuery, response: { 200: Envelope(Page(Task)) } },
      handler: async (req) => ok(await queries.page(principal(req), kind, req.body)),
    });
    app.get('/tasks/:id', {
      schema: { tags, summary: `${what}详情（含状态变化时间线）`, params: IdParams, response: { 200: Envelope(TaskDetail) } },
      handler: async (req) => ok(await queries.detail(principal(req), kind, req.params.id)),
    });
    app.post('/tasks/:id/stop', {
      schema: { tags, summary: `停止${what}`, params: IdParams, response: { 200: Envelope(Task) } },
      handler: async (req) => ok(await service.stop(principal(req), kind, req.params.id)),
    });
    // The body is optional (older clients send none, which Fastify validates as null).
    app.post('/tasks/:id/resubmit', {
      schema: { tags, summary: `以相同参数重新提交${what}（同一 clientRequestId 一天内只提交一次）`, params: IdParams, body: Type.Union([TaskResubmit, Type.Null()]), response: { 200: Envelope(Task) } },
      handler: async (req) => ok(await resubmit(principal(req), req.params.id, req.body?.clientRequestId)),
    });
    app.delete('/tasks/:id', {
      schema: { tags, summary: `删除已结束的${what}`, params: IdParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await service.remove(principal(req), kind, req.params.id)),
    });
    app.get('/tasks/:id/log', {
      schema: { tags, summary: `${what}日志（从 offset 起的一段，运行中可继续追读）`, params: IdParams, querystring: TaskLogQuery, response: { 200: Envelope(TaskLog) } },
      handler: async (req) => ok(await queries.readLog(principal(req), kind, req.params.id, req.query)),
    });
    app.get('/tasks/:id/log/download', {
      schema: { tags, summary: `下载${what}日志`, params: IdParams, response: { 200: Type.Unknown() } },
      handler: async (req, reply) => {
        const log = await queries.openLog(principal(req), kind, req.params.id);
        return reply
          .header('content-type', 'text/plain; charset=utf-8')
          .header('content-length', String(log.size))
          .header('content-disposition', `attachment; filename="${log.name}"`)
          .send(log.stream);
      },
    });
    app.get('/tasks/:id/metrics', {
      schema: { tags, summary: `${what}训练曲线数据（$SUANLI_METRICS_FILE 中的 JSON 行）`, params: IdParams, querystring: TaskMetricsQuery, response: { 200: Envelope(TaskMetrics) } },
      handler: async (req) => ok(await queries.readMetrics(principal(req), kind, req.params.id, req.query.offset)),
    });
  };
}
