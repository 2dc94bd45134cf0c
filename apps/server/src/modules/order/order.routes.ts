import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  ChargeRecord,
  CompPowers,
  CompPowersParams,
  ConsumeRecord,
  ConsumeStats,
  ConsumeStatsQuery,
  Envelope,
  GrantBody,
  GrantRecord,
  IdParams,
  OrderApi,
  OrderApiSchemas,
  RecordDay,
  RecordPage,
  RecordPageQuery,
  RecordStatsQuery,
} from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { CompPowerService } from './comp-power.service';
import type { GrantService } from './grant.service';
import type { OrderService } from './order.service';
import type { RecordService } from './record.service';

export interface OrderServices {
  compPowers: CompPowerService;
  orders: OrderService;
  records: RecordService;
  grants: GrantService;
}

/** Registered under ORDER_BASE. */
export function orderRoutes({ compPowers, orders, records, grants }: OrderServices): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['order'];

    app.get('/comp-powers/:userId', {
      schema: { tags, summary: '本人剩余算力（卡时）', params: CompPowersParams, response: { 200: Envelope(CompPowers) } },
      handler: async (req) => ok(await compPowers.ofUser(principal(req), req.params.userId)),
    });

    app.post('/comp-powers/grant', {
      config: { role: 'operator' },
      schema: { tags, summary: '赠送算力（运维人员，按用户名）', body: GrantBody, response: { 200: Envelope(GrantRecord) } },
      handler: async (req) => ok(await grants.byOperator(principal(req), req.body)),
    });

    // The order routes, from their descriptors (OrderApi); compute power and records above and below are not yet.
    // Alipay posts its notify form-encoded; parsed here only, for this plugin's routes.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, raw, done) => {
      done(null, Object.fromEntries(new URLSearchParams(raw as string)));
    });
    serve(
      app,
      OrderApi,
      OrderApiSchemas,
      {
        products: async (req) => ok(await orders.listProducts(req.params.subCenterId, req.query)),
        pre: async (req) => ok(await orders.pre(principal(req), req.body)),
        page: async (req) => ok(await orders.page(principal(req), req.body)),
        detail: async (req) => ok(await orders.detail(principal(req), req.params.id)),
        cancel: async (req) => ok(await orders.cancel(principal(req), req.params.id)),
        channels: async () => ok(orders.channels()),
        pay: async (req) => ok(await orders.pay(principal(req), req.params.id, req.body)),
        confirm: async (req) => ok(await orders.confirm(principal(req), req.params.id, req.ip)),
        // Alipay reads a plain-text word, not the envelope.
        alipayNotify: { text: (req) => orders.alipayNotify(req.body), options: { schema: { consumes: ['application/x-www-form-urlencoded'] } } },
      },
      tags,
    );

    app.post('/records/action/page', {
      schema: { tags, summary: '充值记录 / 消费记录 / 赠送记录（按分中心、卡型、任务、时间筛选）', body: RecordPageQuery, response: { 200: Envelope(RecordPage) } },
      handler: async (req) => ok(await records.page(principal(req), req.body)),
    });

    app.post('/records/consume/action/stats', {
      schema: { tags, summary: '消费统计：按日、分中心、卡型汇总（卡时）', body: ConsumeStatsQuery, response: { 200: Envelope(ConsumeStats) } },
      handler: async (req) => ok(await records.consumeStats(principal(req), req.body)),
    });

    app.post('/records/action/daily', {
      schema: { tags, summary: '按日汇总（充值记录：笔数、卡时、金额；按东八区自然日）', body: RecordStatsQuery, response: { 200: Envelope(Type.Array(RecordDay)) } },
      handler: async (req) => ok(await records.days(principal(req), req.body)),
    });

    app.get('/records/charge/:id', {
      schema: { tags, summary: '充值记录详情', params: IdParams, response: { 200: Envelope(ChargeRecord) } },
      handler: async (req) => ok(await records.charge(principal(req), req.params.id)),
    });

    app.get('/records/consume/:id', {
      schema: { tags, summary: '消费记录详情（一个任务在一天内从一份算力扣减的合计）', params: IdParams, response: { 200: Envelope(ConsumeRecord) } },
      handler: async (req) => ok(await records.consume(principal(req), req.params.id)),
    });
  };
}
