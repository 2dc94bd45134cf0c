import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ResourceApi, ResourceApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { ResourceService } from './resource.service';

/** Registered under RESOURCE_BASE. */
export function resourceRoutes(resources: ResourceService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      ResourceApi,
      ResourceApiSchemas,
      {
        overview: async (req) => ok(await resources.overview(principal(req))),
        utilization: async (req) => {
          principal(req);
          return ok(await resources.utilization(req.query.hours));
        },
        vendors: async (req) => ok(await resources.vendors(principal(req))),
        cardHours: async (req) => ok(await resources.cardHours(principal(req), req.query.days)),
      },
      ['resource'],
    );
  };
}
