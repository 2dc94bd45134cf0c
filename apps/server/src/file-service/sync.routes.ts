import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ErrorCode,
  errorMessage,
  FILE_API_PREFIX,
  SYNC_GRANT_HEADER,
  SyncFileApi,
  SyncFileApiSchemas,
  SyncFileStreamApi,
  SyncFileStreamApiSchemas,
  type SyncPullLine,
} from '@suanli/contracts';
import { AppError } from '../errors';
import { ok } from '../lib/reply';
import { serve } from '../lib/serve';
import type { DownloadPlan } from './download.service';
import type { GrantedUser } from './identity';
import { streamRoute } from './stream-route';
import type { SyncService, SyncSource } from './sync.service';
import { named } from '../lib/named-plugin';

/** The source a receiver pulls from: another center's file service, by its id and the job's grant. */
export type SyncSourceFor = (sourceCenterId: string, grant: string) => SyncSource;

/**
 * Cross-center sync calls (ADR 0010), authenticated by the job's grant (`sync-grant` header) instead of a
 * session: the source's manifest, hash and ranges, and the receiver's pull (NDJSON progress lines for as
 * long as the copy runs; the gateway reading them is the only client) and discard — from the descriptors
 * `SyncFileApi` and `SyncFileStreamApi`.
 */
export async function syncRoutes(
  app: FastifyInstance,
  opts: {
    sync: SyncService;
    sourceFor: SyncSourceFor;
    /** The file routes' streaming reply (cut when the service closes). */
    send: (req: FastifyRequest, reply: FastifyReply, plan: DownloadPlan) => Promise<FastifyReply>;
    /** Answers still streaming, cut when the service closes (the gateway resumes the pull). */
    streaming: Set<ServerResponse>;
  },
) {
  const { sync, sourceFor, send, streaming } = opts;
  const tags = ['file-service'];
  const options = { config: { grantAuth: true } };
  const granted = (req: FastifyRequest): GrantedUser => req.granted!;

  await app.register(
    named(async (scope) => {
      serve(
        scope,
        SyncFileApi,
        SyncFileApiSchemas,
        {
          manifest: { options, handler: async (req) => ok(await sync.manifest(granted(req).user, granted(req).grant)) },
          hash: { options, handler: async (req) => ok({ sha256: await sync.hash(granted(req).user, granted(req).grant, req.query.path) }) },
          discard: { options, handler: async (req) => ok(await sync.discard(granted(req).user, granted(req).grant).then(() => null)) },
        },
        tags,
      );
    }, 'file-service sync'),
    { prefix: FILE_API_PREFIX },
  );

  // Bytes and NDJSON lines: registered from their descriptors by hand (stream-route.ts).
  streamRoute(app, SyncFileStreamApi.file, SyncFileStreamApiSchemas.file, tags, {
    ...options,
    handler: async (req, reply) => {
      const file = await sync.open(granted(req).user, granted(req).grant, req.query.path);
      return send(req, reply, { kind: 'file', name: 'data', file });
    },
  });

  streamRoute(app, SyncFileStreamApi.pull, SyncFileStreamApiSchemas.pull, tags, {
    ...options,
    handler: async (req, reply) => {
      const { user, grant } = granted(req);
      const source = sourceFor(grant.sourceCenterId, req.headers[SYNC_GRANT_HEADER] as string);
      const res = reply.hijack().raw;
      res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
      streaming.add(res);
      const abort = new AbortController();
      // The gateway went away (cancel, restart) or the service is closing: stop taking new chunks.
      res.once('close', () => {
        streaming.delete(res);
        abort.abort();
      });
      const write = (line: SyncPullLine) => {
        if (!res.destroyed) res.write(`${JSON.stringify(line)}\n`);
      };
      try {
        await sync.pull(user, grant, source, write, abort.signal);
      } catch (e) {
        const err = e instanceof AppError ? e : null;
        if (!err) req.log.error({ err: e }, 'sync pull failed');
        write({ type: 'error', code: err?.code ?? ErrorCode.SYNC_FAILED, message: err?.message ?? errorMessage(ErrorCode.SYNC_FAILED) });
      }
      res.end();
    },
  });
}
