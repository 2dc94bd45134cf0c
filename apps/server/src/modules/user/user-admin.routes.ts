import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminUser, AdminUserDetail, AdminUserPage, AdminUserPageQuery, AdminUserStatusBody, Envelope, IdParams } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { UserAdminService } from './user-admin.service';

/** 运营管理 › 用户, registered under ADMIN_BASE: every route for operators only (1020 before validation). */
export function userAdminRoutes(admin: UserAdminService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['admin'];
    const config = { role: 'operator' } as const;

    app.post('/users/action/page', {
      config,
      schema: { tags, summary: '查找用户（用户名、昵称、手机号、邮箱）', body: AdminUserPageQuery, response: { 200: Envelope(AdminUserPage) } },
      handler: async (req) => ok(await admin.page(principal(req), req.body)),
    });

    app.get('/users/:id', {
      config,
      schema: { tags, summary: '用户详情（角色、集群账号、运行中的任务）', params: IdParams, response: { 200: Envelope(AdminUserDetail) } },
      handler: async (req) => ok(await admin.detail(principal(req), req.params.id)),
    });

    app.post('/users/:id/disable', {
      config,
      schema: { tags, summary: '禁用账号（立即结束其所有会话）', params: IdParams, body: AdminUserStatusBody, response: { 200: Envelope(AdminUser) } },
      handler: async (req) => ok(await admin.disable(principal(req), req.params.id, req.body, req.ip)),
    });

    app.post('/users/:id/enable', {
      config,
      schema: { tags, summary: '启用账号', params: IdParams, body: AdminUserStatusBody, response: { 200: Envelope(AdminUser) } },
      handler: async (req) => ok(await admin.enable(principal(req), req.params.id, req.body, req.ip)),
    });
  };
}
