import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, IdParams, Page, SYNC_GRANT_HEADER, SyncCreate, SyncGrant, SyncGrantQuery, SyncJob, SyncPageQuery } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { SyncJobService } from './sync.service';

/** Registered under SYNC_BASE. */
export function syncRoutes(jobs: SyncJobService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['sync'];
    app.post('/syncs', {
      schema: { tags, summary: '创建跨中心同步任务（文件夹或文件 → 另一分中心的目录）', body: SyncCreate, response: { 200: Envelope(SyncJob) } },
      handler: async (req) => ok(await jobs.create(principal(req), req.body)),
    });
    app.post('/syncs/action/page', {
      schema: { tags, summary: '我的跨中心同步任务（最新在前）', body: SyncPageQuery, response: { 200: Envelope(Page(SyncJob)) } },
      handler: async (req) => ok(await jobs.page(principal(req), req.body)),
    });
    app.get('/syncs/:id', {
      schema: { tags, summary: '同步任务详情', params: IdParams, response: { 200: Envelope(SyncJob) } },
      handler: async (req) => ok(await jobs.detail(principal(req), req.params.id)),
    });
    app.post('/syncs/:id/cancel', {
      schema: { tags, summary: '取消同步任务（目标分中心已暂存的内容被删除）', params: IdParams, response: { 200: Envelope(SyncJob) } },
      handler: async (req) => ok(await jobs.cancel(principal(req), req.params.id)),
    });
    // Called by standalone file services (no session): the job's grant in the `sync-grant` header.
    app.get('/agent/grant', {
      config: { public: true },
      schema: { tags, summary: '文件服务：解析同步凭证（sync-grant 头）在该分中心的权限', querystring: SyncGrantQuery, security: [], response: { 200: Envelope(SyncGrant) } },
      handler: async (req) => {
        const raw = req.headers[SYNC_GRANT_HEADER];
        return ok(await jobs.resolveGrant(typeof raw === 'string' ? raw : undefined, req.query.subCenterId));
      },
    });
  };
}
