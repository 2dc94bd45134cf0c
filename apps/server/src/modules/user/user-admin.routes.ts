import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminUserApi, AdminUserApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { UserAdminService } from './user-admin.service';

/** 运营管理 › 用户, registered under ADMIN_BASE: every route for operators only (1020 before validation). */
export function userAdminRoutes(admin: UserAdminService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      AdminUserApi,
      AdminUserApiSchemas,
      {
        page: async (req) => ok(await admin.page(principal(req), req.body)),
        detail: async (req) => ok(await admin.detail(principal(req), req.params.id)),
        disable: async (req) => ok(await admin.disable(principal(req), req.params.id, req.body, req.ip)),
        enable: async (req) => ok(await admin.enable(principal(req), req.params.id, req.body, req.ip)),
      },
      ['admin'],
    );
  };
}
