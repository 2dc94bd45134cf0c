import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EshellApi, EshellApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { AccessLogService } from '../access-log/access-log.service';
import type { EshellService } from './eshell.service';

export function eshellRoutes(eshell: EshellService, accessLog: AccessLogService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      EshellApi,
      EshellApiSchemas,
      {
        centers: async (req) => ok(eshell.centers(principal(req))),
        sessions: async (req) => ok(await accessLog.page(principal(req), req.body)),
        allSessions: async (req) => ok(await accessLog.pageAll(principal(req), req.body)),
      },
      ['eshell'],
    );
  };
}
