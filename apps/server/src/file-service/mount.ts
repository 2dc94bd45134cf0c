import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { fileServicePlugin } from './app';
import type { FileService } from './file.service';
import { inProcessIdentity, type FileIdentity, type GrantResolver, type StorageGrantResolver, type TeamMembership } from './identity';
import { HttpSyncSource, LocalSyncSource } from './sync-clients';
import type { SyncSourceFor } from './sync.routes';
import type { SyncReceiver } from './sync.service';
import type { AuthorizedKeysClient } from '../modules/keypair/authorized-keys.client';
import { AppError } from '../errors';
import { ErrorCode } from '@suanli/contracts';
import { named } from '../lib/named-plugin';

/**
 * Embedded default: one file service per center that has no external `fileServiceUrl`, at
 * `/file-service/{centerId}` — the same plugin the standalone process runs, with the in-process identity.
 * The gateway's token hook is told these routes are public because each one authenticates itself (the same
 * session check, plus the cluster account of that center). They are `bulk` for the per-IP limit: uploading
 * a folder is one request per file or 8 MiB chunk, far beyond what an API client sends.
 */
export async function mountFileServices(
  app: FastifyInstance,
  ctx: AppContext,
  local: {
    grants: GrantResolver;
    storageGrants: StorageGrantResolver;
    receivers: Map<string, SyncReceiver>;
    authorizedKeys: Map<string, AuthorizedKeysClient>;
    teams?: TeamMembership;
  },
) {
  app.decorate('fileServices', new Map<string, FileService>());
  const identities = new Map<string, FileIdentity>();
  // The source of a sync this process receives: a center served here is called in-process, any other
  // through its own file service's URL.
  const syncSourceFor: SyncSourceFor = (id, grant) => {
    const local = app.fileServices.get(id);
    const identity = identities.get(id);
    if (local && identity) return new LocalSyncSource(local.sync, identity, grant);
    const url = ctx.centers.find((c) => c.id === id)?.fileServiceUrl;
    if (!url) throw new AppError(ErrorCode.INTERNAL_FAILED, `未知的源分中心：${id}`);
    return new HttpSyncSource(url, grant);
  };
  for (const center of ctx.centers.filter((c) => !c.fileServiceUrl)) {
    const identity = inProcessIdentity(ctx, center, local.grants, local.storageGrants, local.teams);
    identities.set(center.id, identity);
    // The sync runner reaches this center's receiving side without HTTP: same grant check, same pull (which
    // refuses a grant that is not the target's).
    const target = async (grant: string) => ({ g: await identity.resolveGrant(grant), service: app.fileServices.get(center.id)! });
    local.receivers.set(center.id, {
      async pull(grant, onProgress, signal) {
        const { g, service } = await target(grant);
        // pull throws its failures; its lines are progress and done.
        await service.sync.pull(g.user, g.grant, syncSourceFor(g.grant.sourceCenterId, grant), (line) => line.type !== 'error' && onProgress(line), signal);
      },
      async discard(grant) {
        const { g, service } = await target(grant);
        await service.sync.discard(g.user, g.grant);
      },
    });
    // The key pairs edit authorized_keys here as the caller, with the same session check as the route.
    local.authorizedKeys.set(center.id, { edit: async (token, e) => app.fileServices.get(center.id)!.authorizedKeys.edit(await identity.resolve(token), e) });
    await app.register(
      named(async (scope) => {
        scope.addHook('onRoute', (route) => {
          route.config = { ...(route.config as object), public: true, bulk: true };
        });
        await scope.register(fileServicePlugin, {
          center,
          identity,
          clock: ctx.clock,
          registry: app.fileServices,
          syncSourceFor,
        });
      }, `file service ${center.id}`),
      { prefix: `/file-service/${center.id}` },
    );
  }
}
