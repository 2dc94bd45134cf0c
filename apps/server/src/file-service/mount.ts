import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { fileServicePlugin } from './app';
import type { FileService } from './file.service';
import { inProcessIdentity } from './identity';

/**
 * Embedded default: one file service per center that has no external `fileServiceUrl`, at
 * `/file-service/{centerId}` — the same plugin the standalone process runs, with the in-process identity.
 * The gateway's token hook is told these routes are public because each one authenticates itself (the same
 * session check, plus the cluster account of that center). They are `bulk` for the per-IP limit: uploading
 * a folder is one request per file or 8 MiB chunk, far beyond what an API client sends.
 */
export async function mountFileServices(app: FastifyInstance, ctx: AppContext) {
  app.decorate('fileServices', new Map<string, FileService>());
  for (const center of ctx.centers.filter((c) => !c.fileServiceUrl)) {
    await app.register(
      async (scope) => {
        scope.addHook('onRoute', (route) => {
          route.config = { ...(route.config as object), public: true, bulk: true };
        });
        await scope.register(fileServicePlugin, {
          center,
          identity: inProcessIdentity(ctx, center),
          clock: ctx.clock,
          registry: app.fileServices,
        });
      },
      { prefix: `/file-service/${center.id}` },
    );
  }
}
