import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  ErrorCode,
  errorMessage,
  FILE_API_PREFIX,
  STORAGE_FILE_SIZE_HEADER,
  StorageApi,
  StorageApiSchemas,
  StorageStreamApi,
  StorageStreamApiSchemas,
  type StorageSnapshotLine,
} from '@suanli/contracts';
import type { OpenedStream } from '../center-storage/center-storage';
import type { LocalCenterStorage } from '../center-storage/local-center-storage';
import { AppError } from '../errors';
import { ok } from '../lib/reply';
import { serve } from '../lib/serve';
import { streamRoute } from './stream-route';
import { named } from '../lib/named-plugin';

/** What the gateway reads when the disk refused an asset folder's ACL (the detail is in this service's log). */
const ACCESS_FAILED = '数据目录的访问权限设置失败，请联系管理员';
/** The same for a team's folder (ADR 0018). */
const TEAM_ACCESS_FAILED = '团队空间的访问权限设置失败，请联系管理员';
/** A progress line at most this often while a snapshot copies. */
const PROGRESS_EVERY_MS = 250;

/**
 * The gateway's `HttpCenterStorage` calls (ADR 0016; descriptors `StorageApi` and `StorageStreamApi`),
 * authenticated by its storage grant (`storage-grant` header, config `storageAuth`; the hook in file.routes.ts
 * resolves it before the body is read). Each one runs
 * the same operation on this center's `LocalCenterStorage` — homes through this service's spaces (workers as
 * the account where accounts are real), the asset area as this service — and answers its data, its refusal,
 * or bytes.
 */
export async function storageRoutes(
  app: FastifyInstance,
  opts: {
    storage: LocalCenterStorage;
    /** Answers still streaming, cut when the service closes. */
    streaming: Set<ServerResponse>;
  },
) {
  const { storage, streaming } = opts;
  const tags = ['file-service'];
  const options = { config: { storageAuth: true } };
  // A file written by the gateway (the public seed) arrives as the body itself, streamed to disk unread here.
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));

  await app.register(
    named(async (scope) => {
      serve(
        scope,
        StorageApi,
        StorageApiSchemas,
        {
          ensureHome: { options, handler: async (req) => ok(await storage.ensureHome(req.body.account).then(() => null)) },
          stat: { options, handler: async (req) => ok(await storage.stat(req.body.account, req.body.path)) },
          makeDir: { options, handler: async (req) => ok(await storage.makeDir(req.body.account, req.body.path).then(() => null)) },
          assetDirs: { options, handler: async () => ok(await storage.assetDirs()) },
          hasAssetDir: { options, handler: async (req) => ok(await storage.hasAssetDir(req.body.assetId)) },
          applyAccess: {
            options,
            handler: async (req) => {
              const { assetId, create, ...access } = req.body;
              try {
                return ok(await storage.applyAccess(assetId, access, { create }));
              } catch (e) {
                if (e instanceof AppError) throw e;
                req.log.error({ err: e, assetId }, 'asset area: the access of an asset folder could not be set');
                throw new AppError(ErrorCode.FILE_FAILED, ACCESS_FAILED);
              }
            },
          },
          teamDirs: { options, handler: async () => ok(await storage.teamDirs()) },
          applyTeamAccess: {
            options,
            handler: async (req) => {
              const { teamId, uids, create } = req.body;
              try {
                return ok(await storage.applyTeamAccess(teamId, uids, { create }));
              } catch (e) {
                if (e instanceof AppError) throw e;
                req.log.error({ err: e, teamId }, 'teams area: the access of a team folder could not be set');
                throw new AppError(ErrorCode.FILE_FAILED, TEAM_ACCESS_FAILED);
              }
            },
          },
          closeAssetDir: { options, handler: async (req) => ok(await storage.closeAssetDir(req.body.assetId).then(() => null)) },
          removeAsset: { options, handler: async (req) => ok(await storage.removeAsset(req.body.assetId).then(() => null)) },
          versionManifest: { options, handler: async (req) => ok({ manifest: await storage.versionManifest(req.body.assetId, req.body.versionId) }) },
          adoptCopy: {
            options: { ...options, bodyLimit: 70 * 1024 * 1024 },
            handler: async (req) => ok(await storage.adoptCopy(req.body.assetId, req.body.versionId, req.body.manifest).then(() => null)),
          },
          removeVersion: { options, handler: async (req) => ok(await storage.removeVersion(req.body.assetId, req.body.versionId).then(() => null)) },
          listVersion: { options, handler: async (req) => ok(await storage.listVersion(req.body.assetId, req.body.versionId, req.body.path)) },
          versionReadme: { options, handler: async (req) => ok(await storage.versionReadme(req.body.assetId, req.body.versionId)) },
        },
        tags,
      );
    }, 'file-service storage'),
    { prefix: FILE_API_PREFIX },
  );

  // Bytes in or out, or NDJSON lines: registered from their descriptors by hand (stream-route.ts).
  const streamed = StorageStreamApiSchemas;
  streamRoute(app, StorageStreamApi.readFile, streamed.readFile, tags, {
    ...options,
    handler: async (req, reply) => {
      const { account, path, offset, limit } = req.query;
      if (limit !== undefined) {
        const read = await storage.readFile(account, path, offset ?? 0, Math.min(limit, 64 * 1024 * 1024));
        if (!read) return reply.send(ok(null));
        return reply.header(STORAGE_FILE_SIZE_HEADER, String(read.size)).type('application/octet-stream').send(read.bytes);
      }
      const opened = await storage.openFile(account, path);
      return opened ? sendStream(reply, opened, streaming) : reply.send(ok(null));
    },
  });

  streamRoute(app, StorageStreamApi.writeFile, streamed.writeFile, tags, {
    ...options,
    handler: async (req) => ok(await storage.writeFile(req.query.account, req.query.path, req.body as Readable).then(() => null)),
  });

  streamRoute(app, StorageStreamApi.snapshot, streamed.snapshot, tags, {
    ...options,
    handler: async (req, reply) => {
      const { account, path, assetId, versionId } = req.body;
      const res = reply.hijack().raw;
      res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
      streaming.add(res);
      res.once('close', () => streaming.delete(res));
      const write = (line: StorageSnapshotLine) => {
        if (!res.destroyed) res.write(`${JSON.stringify(line)}\n`);
      };
      let last = 0;
      const at = { copied: 0, total: 0 };
      // A line now and then also while nothing is copied (a walk of a large folder): the answer never goes quiet
      // long enough for the gateway's client to take it for a dead connection.
      const beat = setInterval(() => write({ type: 'progress', ...at }), 20_000);
      try {
        const s = await storage.snapshot(account, path, assetId, versionId, (copied, total) => {
          Object.assign(at, { copied, total });
          const now = Date.now();
          if (now - last < PROGRESS_EVERY_MS) return;
          last = now;
          write({ type: 'progress', copied, total });
        });
        write({ type: 'done', ...s });
      } catch (e) {
        const err = e instanceof AppError ? e : null;
        if (!err) req.log.error({ err: e, assetId, versionId }, 'snapshot failed');
        write({ type: 'error', code: err?.code ?? ErrorCode.FILE_FAILED, message: err?.message ?? errorMessage(ErrorCode.FILE_FAILED) });
      } finally {
        clearInterval(beat);
      }
      res.end();
    },
  });

  streamRoute(app, StorageStreamApi.versionFile, streamed.versionFile, tags, {
    ...options,
    handler: async (req, reply) => sendStream(reply, await storage.openVersionFile(req.query.assetId, req.query.versionId, req.query.path), streaming),
  });
}

/** A whole file as the answer: its bytes, its size in STORAGE_FILE_SIZE_HEADER; cut when the service closes. */
function sendStream(reply: FastifyReply, opened: OpenedStream, streaming: Set<ServerResponse>) {
  const res = reply.raw;
  streaming.add(res);
  res.once('close', () => {
    streaming.delete(res);
    opened.stream.destroy();
  });
  return reply.header(STORAGE_FILE_SIZE_HEADER, String(opened.size)).header('content-length', String(opened.size)).type('application/octet-stream').send(opened.stream);
}
