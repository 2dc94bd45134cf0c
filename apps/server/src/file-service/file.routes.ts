import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Value } from '@sinclair/typebox/value';
import {
  AuthorizedKeysApi,
  AuthorizedKeysApiSchemas,
  CHUNK_SIZE_MAX,
  ChunkUploadFields,
  ErrorCode,
  FILE_API_PREFIX,
  FILE_SPACE_HEADER,
  FileServiceApi,
  FileServiceApiSchemas,
  FileTransferApi,
  FileTransferApiSchemas,
  SESSION_INVALID_CODES,
  SYNC_GRANT_HEADER,
  SMALL_UPLOAD_MAX,
  STORAGE_GRANT_HEADER,
} from '@suanli/contracts';
import { AppError, invalid } from '../errors';
import { ok } from '../lib/reply';
import { serve } from '../lib/serve';
import { tokenOf } from '../plugins/auth';
import type { DownloadTickets } from './download-tickets';
import { sendDownload } from './download.reply';
import type { DownloadPlan } from './download.service';
import type { FileService } from './file.service';
import type { FileIdentity, FileUser, GrantedUser } from './identity';
import { syncRoutes, type SyncSourceFor } from './sync.routes';
import { storageRoutes } from './storage.routes';
import { streamRoute } from './stream-route';
import type { IncomingFile } from './upload.service';
import { named } from '../lib/named-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the file service's own auth hook on every file-service route. */
    fileUser: FileUser | null;
    /** Set instead of `fileUser` on the sync routes, from the job's grant. */
    granted: GrantedUser | null;
  }
  interface FastifyContextConfig {
    /** Authenticated by the download ticket in its URL instead of the `token` header (browser navigations). */
    ticketAuth?: boolean;
    /** Authenticated by a sync job's grant (`sync-grant` header) instead of a session (sync.routes.ts). */
    grantAuth?: boolean;
    /** Authenticated by the gateway's storage grant (`storage-grant` header) instead of a session (storage.routes.ts). */
    storageAuth?: boolean;
  }
}

/** After a refused upload, the rest of the body is read and dropped (up to this much) so the connection stays usable. */
const DISCARD_MAX = 2 * CHUNK_SIZE_MAX;

/**
 * The calls of the file-service contract (api-contract.md "File service") under `/api/v1`, from the
 * descriptors `FileServiceApi` (JSON, through `serve`) and `FileTransferApi` (uploads and downloads). Each one
 * authenticates itself through `identity` (the gateway's global hook is told these routes are public);
 * routes stay thin: parse, call the service, answer the envelope — or bytes for downloads.
 */
export async function fileRoutes(app: FastifyInstance, opts: { service: FileService; identity: FileIdentity; tickets: DownloadTickets; syncSourceFor: SyncSourceFor }) {
  const { service, identity, tickets } = opts;
  const { folders, uploads, downloads } = service;
  const tags = ['file-service'];

  app.decorateRequest('fileUser', null);
  app.decorateRequest('granted', null);
  // Before parsing and validation, like the gateway's hook: an anonymous caller learns only that they must log in.
  app.addHook('onRequest', async (req) => {
    if (!req.routeOptions.url || req.routeOptions.config?.ticketAuth) return;
    if (req.routeOptions.config?.storageAuth) {
      const grant = req.headers[STORAGE_GRANT_HEADER];
      await identity.resolveStorageGrant(typeof grant === 'string' ? grant : undefined);
      return;
    }
    if (req.routeOptions.config?.grantAuth) {
      const grant = req.headers[SYNC_GRANT_HEADER];
      req.granted = await identity.resolveGrant(typeof grant === 'string' ? grant : undefined);
      return;
    }
    // The space (the home, or a team's folder) is named per request and resolved with the session.
    const space = req.headers[FILE_SPACE_HEADER];
    req.fileUser = await identity.resolve(tokenOf(req), typeof space === 'string' ? space : undefined);
  });
  const userOf = (req: FastifyRequest) => req.fileUser!;

  // Streamed downloads still being sent. `app.close()` (SIGTERM) goes through Node's `server.close()`,
  // which closes idle keep-alive connections but waits for every response in flight to finish — and a
  // download lasts as long as its client wants: a slow or paused reader (a browser's download manager, a
  // fetch whose body is never read) holds back-pressure on the file stream for minutes or forever, so the
  // close never finished. Waiting is right for the other calls (they are short: an in-flight upload or JSON
  // call still completes), not for these, so before the server closes they are cut; the client resumes with
  // a Range request. Not `forceCloseConnections: true`, which would cut every request in flight. `preClose`
  // because `onClose` hooks only run after the server has closed.
  const sending = new Set<ServerResponse>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const res of sending) res.destroy();
  });
  const send = async (req: FastifyRequest, reply: FastifyReply, plan: DownloadPlan) => {
    const res = reply.raw;
    sending.add(res);
    // 'close' follows 'finish' too, so finished downloads leave the set.
    res.once('close', () => sending.delete(res));
    await sendDownload(req, reply, plan);
    // A download whose request was still being planned when the server began closing is cut the same way
    // (destroying the response also destroys its file stream, which closes the file).
    if (closing) res.destroy();
    return reply;
  };

  await app.register(
    named(async (scope) => {
      serve(
        scope,
        FileServiceApi,
        FileServiceApiSchemas,
        {
          list: {
            handler: async (req) => ok(await folders.list(userOf(req), req.query, req.body)),
            // Every body field is optional, so a call without a body is a plain listing rather than a 1005.
            options: {
              preValidation: async (req) => {
                req.body ??= {};
              },
            },
          },
          mkdir: async (req) => ok(await folders.mkdir(userOf(req), req.params.parentId, req.body.name)),
          chunkStatus: async (req) => ok(await uploads.chunkStatus(userOf(req), req.query)),
          merge: async (req) => ok(await uploads.merge(userOf(req), req.body)),
          // The hook has resolved this token, so it is present.
          downloadTicket: async (req) => ok(await tickets.issue(userOf(req), tokenOf(req)!, req.body.paths)),
          remove: async (req) => ok(await folders.remove(userOf(req), req.body.paths)),
          rename: async (req) => ok(await folders.rename(userOf(req), req.body.path, req.body.newName)),
          move: async (req) => ok(await folders.move(userOf(req), req.body.paths, req.body.targetDir)),
          copy: async (req) => ok(await folders.copy(userOf(req), req.body.paths, req.body.targetDir)),
          usage: async (req) => ok(await folders.usageOf(userOf(req))),
        },
        tags,
      );
      serve(scope, AuthorizedKeysApi, AuthorizedKeysApiSchemas, { edit: async (req) => ok(await service.authorizedKeys.edit(userOf(req), req.body)) }, tags);
    }, 'file-service files'),
    { prefix: FILE_API_PREFIX },
  );

  // Uploads and downloads stream (see stream-route.ts): registered from their descriptors by hand.
  streamRoute(app, FileTransferApi.upload, FileTransferApiSchemas.upload, tags, {
    consumes: ['multipart/form-data'],
    handler: async (req) => {
      const mp = await multipartFile(req, SMALL_UPLOAD_MAX + 1);
      try {
        const dir = mp.fields.path;
        if (dir === undefined) throw invalid('path', '不能为空（须在 file 之前发送）');
        return ok(await uploads.uploadSmall(userOf(req), dir, mp.filename, mp.file));
      } catch (e) {
        discardRest(req, mp.file);
        throw e;
      }
    },
  });

  streamRoute(app, FileTransferApi.chunkUpload, FileTransferApiSchemas.chunkUpload, tags, {
    consumes: ['multipart/form-data'],
    handler: async (req) => {
      const mp = await multipartFile(req, CHUNK_SIZE_MAX + 1);
      try {
        return ok(await uploads.uploadChunk(userOf(req), chunkFields(mp.fields), mp.file));
      } catch (e) {
        discardRest(req, mp.file);
        throw e;
      }
    },
  });

  streamRoute(app, FileTransferApi.download, FileTransferApiSchemas.download, tags, {
    handler: async (req, reply) => send(req, reply, await downloads.planDownload(userOf(req), req.body.paths)),
  });

  streamRoute(app, FileTransferApi.ticketDownload, FileTransferApiSchemas.ticketDownload, tags, {
    config: { ticketAuth: true },
    handler: async (req, reply) => send(req, reply, await tickets.open(req.params.ticket).catch(refusedNavigation)),
  });

  await syncRoutes(app, { sync: service.sync, sourceFor: opts.syncSourceFor, send, streaming: sending });
  await storageRoutes(app, { storage: service.storage, streaming: sending });
}

/**
 * Reads text fields up to the first file part and hands that part over unread, so its bytes go straight
 * to disk. Fields must therefore come first (FormData keeps insertion order: append them before the file).
 */
async function multipartFile(req: FastifyRequest, fileSizeLimit: number): Promise<{ fields: Record<string, string>; file: IncomingFile; filename: string }> {
  if (!req.isMultipart()) throw invalid('file', '请使用 multipart/form-data 上传');
  const fields: Record<string, string> = {};
  // preservePath: busboy would otherwise cut 'a/b.txt' down to 'b.txt'; the service refuses it instead (1308).
  const parts = req.parts({ preservePath: true, limits: { fileSize: fileSizeLimit, files: 1, fields: 20, fieldSize: 16 * 1024, parts: 21 } });
  for await (const part of parts) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    return { fields, file: part.file, filename: part.filename };
  }
  throw invalid('file', '不能为空');
}

/** Integer fields of a chunk: plain decimal digits only (`1e0`, `0x1`, ` 1`, `1.5`, `01` are refused). */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;
const INTEGER_FIELDS = ['chunkNumber', 'totalChunks', 'chunkSize', 'totalSize'] as const;

function chunkFields(raw: Record<string, string>): ChunkUploadFields {
  for (const f of INTEGER_FIELDS) {
    if (raw[f] !== undefined && !CANONICAL_INTEGER.test(raw[f])) throw invalid(f, '须为十进制整数');
  }
  const converted = Value.Convert(ChunkUploadFields, { ...raw });
  const err = Value.Errors(ChunkUploadFields, converted).First();
  if (err) {
    const field = err.path.replace(/^\//, '') || 'file';
    throw invalid(field, raw[field] === undefined ? '不能为空（须在 file 之前发送）' : '取值不合法');
  }
  return converted as ChunkUploadFields;
}

/** Drops the rest of a refused upload's body so the reply reaches the client; a huge rest closes the connection. */
function discardRest(req: FastifyRequest, file: IncomingFile) {
  const raw = req.raw;
  if (raw.readableEnded || raw.destroyed) return;
  let seen = 0;
  raw.on('data', (b: Buffer) => {
    seen += b.length;
    if (seen > DISCARD_MAX) raw.destroy();
  });
  if (!file.destroyed) file.resume();
  raw.resume();
}

/**
 * A browser saves whatever a navigation answers with 200 as the downloaded file, so refusals of a ticket URL
 * keep their envelope but carry an HTTP error status: the browser's download list then shows a failure.
 */
function refusedNavigation(e: unknown): never {
  if (!(e instanceof AppError) || e.httpStatus !== 200) throw e;
  const status = SESSION_INVALID_CODES.includes(e.code)
    ? 401
    : e.code === ErrorCode.ILLEGAL_PATH || e.code === ErrorCode.NO_PERMISSION
      ? 403
      : e.code >= ErrorCode.INTERNAL_FAILED && e.code <= ErrorCode.INTERNAL_BAD_RESPONSE
        ? 502
        : 404;
  throw new AppError(e.code, e.message, status);
}
