import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuditApi, AuditApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { AuditService } from './audit.service';

/**
 * Registered under ADMIN_BASE, operators only (the descriptor's role). One read; there is deliberately no
 * route that changes or deletes an entry (audit.api.test.ts tries the methods and paths one would).
 */
export function auditRoutes(audit: AuditService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(app, AuditApi, AuditApiSchemas, { page: async (req) => ok(await audit.page(principal(req), req.body)) }, ['admin']);
  };
}
