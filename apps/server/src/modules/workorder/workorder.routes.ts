import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorCode, WORKORDER_ATTACHMENT_MAX_BYTES, WorkOrderApi, WorkOrderApiSchemas } from '@suanli/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError, invalid } from '../../errors';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { WorkOrderService } from './workorder.service';

/**
 * The `file` part of a multipart upload, read into memory up to the attachment limit. The limit is this
 * request's (the app-wide one is the avatar's 2 MB); going past it is 2704 like any other unfit file.
 */
async function uploadedFile(req: FastifyRequest): Promise<{ name: string; bytes: Buffer }> {
  if (!req.isMultipart()) throw invalid('file', '请以 multipart/form-data 上传');
  const part = await req.file({ limits: { fileSize: WORKORDER_ATTACHMENT_MAX_BYTES, files: 1 } });
  if (!part || part.fieldname !== 'file') throw invalid('file', '不能为空');
  try {
    return { name: part.filename, bytes: await part.toBuffer() };
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(ErrorCode.WORKORDER_ATTACHMENT_INVALID);
    throw err;
  }
}

/** RFC 6266/5987: any name, safely (no quotes or line breaks can reach the header). */
const inline = (name: string) => `inline; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

/** Registered under WORKORDER_BASE. The service checks who may see and change each work order. */
export function workorderRoutes(orders: WorkOrderService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      WorkOrderApi,
      WorkOrderApiSchemas,
      {
        create: async (req) => ok(await orders.create(principal(req), req.body)),
        page: async (req) => ok(await orders.page(principal(req), req.body)),
        detail: async (req) => ok(await orders.detail(principal(req), req.params.id)),
        reply: async (req) => ok(await orders.reply(principal(req), req.params.id, req.body)),
        resolve: async (req) => ok(await orders.resolve(principal(req), req.params.id, req.ip)),
        close: async (req) => ok(await orders.close(principal(req), req.params.id, req.ip)),
        upload: {
          handler: async (req) => ok(await orders.upload(principal(req), await uploadedFile(req))),
          options: { schema: { consumes: ['multipart/form-data'] } },
        },
        // The bytes as uploaded, with the type sniffed at upload; `nosniff` so a browser never reads them as
        // anything else. Sent here, not the envelope.
        attachment: async (req, reply) => {
          const file = await orders.attachment(principal(req), req.params.id);
          return reply
            .type(file.contentType)
            .header('x-content-type-options', 'nosniff')
            .header('content-disposition', inline(file.name))
            .header('cache-control', 'private, no-store')
            .send(file.bytes) as never;
        },
      },
      ['workorder'],
    );
  };
}
