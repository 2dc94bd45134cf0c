import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  AssetFileList,
  AssetReadme,
  Envelope,
  ErrorCode,
  errorMessage,
  FILE_API_PREFIX,
  Null,
  STORAGE_FILE_SIZE_HEADER,
  STORAGE_FS_ASSET_ACCESS,
  STORAGE_FS_ASSET_CLOSE,
  STORAGE_FS_ASSET_EXISTS,
  STORAGE_FS_ASSET_REMOVE,
  STORAGE_FS_ASSETS,
  STORAGE_FS_HOME,
  STORAGE_FS_HOME_FILE,
  STORAGE_FS_HOME_STAT,
  STORAGE_FS_SNAPSHOT,
  STORAGE_FS_VERSION_ADOPT,
  STORAGE_FS_VERSION_FILE,
  STORAGE_FS_VERSION_LIST,
  STORAGE_FS_VERSION_MANIFEST,
  STORAGE_FS_VERSION_README,
  STORAGE_FS_VERSION_REMOVE,
  StorageAccessBody,
  StorageAccountBody,
  StorageAdopt,
  StorageAsset,
  StorageEntry,
  StorageHomePath,
  StorageHomeRead,
  StorageManifest,
  StorageSnapshotBody,
  StorageVersion,
  StorageVersionPath,
  type StorageSnapshotLine,
} from '@suanli/contracts';
import type { OpenedStream } from '../center-storage/center-storage';
import type { LocalCenterStorage } from '../center-storage/local-center-storage';
import { AppError } from '../errors';
import { ok } from '../lib/reply';

/** What the gateway reads when the disk refused an asset folder's ACL (the detail is in this service's log). */
const ACCESS_FAILED = '数据目录的访问权限设置失败，请联系管理员';
/** A progress line at most this often while a snapshot copies. */
const PROGRESS_EVERY_MS = 250;

/**
 * The gateway's `HttpCenterStorage` calls (ADR 0016), authenticated by its storage grant (`storage-grant`
 * header, config `storageAuth`; the hook in file.routes.ts resolves it before the body is read). Each one runs
 * the same operation on this center's `LocalCenterStorage` — homes through this service's spaces (workers as
 * the account where accounts are real), the asset area as this service — and answers its data, its refusal,
 * or bytes.
 */
export async function storageRoutes(
  fastify: FastifyInstance,
  opts: {
    storage: LocalCenterStorage;
    /** Answers still streaming, cut when the service closes. */
    streaming: Set<ServerResponse>;
  },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { storage, streaming } = opts;
  const tags = ['file-service'];
  const p = FILE_API_PREFIX;
  const config = { storageAuth: true };
  // A file written by the gateway (the public seed) arrives as the body itself, streamed to disk unread here.
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));

  app.post(`${p}${STORAGE_FS_HOME}`, {
    config,
    schema: { tags, summary: '网关：确保集群账号的家目录存在', body: StorageAccountBody, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.ensureHome(req.body.account).then(() => null)),
  });

  app.post(`${p}${STORAGE_FS_HOME_STAT}`, {
    config,
    schema: { tags, summary: '网关：家目录中条目的 lstat（不跟随链接）', body: StorageHomePath, response: { 200: Envelope(Type.Union([StorageEntry, Type.Null()])) } },
    handler: async (req) => ok(await storage.stat(req.body.account, req.body.path)),
  });

  app.get(`${p}${STORAGE_FS_HOME_FILE}`, {
    config,
    schema: { tags, summary: '网关：读取家目录中的文件（offset/limit 可选；无此文件时 data 为 null）', querystring: StorageHomeRead },
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

  app.put(`${p}${STORAGE_FS_HOME_FILE}`, {
    config,
    schema: { tags, summary: '网关：写入家目录中的文件（请求体为文件内容）', querystring: StorageHomePath, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.writeFile(req.query.account, req.query.path, req.body as Readable).then(() => null)),
  });

  app.get(`${p}${STORAGE_FS_ASSETS}`, {
    config,
    schema: { tags, summary: '网关：数据区中的资产目录', response: { 200: Envelope(Type.Array(Type.String())) } },
    handler: async () => ok(await storage.assetDirs()),
  });

  app.post(`${p}${STORAGE_FS_ASSET_EXISTS}`, {
    config,
    schema: { tags, summary: '网关：资产目录是否存在', body: StorageAsset, response: { 200: Envelope(Type.Boolean()) } },
    handler: async (req) => ok(await storage.hasAssetDir(req.body.assetId)),
  });

  app.post(`${p}${STORAGE_FS_ASSET_ACCESS}`, {
    config,
    schema: { tags, summary: '网关：设置资产目录的访问权限（ACL）', body: StorageAccessBody, response: { 200: Envelope(Type.Boolean()) } },
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
  });

  app.post(`${p}${STORAGE_FS_ASSET_CLOSE}`, {
    config,
    schema: { tags, summary: '网关：关闭无主的资产目录（0700）', body: StorageAsset, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.closeAssetDir(req.body.assetId).then(() => null)),
  });

  app.post(`${p}${STORAGE_FS_ASSET_REMOVE}`, {
    config,
    schema: { tags, summary: '网关：删除资产目录', body: StorageAsset, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.removeAsset(req.body.assetId).then(() => null)),
  });

  app.post(`${p}${STORAGE_FS_SNAPSHOT}`, {
    config,
    schema: { tags, summary: '网关：把家目录中的文件夹复制为只读版本（NDJSON 进度行）', body: StorageSnapshotBody },
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

  app.post(`${p}${STORAGE_FS_VERSION_MANIFEST}`, {
    config,
    schema: { tags, summary: '网关：版本的校验清单（sha256sum 格式）', body: StorageVersion, response: { 200: Envelope(StorageManifest) } },
    handler: async (req) => ok({ manifest: await storage.versionManifest(req.body.assetId, req.body.versionId) }),
  });

  app.post(`${p}${STORAGE_FS_VERSION_ADOPT}`, {
    config,
    bodyLimit: 70 * 1024 * 1024,
    schema: { tags, summary: '网关：把同步来的副本登记为版本（清单、只读）', body: StorageAdopt, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.adoptCopy(req.body.assetId, req.body.versionId, req.body.manifest).then(() => null)),
  });

  app.post(`${p}${STORAGE_FS_VERSION_REMOVE}`, {
    config,
    schema: { tags, summary: '网关：删除版本的文件与清单', body: StorageVersion, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await storage.removeVersion(req.body.assetId, req.body.versionId).then(() => null)),
  });

  app.post(`${p}${STORAGE_FS_VERSION_LIST}`, {
    config,
    schema: { tags, summary: '网关：版本中某目录的条目', body: StorageVersionPath, response: { 200: Envelope(AssetFileList) } },
    handler: async (req) => ok(await storage.listVersion(req.body.assetId, req.body.versionId, req.body.path)),
  });

  app.post(`${p}${STORAGE_FS_VERSION_README}`, {
    config,
    schema: { tags, summary: '网关：版本的 README', body: StorageVersion, response: { 200: Envelope(AssetReadme) } },
    handler: async (req) => ok(await storage.versionReadme(req.body.assetId, req.body.versionId)),
  });

  app.get(`${p}${STORAGE_FS_VERSION_FILE}`, {
    config,
    schema: { tags, summary: '网关：读取版本中的文件', querystring: StorageVersionPath },
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
