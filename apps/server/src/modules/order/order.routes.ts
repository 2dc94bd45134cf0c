import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  Envelope,
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
} from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { OrderService } from './order.service';

/** Registered under ORDER_BASE; compute power and the records are in records.routes.ts. */
export function orderRoutes({ orders }: { orders: OrderService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['order'];

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
  };
}
