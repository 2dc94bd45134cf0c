import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminCenterApi, AdminCenterApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { CenterService } from './center.service';

/** 运营管理 › 分中心, registered under ADMIN_BASE: every route for operators only (1020 before validation). */
export function centerRoutes(centers: CenterService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      AdminCenterApi,
      AdminCenterApiSchemas,
      {
        list: async (req) => ok(await centers.list(principal(req))),
        setStatus: async (req) => ok(await centers.setStatus(principal(req), req.params.id, req.body, req.ip)),
        setPackages: async (req) => ok(await centers.setPackages(principal(req), req.params.id, req.body, req.ip)),
      },
      ['admin'],
    );
  };
}
