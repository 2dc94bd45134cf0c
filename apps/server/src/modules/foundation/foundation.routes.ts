import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DictEntrySchema, DictParams, Envelope, FOUNDATION_BASE, IdParams, SubCenter, SubCenterDetail } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { ok } from '../../lib/reply';
import { FoundationService } from './foundation.service';

export const requestOrigin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

export async function foundationRoutes(app: FastifyInstance, ctx: AppContext) {
  const service = new FoundationService(ctx.centers);
  const tags = ['foundation'];

  app.get(`${FOUNDATION_BASE}/sub-centers/action/list`, {
    schema: { tags, summary: '算力分中心列表', response: { 200: Envelope(Type.Array(SubCenter)) } },
    handler: async (req) => ok(service.list(requestOrigin(req))),
  });

  app.get<{ Params: { id: string } }>(`${FOUNDATION_BASE}/sub-centers/:id/detail`, {
    schema: { tags, summary: '算力分中心详情', params: IdParams, response: { 200: Envelope(SubCenterDetail) } },
    handler: async (req) => ok(service.detail(req.params.id, requestOrigin(req))),
  });

  app.get<{ Params: { dictName: string } }>(`${FOUNDATION_BASE}/dicts/action/query/dict/:dictName`, {
    schema: { tags, summary: '字典查询', params: DictParams, response: { 200: Envelope(Type.Array(DictEntrySchema)) } },
    handler: async (req) => ok(service.dict(req.params.dictName)),
  });
}
