import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ImageApi, ImageApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { ImagePublicationService } from './image-publication.service';
import type { ImageService } from './image.service';

/**
 * The registry token endpoint's query, one schema object per process: the compilers compile a schema they
 * have seen once (lib/schema-compilers.ts), and a schema written inline would be new for every app.
 */
const TokenQuery = Type.Object({ service: Type.Optional(Type.String()), scope: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])), account: Type.Optional(Type.String()) });

/** Registered under IMAGE_BASE. */
export function imageRoutes(images: ImageService, publications: ImagePublicationService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['image'];
    // The registry's token endpoint (Docker registry token protocol): not enveloped, HTTP Basic, no session —
    // so by hand, not a descriptor (the console never calls it).
    app.get('/registry/token', {
      config: { public: true },
      schema: {
        tags,
        summary: '镜像仓库令牌（Docker Registry Token 协议，供 docker / skopeo 使用）',
        querystring: TokenQuery,
      },
      handler: async (req, reply) => {
        const answer = await images.token(req.query, req.headers.authorization);
        if (!answer) return reply.code(401).header('www-authenticate', 'Basic realm="suanli registry"').send({ errors: [{ code: 'UNAUTHORIZED', message: '用户名或镜像仓库密码错误' }] });
        return reply.header('cache-control', 'no-store').send(answer);
      },
    });
    serve(
      app,
      ImageApi,
      ImageApiSchemas,
      {
        registry: async (req) => ok(await images.info(principal(req))),
        resetCredential: async (req) => ok(await images.resetCredential(principal(req))),
        list: async (req) => ok(await images.list(principal(req))),
        detail: async (req) => ok(await images.detail(principal(req), req.query.name)),
        deleteTag: async (req) => ok(await images.deleteTag(principal(req), req.query.name, req.query.tag)),
        startImport: async (req) => ok(await images.startImport(principal(req), req.body)),
        getImport: async (req) => ok(await images.getImport(principal(req), req.params.id)),
        requestPublication: async (req) => ok(await publications.request(principal(req), req.body)),
        publications: async (req) => ok(await publications.mine(principal(req))),
        pendingPublications: async (req) => ok(await publications.pending(principal(req))),
        reviewPublication: async (req) => ok(await publications.review(principal(req), req.params.id, req.body.approve, req.body.reason ?? '', req.ip)),
      },
      tags,
    );
  };
}
