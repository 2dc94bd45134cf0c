import type { FastifyInstance } from 'fastify';
import { CompPowers, CompPowersParams, Envelope, ORDER_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import { CompPowerService } from './comp-power.service';

export async function orderRoutes(app: FastifyInstance, ctx: AppContext) {
  const compPowers = new CompPowerService(ctx);
  const tags = ['order'];

  app.get<{ Params: { userId: string } }>(`${ORDER_BASE}/comp-powers/:userId`, {
    schema: { tags, summary: '本人剩余算力（卡时）', params: CompPowersParams, response: { 200: Envelope(CompPowers) } },
    handler: async (req) => ok(await compPowers.ofUser(principal(req), req.params.userId)),
  });
}
