import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TrainingApi, TrainingApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import { taskRoutes, type TaskCalls } from '../task/task.routes';
import type { TaskQueries } from '../task/task-queries';
import type { IdeProxy } from './ide-proxy';
import type { TrainingService } from './training.service';
import { named } from '../../lib/named-plugin';

/** What the training routes use of the task module: the shared task calls, and SSH into a develop environment. */
export interface TrainingRouteTasks extends TaskCalls {
  queries: TaskCalls['queries'] & Pick<TaskQueries, 'sshCommand'>;
}

/** Registered under TRAINING_BASE. */
export function trainingRoutes(training: TrainingService, tasks: TrainingRouteTasks, ide: IdeProxy): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      TrainingApi,
      TrainingApiSchemas,
      {
        create: async (req) => ok(await training.create(principal(req), req.body)),
        placement: async (req) => ok(await training.place(principal(req), req.body)),
        images: async (req) => ok(await training.listImages(principal(req), req.query)),
        ssh: async (req) => ok(await tasks.queries.sshCommand(principal(req), req.params.id)),
        ideTicket: async (req) => ok(await ide.ticketFor(principal(req), req.params.id)),
      },
      ['training'],
    );
    await app.register(named(taskRoutes('training', tasks, (p, id, clientRequestId, change) => training.resubmit(p, id, clientRequestId, change)), 'training tasks'));
  };
}
