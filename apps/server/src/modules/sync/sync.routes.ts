import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SYNC_GRANT_HEADER, SyncApi, SyncApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { SyncJobService } from './sync.service';

/** Registered under SYNC_BASE. */
export function syncRoutes(jobs: SyncJobService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      SyncApi,
      SyncApiSchemas,
      {
        create: async (req) => ok(await jobs.create(principal(req), req.body)),
        page: async (req) => ok(await jobs.page(principal(req), req.body)),
        detail: async (req) => ok(await jobs.detail(principal(req), req.params.id)),
        cancel: async (req) => ok(await jobs.cancel(principal(req), req.params.id)),
        grant: async (req) => {
          const raw = req.headers[SYNC_GRANT_HEADER];
          return ok(await jobs.resolveGrant(typeof raw === 'string' ? raw : undefined, req.query.subCenterId));
        },
      },
      ['sync'],
    );
  };
}
