import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { DictEntry, DictParams, Envelope, IdParams, SubCenter, SubCenterDetail } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import type { FoundationService } from './foundation.service';

/** The browser-facing origin of this gateway, whichever host name the user reached it by. */
const requestOrigin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

/** Registered under FOUNDATION_BASE. Public data of the platform, but still only for signed-in users. */
export function foundationRoutes(service: FoundationService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['foundation'];

    app.get('/sub-centers/action/list', {
      schema: { tags, summary: '算力分中心列表', response: { 200: Envelope(Type.Array(SubCenter)) } },
      handler: async (req) => ok(service.list(requestOrigin(req))),
    });

    app.get('/sub-centers/:id/detail', {
      schema: { tags, summary: '算力分中心详情', params: IdParams, response: { 200: Envelope(SubCenterDetail) } },
      handler: async (req) => ok(service.detail(req.params.id, requestOrigin(req))),
    });

    app.get('/dicts/action/query/dict/:dictName', {
      schema: { tags, summary: '字典查询', params: DictParams, response: { 200: Envelope(Type.Array(DictEntry)) } },
      handler: async (req) => ok(service.dict(req.params.dictName)),
    });
  };
}
