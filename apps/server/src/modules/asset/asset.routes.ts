import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AssetCreate,
  AssetDetail,
  AssetFileList,
  AssetList,
  AssetReview,
  AssetFilesQuery,
  AssetPage,
  AssetPageQuery,
  AssetReadme,
  AssetShareBody,
  AssetUpdate,
  AssetVersion,
  AssetVersionCreate,
  AssetVersionParams,
  Envelope,
  Id,
  IdParams,
  ModelFromTask,
  MountableQuery,
  MountableVersionList,
  Null,
} from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { AssetService } from './asset.service';

/** Registered under DATASET_BASE (`/datasets…`) and MODEL_BASE (`/models…`): the same calls for both kinds. */
export function assetRoutes(assets: AssetService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const what = assets.kind === 'dataset' ? '数据集' : '模型';
    const base = `/${assets.kind}s`;
    const tags = [assets.kind];
    app.post(`${base}/action/page`, {
      schema: { tags, summary: `${what}列表（我的 / 共享给我的）`, body: AssetPageQuery, response: { 200: Envelope(AssetPage) } },
      handler: async (req) => ok(await assets.page(principal(req), req.body)),
    });
    app.get(`${base}/action/mountable`, {
      schema: { tags, summary: `可在训练任务中挂载的${what}版本（我的与共享给我的）`, querystring: MountableQuery, response: { 200: Envelope(MountableVersionList) } },
      handler: async (req) => ok(await assets.mountable(principal(req), req.query.subCenterId)),
    });
    app.post(base, {
      schema: { tags, summary: `创建${what}（可同时从存储中的文件夹生成 v1）`, body: AssetCreate, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.create(principal(req), req.body)),
    });
    app.get(`${base}/:id`, {
      schema: { tags, summary: `${what}详情（版本与共享）`, params: IdParams, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.detail(principal(req), req.params.id)),
    });
    app.put(`${base}/:id`, {
      schema: { tags, summary: `修改${what}信息（仅所有者）`, params: IdParams, body: AssetUpdate, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.update(principal(req), req.params.id, req.body)),
    });
    app.delete(`${base}/:id`, {
      schema: { tags, summary: `删除${what}及其全部版本（仅所有者）`, params: IdParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await assets.remove(principal(req), req.params.id)),
    });
    app.post(`${base}/:id/versions`, {
      schema: { tags, summary: `从存储中的文件夹创建新版本（不可变快照）`, params: IdParams, body: AssetVersionCreate, response: { 200: Envelope(AssetVersion) } },
      handler: async (req) => ok(await assets.addVersion(principal(req), req.params.id, req.body)),
    });
    app.delete(`${base}/:id/versions/:versionId`, {
      schema: { tags, summary: '删除版本（仅所有者）', params: AssetVersionParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await assets.removeVersion(principal(req), req.params.id, req.params.versionId)),
    });
    app.get(`${base}/:id/versions/:versionId/files`, {
      schema: { tags, summary: '版本中的文件（只读浏览）', params: AssetVersionParams, querystring: AssetFilesQuery, response: { 200: Envelope(AssetFileList) } },
      handler: async (req) => ok(await assets.files(principal(req), req.params.id, req.params.versionId, req.query.path)),
    });
    app.get(`${base}/:id/versions/:versionId/readme`, {
      schema: { tags, summary: '版本的 README（Markdown 原文）', params: AssetVersionParams, response: { 200: Envelope(AssetReadme) } },
      handler: async (req) => ok(await assets.readme(principal(req), req.params.id, req.params.versionId)),
    });
    app.get(`${base}/:id/versions/:versionId/download`, {
      schema: { tags, summary: '下载版本中的一个文件', params: AssetVersionParams, querystring: AssetFilesQuery, response: { 200: Type.Unknown() } },
      handler: async (req, reply) => {
        const { stream, size } = await assets.openFile(principal(req), req.params.id, req.params.versionId, req.query.path);
        // A client that goes away mid-file lets the file (or the file service's answer) go at once.
        reply.raw.once('close', () => stream.destroy());
        const name = req.query.path.split('/').pop() ?? 'file';
        return reply
          .header('content-type', 'application/octet-stream')
          .header('content-length', String(size))
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
          .send(stream);
      },
    });
    app.post(`${base}/:id/shares`, {
      schema: { tags, summary: `共享给指定用户（只读）`, params: IdParams, body: AssetShareBody, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.share(principal(req), req.params.id, req.body.usernames)),
    });
    app.delete(`${base}/:id/shares/:userId`, {
      schema: { tags, summary: '取消共享', params: Type.Object({ id: Id, userId: Id }), response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.unshare(principal(req), req.params.id, req.params.userId)),
    });
    if (assets.kind === 'model') {
      app.post(`${base}/action/register-from-task`, {
        schema: { tags, summary: '登记为模型：把运行成功的训练任务的输出文件夹生成模型版本', body: ModelFromTask, response: { 200: Envelope(AssetDetail) } },
        handler: async (req) => ok(await assets.registerFromTask(principal(req), req.body)),
      });
    }
    app.post(`${base}/:id/add-to-mine`, {
      schema: { tags, summary: '从公共资源大厅添加到我的（出现在共享列表中）', params: IdParams, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.addToMine(principal(req), req.params.id)),
    });
    app.get(`${base}/action/pending-publication`, {
      config: { role: 'operator' },
      schema: { tags, summary: `待审核的公开申请（运营）`, response: { 200: Envelope(AssetList) } },
      handler: async (req) => ok(await assets.pending(principal(req))),
    });
    app.post(`${base}/:id/publish/review`, {
      config: { role: 'operator' },
      schema: { tags, summary: '审核公开申请：通过后出现在公共资源大厅（运营）', params: IdParams, body: AssetReview, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.review(principal(req), req.params.id, req.body.approve, req.body.reason ?? '')),
    });
    app.post(`${base}/:id/publish`, {
      schema: { tags, summary: '申请发布到公共资源大厅（运营审核）', params: IdParams, response: { 200: Envelope(AssetDetail) } },
      handler: async (req) => ok(await assets.requestPublish(principal(req), req.params.id)),
    });
  };
}
