import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SlurmApi, SlurmApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import { taskRoutes, type TaskCalls } from '../task/task.routes';
import type { SlurmTemplateService } from './slurm-template.service';
import type { SlurmService } from './slurm.service';
import { named } from '../../lib/named-plugin';

/** Registered under SLURM_BASE: templates, creating a task, and the task calls every family shares. */
export function slurmRoutes(slurm: SlurmService, templates: SlurmTemplateService, tasks: TaskCalls): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      SlurmApi,
      SlurmApiSchemas,
      {
        templatePage: async (req) => ok(await templates.page(principal(req), req.body)),
        template: async (req) => ok(await templates.get(principal(req), req.params.id)),
        createTemplate: async (req) => ok(await templates.create(principal(req), req.body)),
        updateTemplate: async (req) => ok(await templates.update(principal(req), req.params.id, req.body)),
        removeTemplate: async (req) => ok(await templates.remove(principal(req), req.params.id)),
        create: async (req) => ok(await slurm.create(principal(req), req.body)),
        saveAsTemplate: async (req) => ok(await templates.fromTask(principal(req), req.params.id, req.body)),
      },
      ['slurm'],
    );
    await app.register(named(taskRoutes('slurm', tasks, (p, id, clientRequestId, change) => slurm.resubmit(p, id, clientRequestId, change)), 'slurm tasks'));
  };
}
