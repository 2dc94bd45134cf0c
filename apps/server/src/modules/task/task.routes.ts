import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SlurmTaskApi, taskApiSchemas, TrainingTaskApi, type DiagnosisChange, type Task, type TaskKind } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { TaskQueries } from './task-queries';
import type { TaskService } from './task.service';

/** What the shared task calls use of the task module: reads from the access/query part, changes from the engine. */
export interface TaskCalls {
  queries: Pick<TaskQueries, 'page' | 'detail' | 'readLog' | 'openLog' | 'readMetrics' | 'compare'>;
  service: Pick<TaskService, 'stop' | 'remove'>;
}

/**
 * The calls every task family shares, registered by each family's routes plugin under its own base
 * (training: TrainingTaskApi, slurm: SlurmTaskApi). `resubmit` is the family's own (it re-runs the family's
 * form rules).
 */
export function taskRoutes(kind: TaskKind, { queries, service }: TaskCalls, resubmit: (p: ReturnType<typeof principal>, id: string, clientRequestId?: string, change?: DiagnosisChange) => Promise<Task>): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      kind === 'training' ? TrainingTaskApi : SlurmTaskApi,
      taskApiSchemas(kind === 'training' ? '训练任务' : 'Slurm 任务'),
      {
        page: async (req) => ok(await queries.page(principal(req), kind, req.body)),
        detail: async (req) => ok(await queries.detail(principal(req), kind, req.params.id)),
        stop: async (req) => ok(await service.stop(principal(req), kind, req.params.id)),
        resubmit: async (req) => ok(await resubmit(principal(req), req.params.id, req.body?.clientRequestId, req.body?.change)),
        remove: async (req) => ok(await service.remove(principal(req), kind, req.params.id)),
        log: async (req) => ok(await queries.readLog(principal(req), kind, req.params.id, req.query)),
        downloadLog: async (req, reply) => {
          const log = await queries.openLog(principal(req), kind, req.params.id);
          return reply
            .header('content-type', 'text/plain; charset=utf-8')
            .header('content-length', String(log.size))
            .header('content-disposition', `attachment; filename="${log.name}"`)
            .send(log.stream);
        },
        metrics: async (req) => ok(await queries.readMetrics(principal(req), kind, req.params.id, req.query.offset)),
        compare: async (req) => ok(await queries.compare(principal(req), kind, req.body.ids)),
      },
      [kind === 'training' ? 'training' : 'slurm'],
    );
  };
}
