import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ImageImport, ImageImportCreate, ImageImportParams, ImageNameQuery, ImageRepository, ImageRepositoryList, ImageTagParams, Null, RegistryCredential, RegistryInfo } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { ImageService } from './image.service';

/** Registered under IMAGE_BASE. */
export function imageRoutes(images: ImageService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['image'];
    // The registry's token endpoint (Docker registry token protocol): not enveloped, HTTP Basic, no session.
    app.get('/registry/token', {
      config: { public: true },
      schema: {
        tags,
        summary: '镜像仓库令牌（Docker Registry Token 协议，供 docker / skopeo 使用）',
        querystring: Type.Object({ service: Type.Optional(Type.String()), scope: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])), account: Type.Optional(Type.String()) }),
      },
      handler: async (req, reply) => {
        const answer = await images.token(req.query, req.headers.authorization);
        if (!answer) return reply.code(401).header('www-authenticate', 'Basic realm="suanli registry"').send({ errors: [{ code: 'UNAUTHORIZED', message: '用户名或镜像仓库密码错误' }] });
        return reply.header('cache-control', 'no-store').send(answer);
      },
    });
    app.get('/registry', {
      schema: { tags, summary: '镜像仓库地址与我的命名空间', response: { 200: Envelope(RegistryInfo) } },
      handler: async (req) => ok(await images.info(principal(req))),
    });
    app.post('/registry/credential/reset', {
      schema: { tags, summary: '重置镜像仓库密码（新密码仅显示一次）', response: { 200: Envelope(RegistryCredential) } },
      handler: async (req) => ok(await images.resetCredential(principal(req))),
    });
    app.get('/images', {
      schema: { tags, summary: '我的私有镜像（仓库与标签）', response: { 200: Envelope(ImageRepositoryList) } },
      handler: async (req) => ok(await images.list(principal(req))),
    });
    app.get('/images/detail', {
      schema: { tags, summary: '私有镜像详情（标签、摘要、大小、层数、创建时间）', querystring: ImageNameQuery, response: { 200: Envelope(ImageRepository) } },
      handler: async (req) => ok(await images.detail(principal(req), req.query.name)),
    });
    app.delete('/images/tags', {
      schema: { tags, summary: '删除镜像标签', querystring: ImageTagParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await images.deleteTag(principal(req), req.query.name, req.query.tag)),
    });
    app.post('/imports', {
      schema: { tags, summary: '从存储中的镜像文件（docker save / OCI 归档）导入到我的命名空间；进度经 image.import.changed 推送', body: ImageImportCreate, response: { 200: Envelope(ImageImport) } },
      handler: async (req) => ok(await images.startImport(principal(req), req.body)),
    });
    app.get('/imports/:id', {
      schema: { tags, summary: '镜像导入的状态与进度', params: ImageImportParams, response: { 200: Envelope(ImageImport) } },
      handler: async (req) => ok(await images.getImport(principal(req), req.params.id)),
    });
  };
}
