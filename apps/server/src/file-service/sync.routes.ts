import type { ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Envelope,
  ErrorCode,
  errorMessage,
  FILE_API_PREFIX,
  Null,
  SYNC_FS_FILE,
  SYNC_FS_HASH,
  SYNC_FS_MANIFEST,
  SYNC_FS_PULL,
  SyncFileQuery,
  SyncHash,
  SyncManifest,
  type SyncPullLine,
} from '@suanli/contracts';
import { AppError } from '../errors';
import { ok } from '../lib/reply';
import type { DownloadPlan } from './download.service';
import type { GrantedUser } from './identity';
import type { SyncService, SyncSource } from './sync.service';

/** The source a receiver pulls from: another center's file service, by its id and the job's grant. */
export type SyncSourceFor = (sourceCenterId: string, grant: string) => SyncSource;

/**
 * Cross-center sync calls (ADR 0010), authenticated by the job's grant (`sync-grant` header) instead of a
 * session: the source's manifest, hash and ranges, and the receiver's pull (NDJSON progress lines for as
 * long as the copy runs; the gateway reading them is the only client) and discard.
 */
export async function syncRoutes(
  fastify: FastifyInstance,
  opts: {
    sync: SyncService;
    sourceFor: SyncSourceFor;
    /** The file routes' streaming reply (cut when the service closes). */
    send: (req: FastifyRequest, reply: FastifyReply, plan: DownloadPlan) => Promise<FastifyReply>;
    /** Answers still streaming, cut when the service closes (the gateway resumes the pull). */
    streaming: Set<ServerResponse>;
  },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { sync, sourceFor, send, streaming } = opts;
  const tags = ['file-service'];
  const p = FILE_API_PREFIX;
  const config = { grantAuth: true };
  const granted = (req: FastifyRequest): GrantedUser => req.granted!;

  app.post(`${p}${SYNC_FS_MANIFEST}`, {
    config,
    schema: { tags, summary: '跨中心同步：源的文件清单（sync-grant 头）', response: { 200: Envelope(SyncManifest) } },
    handler: async (req) => ok(await sync.manifest(granted(req).user, granted(req).grant)),
  });

  app.get(`${p}${SYNC_FS_HASH}`, {
    config,
    schema: { tags, summary: '跨中心同步：源文件的 SHA-256', querystring: SyncFileQuery, response: { 200: Envelope(SyncHash) } },
    handler: async (req) => ok({ sha256: await sync.hash(granted(req).user, granted(req).grant, req.query.path) }),
  });

  app.get(`${p}${SYNC_FS_FILE}`, {
    config,
    schema: { tags, summary: '跨中心同步：源文件的字节（支持 Range）', querystring: SyncFileQuery },
    handler: async (req, reply) => {
      const file = await sync.open(granted(req).user, granted(req).grant, req.query.path);
      return send(req, reply, { kind: 'file', name: 'data', file });
    },
  });

  app.post(`${p}${SYNC_FS_PULL}`, {
    config,
    schema: { tags, summary: '跨中心同步：接收方拉取并放置副本（NDJSON 进度行，断开即停止，再次调用即续传）' },
    handler: async (req, reply) => {
      const { user, grant } = granted(req);
      const source = sourceFor(grant.sourceCenterId, req.headers['sync-grant'] as string);
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

  app.delete(`${p}${SYNC_FS_PULL}`, {
    config,
    schema: { tags, summary: '跨中心同步：删除接收方暂存的内容（取消或结束后）', response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await sync.discard(granted(req).user, granted(req).grant).then(() => null)),
  });
}
