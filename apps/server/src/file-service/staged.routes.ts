import type { FastifyInstance } from 'fastify';
import { FILE_API_PREFIX, StagedUploadApi, StagedUploadApiSchemas } from '@suanli/contracts';
import { ok } from '../lib/reply';
import { serve } from '../lib/serve';
import type { FileService } from './file.service';
import { StagedUploadService } from './staged.service';
import { named } from '../lib/named-plugin';

/**
 * 中断的上传: the caller's staged chunked uploads on this center, listed and discarded (issue 22 item 3).
 * Registered inside the file service's plugin after `fileRoutes`, so the file service's own auth hook has
 * resolved `req.fileUser` (the caller's account on this center) before these handlers run; from the
 * descriptors of `StagedUploadApi` under the file API's prefix.
 */
export async function stagedRoutes(fastify: FastifyInstance, opts: { service: FileService }) {
  const staged = new StagedUploadService(opts.service.spaces, opts.service.uploads);
  await fastify.register(
    named(async (app) => {
      serve(
        app,
        StagedUploadApi,
        StagedUploadApiSchemas,
        {
          list: async (req) => ok(await staged.list(req.fileUser!)),
          discard: async (req) => ok(await staged.discard(req.fileUser!, req.body.identifier)),
        },
        ['file-service'],
      );
    }, 'file-service staged uploads'),
    { prefix: FILE_API_PREFIX },
  );
}
