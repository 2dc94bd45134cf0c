import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CompPowers, CompPowersParams, Envelope } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { CompPowerService } from './comp-power.service';

/** Registered under ORDER_BASE. */
export function orderRoutes(compPowers: CompPowerService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['order'];

    app.get('/comp-powers/:userId', {
      schema: { tags, summary: '本人剩余算力（卡时）', params: CompPowersParams, response: { 200: Envelope(CompPowers) } },
      handler: async (req) => ok(await compPowers.ofUser(principal(req), req.params.userId)),
    });
  };
}
