import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import type { CenterConfig } from '../centers/centers';
import { registerClosing } from '../plugins/closing';
import { registerEnvelope } from '../plugins/envelope';
import { DownloadTickets } from './download-tickets';
import { FileService } from './file.service';
import { fileRoutes } from './file.routes';
import { stagedRoutes } from './staged.routes';
import type { SyncSourceFor } from './sync.routes';
import { AppError } from '../errors';
import { ErrorCode } from '@suanli/contracts';
import type { FileIdentity } from './identity';
import type { AccountFsFactory } from './storage/spaces';
import { loggerOptions } from '../lib/log';
import { sharedCompilers } from '../lib/schema-compilers';
import { named } from '../lib/named-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The file service of each center this process serves, by center id (tests call `cleanup()` on it). */
    fileServices: Map<string, FileService>;
  }
}

export interface FileServicePluginOptions {
  center: CenterConfig;
  identity: FileIdentity;
  clock: () => number;
  /** Advertised chunk size; 8 MiB by contract. */
  chunkSize?: number;
  /** How often abandoned chunks are looked for (they are removed once 24 h old). */
  cleanupIntervalMs?: number;
  /** How accounts' spaces are opened (default: in this process; WorkerAccounts for real POSIX accounts). */
  accounts?: AccountFsFactory;
  /** Where the service is registered for lookup, e.g. the gateway's `fileServices`. */
  registry?: Map<string, FileService>;
  /** The file service of another center, as the source of a sync this one receives (ADR 0010). */
  syncSourceFor: SyncSourceFor;
}

/**
 * One center's file service as a Fastify plugin: the routes, the storage it owns on that center's disk, the
 * periodic cleanup of abandoned chunks. The gateway registers it per local center under
 * `/file-service/{id}`; `buildFileService` wraps it into a standalone app.
 */
export async function fileServicePlugin(app: FastifyInstance, opts: FileServicePluginOptions) {
  const service = new FileService({ center: opts.center, clock: opts.clock, chunkSize: opts.chunkSize, accounts: opts.accounts });
  opts.registry?.set(opts.center.id, service);
  const tickets = new DownloadTickets({ service: service.downloads, identity: opts.identity, clock: opts.clock });
  await fileRoutes(app, { service, identity: opts.identity, tickets, syncSourceFor: opts.syncSourceFor });
  // After fileRoutes: its auth hook (the caller's account on this center) covers these routes too.
  await stagedRoutes(app, { service });

  const sweep = () =>
    service.cleanup().then(
      (removed) => removed.length && app.log.info({ center: opts.center.id, removed }, 'removed abandoned uploads'),
      (err: unknown) => app.log.warn({ err }, 'upload cleanup failed'),
    );
  const timer = setInterval(sweep, opts.cleanupIntervalMs ?? 3600_000);
  timer.unref();
  app.addHook('onReady', async () => {
    void sweep();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    opts.registry?.delete(opts.center.id);
    await service.close();
  });
}
named(fileServicePlugin, 'file service');

export interface BuildFileServiceOptions {
  center: CenterConfig;
  identity: FileIdentity;
  clock?: () => number;
  logger?: boolean | { level: string; stream?: NodeJS.WritableStream };
  chunkSize?: number;
  cleanupIntervalMs?: number;
  accounts?: AccountFsFactory;
  /** Console origins allowed to call this service from the browser (it runs on its own host in production). */
  allowedOrigins?: string[];
  /** Other centers' file services as sync sources (default: none known, a sync into this center fails with 1403). */
  syncSourceFor?: SyncSourceFor;
}

/**
 * The standalone file service (production: one process per center, next to its storage). Same envelope,
 * error pipeline and validation settings as the gateway, so clients cannot tell the two deployments apart.
 */
export async function buildFileService(opts: BuildFileServiceOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: !opts.logger ? false : opts.logger === true ? loggerOptions('info') : loggerOptions(opts.logger.level, opts.logger.stream),
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // As the gateway: fastify's default compilers, a schema compiled once per process (lib/schema-compilers.ts).
    schemaController: { compilersFactory: sharedCompilers },
  });
  const registry = new Map<string, FileService>();
  app.decorate('fileServices', registry);
  registerEnvelope(app);
  registerClosing(app);
  registerCors(app, opts.allowedOrigins ?? []);
  // Limits are set per request by the routes (small upload vs chunk); these are the outer bounds.
  await app.register(multipart, { limits: { files: 1, fields: 20 } });
  await app.register(fileServicePlugin, {
    center: opts.center,
    identity: opts.identity,
    clock: opts.clock ?? Date.now,
    chunkSize: opts.chunkSize,
    cleanupIntervalMs: opts.cleanupIntervalMs,
    accounts: opts.accounts,
    registry,
    syncSourceFor:
      opts.syncSourceFor ??
      ((id) => {
        throw new AppError(ErrorCode.INTERNAL_FAILED, `未知的源分中心：${id}`);
      }),
  });
  return app;
}

/** The console is served from the gateway's origin, so a standalone file service must answer CORS. */
function registerCors(app: FastifyInstance, origins: string[]) {
  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (!origin || !origins.includes(origin)) return;
    reply
      .header('access-control-allow-origin', origin)
      .header('vary', 'Origin')
      .header('access-control-expose-headers', 'content-disposition, content-range, content-length, accept-ranges');
    if (req.method === 'OPTIONS') {
      return reply
        .header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS')
        .header('access-control-allow-headers', 'token, agent-token, content-type, range, x-file-space')
        .header('access-control-max-age', '600')
        .code(204)
        .send();
    }
  });
}
