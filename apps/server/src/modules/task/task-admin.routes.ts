import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminTaskApi, AdminTaskApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { TaskAdminService } from './task-admin.service';

/** 运营管理's task calls, registered under ADMIN_BASE: for operators only (1020 before validation). */
export function taskAdminRoutes(admin: TaskAdminService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      AdminTaskApi,
      AdminTaskApiSchemas,
      {
        stop: async (req) => ok(await admin.stop(principal(req), req.params.kind, req.params.id, req.body.reason, req.ip)),
      },
      ['admin'],
    );
  };
}
