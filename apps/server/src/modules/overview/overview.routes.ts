import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminOverviewApi, AdminOverviewApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { OverviewService } from './overview.service';

/** 运营管理 › 平台概览, registered under ADMIN_BASE: for operators only (1020 before validation). */
export function overviewRoutes(overview: OverviewService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(app, AdminOverviewApi, AdminOverviewApiSchemas, { get: async (req) => ok(await overview.get(principal(req), req.query)) }, ['admin']);
  };
}
