import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccessSessionAdminPage, AccessSessionPage, AccessSessionQuery, Envelope, ShellCenterList } from '@suanli/contracts';
import { principal } from '../../plugins/auth';
import { ok } from '../../lib/reply';
import type { AccessLogService } from '../access-log/access-log.service';
import type { EshellService } from './eshell.service';

export function eshellRoutes(eshell: EshellService, accessLog: AccessLogService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['eshell'];
    app.get('/centers', {
      schema: { tags, summary: '可打开终端的分中心', response: { 200: Envelope(ShellCenterList) } },
      handler: async (req) => ok(eshell.centers(principal(req))),
    });
    app.post('/session/page', {
      schema: { tags, summary: '我的终端与开发环境访问记录', body: AccessSessionQuery, response: { 200: Envelope(AccessSessionPage) } },
      handler: async (req) => ok(await accessLog.page(principal(req), req.body)),
    });
    app.post('/admin/session/page', {
      config: { role: 'operator' },
      schema: { tags, summary: '全部用户的终端与开发环境访问记录（运营人员）', body: AccessSessionQuery, response: { 200: Envelope(AccessSessionAdminPage) } },
      handler: async (req) => ok(await accessLog.pageAll(principal(req), req.body)),
    });
  };
}
