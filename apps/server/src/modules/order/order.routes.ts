import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OrderApi, OrderApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { OrderService } from './order.service';

/** Registered under ORDER_BASE, from their descriptors (OrderApi); compute power and the records are in records.routes.ts. */
export function orderRoutes({ orders }: { orders: OrderService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['order'];
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
  };
}
