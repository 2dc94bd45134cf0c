import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { FoundationApi, FoundationApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import type { FoundationService } from './foundation.service';

/** The browser-facing origin of this gateway, whichever host name the user reached it by. */
const requestOrigin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

/** Registered under FOUNDATION_BASE. */
export function foundationRoutes(service: FoundationService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      FoundationApi,
      FoundationApiSchemas,
      {
        centers: async (req) => ok(await service.list(requestOrigin(req))),
        center: async (req) => ok(await service.detail(req.params.id, requestOrigin(req))),
        dict: async (req) => ok(service.dict(req.params.dictName)),
      },
      ['foundation'],
    );
  };
}
