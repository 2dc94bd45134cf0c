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
  Order,
  OrderDetail,
  OrderPage,
  OrderPageQuery,
  OrderPre,
  PayBody,
  PayChannels,
  PayResult,
  Product,
  ProductParams,
  ProductQuery,
  RecordDay,
  RecordPage,
  RecordPageQuery,
  RecordStatsQuery,
} from '@suanli/contracts';
import { ok } from '../../lib/reply';
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

    app.get('/sub-center-card/:subCenterId/card-type', {
      schema: { tags, summary: '分中心在售算力卡（可按卡型筛选）', params: ProductParams, querystring: ProductQuery, response: { 200: Envelope(Type.Array(Product)) } },
      handler: async (req) => ok(orders.listProducts(req.params.subCenterId, req.query)),
    });

    app.post('/orders/pre', {
      schema: { tags, summary: '下单（服务端计价，30 分钟内未支付自动关闭）', body: OrderPre, response: { 200: Envelope(Order) } },
      handler: async (req) => ok(await orders.pre(principal(req), req.body)),
    });

    app.post('/orders/action/page', {
      schema: { tags, summary: '订单列表（运维人员可查看全部）', body: OrderPageQuery, response: { 200: Envelope(OrderPage) } },
      handler: async (req) => ok(await orders.page(principal(req), req.body)),
    });

    app.get('/orders/:id', {
      schema: { tags, summary: '订单详情', params: IdParams, response: { 200: Envelope(OrderDetail) } },
      handler: async (req) => ok(await orders.detail(principal(req), req.params.id)),
    });

    app.post('/orders/:id/cancel', {
      schema: { tags, summary: '取消未支付的订单', params: IdParams, response: { 200: Envelope(Order) } },
      handler: async (req) => ok(await orders.cancel(principal(req), req.params.id)),
    });

    app.get('/pay/channels', {
      schema: { tags, summary: '可用的支付方式（支付宝仅在已配置时可用）', response: { 200: Envelope(PayChannels) } },
      handler: async () => ok(orders.channels()),
    });

    app.post('/orders/:id/pay', {
      schema: { tags, summary: '选择支付方式（线下转账返回收款账户，支付宝返回收银台地址）', params: IdParams, body: PayBody, response: { 200: Envelope(PayResult) } },
      handler: async (req) => ok(await orders.pay(principal(req), req.params.id, req.body)),
    });

    app.post('/orders/:id/confirm', {
      config: { role: 'operator' },
      schema: { tags, summary: '确认线下转账已到账（运维人员）', params: IdParams, response: { 200: Envelope(Order) } },
      handler: async (req) => ok(await orders.confirm(principal(req), req.params.id)),
    });

    // Alipay posts its notify form-encoded; parsed here only, for this plugin's routes.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, raw, done) => {
      done(null, Object.fromEntries(new URLSearchParams(raw as string)));
    });
    app.post('/pay/alipay/notify', {
      config: { public: true },
      schema: {
        tags,
        summary: '支付宝异步通知（验签后入账，应答 success / failure 纯文本）',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Record(Type.String(), Type.String()),
        response: { 200: Type.String() },
      },
      // Alipay reads a plain-text word, not the envelope.
      handler: async (req, reply) => reply.type('text/plain; charset=utf-8').send(await orders.alipayNotify(req.body)),
    });

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
