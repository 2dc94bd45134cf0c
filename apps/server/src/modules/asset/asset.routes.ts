import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DatasetApi, ModelApi, ModelExtraApiSchemas, assetApiSchemas, type AssetApi, type TypesOf } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve, type RouteImpl } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { AssetService } from './asset.service';

/** Registered under DATASET_BASE (`DatasetApi`) and MODEL_BASE (`ModelApi`): the same calls for both kinds. */
export function assetRoutes(assets: AssetService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const schemas = assetApiSchemas(assets.kind === 'dataset' ? '数据集' : '模型');
    const handlers: { [K in keyof AssetApi]: RouteImpl<TypesOf<AssetApi[K]>> } = {
      page: async (req) => ok(await assets.page(principal(req), req.body)),
      mountable: async (req) => ok(await assets.mountable(principal(req), req.query.subCenterId)),
      create: async (req) => ok(await assets.create(principal(req), req.body)),
      detail: async (req) => ok(await assets.detail(principal(req), req.params.id)),
      update: async (req) => ok(await assets.update(principal(req), req.params.id, req.body)),
      remove: async (req) => ok(await assets.remove(principal(req), req.params.id)),
      addVersion: async (req) => ok(await assets.addVersion(principal(req), req.params.id, req.body)),
      removeVersion: async (req) => ok(await assets.removeVersion(principal(req), req.params.id, req.params.versionId)),
      files: async (req) => ok(await assets.files(principal(req), req.params.id, req.params.versionId, req.query.path)),
      readme: async (req) => ok(await assets.readme(principal(req), req.params.id, req.params.versionId)),
      download: async (req, reply) => {
        const { stream, size } = await assets.openFile(principal(req), req.params.id, req.params.versionId, req.query.path);
        // A client that goes away mid-file lets the file (or the file service's answer) go at once.
        reply.raw.once('close', () => stream.destroy());
        const name = req.query.path.split('/').pop() ?? 'file';
        // The file's bytes, not the envelope: the reply is sent here (Fastify does not serialize a stream).
        return reply
          .header('content-type', 'application/octet-stream')
          .header('content-length', String(size))
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
          .send(stream) as never;
      },
      share: async (req) => ok(await assets.share(principal(req), req.params.id, req.body.usernames)),
      unshare: async (req) => ok(await assets.unshare(principal(req), req.params.id, req.params.userId)),
      shareTeam: async (req) => ok(await assets.shareTeam(principal(req), req.params.id, req.body.teamId)),
      unshareTeam: async (req) => ok(await assets.unshareTeam(principal(req), req.params.id, req.params.teamId)),
      teamShared: async (req) => ok(await assets.teamShared(principal(req), req.query.teamId)),
      addToMine: async (req) => ok(await assets.addToMine(principal(req), req.params.id)),
      pendingPublication: async (req) => ok(await assets.pending(principal(req))),
      review: async (req) => ok(await assets.review(principal(req), req.params.id, req.body.approve, req.body.reason ?? '', req.ip)),
      publish: async (req) => ok(await assets.requestPublish(principal(req), req.params.id)),
    };
    const tags = [assets.kind];
    if (assets.kind === 'dataset') serve(app, DatasetApi, schemas, handlers, tags);
    else
      serve(
        app,
        ModelApi,
        { ...schemas, ...ModelExtraApiSchemas },
        { ...handlers, registerFromTask: async (req) => ok(await assets.registerFromTask(principal(req), req.body)) },
        tags,
      );
  };
}
