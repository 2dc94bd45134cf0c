import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuditPage, AuditPageQuery, Envelope } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { AuditService } from './audit.service';

/**
 * Registered under ADMIN_BASE, operators only. One read; there is deliberately no route that changes or
 * deletes an entry (audit.api.test.ts tries the methods and paths one would).
 */
export function auditRoutes(audit: AuditService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['admin'];
    app.post('/audit-logs/action/page', {
      config: { role: 'operator' },
      schema: { tags, summary: '审计日志（运营人员；最新的在前）', body: AuditPageQuery, response: { 200: Envelope(AuditPage) } },
      handler: async (req) => ok(await audit.page(principal(req), req.body)),
    });
  };
}
