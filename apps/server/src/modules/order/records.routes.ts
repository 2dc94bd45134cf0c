import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RecordApi, RecordApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { CompPowerService } from './comp-power.service';
import type { GrantService } from './grant.service';
import type { RecordService } from './record.service';

export interface RecordServices {
  compPowers: CompPowerService;
  records: RecordService;
  grants: GrantService;
}

/** Compute power, operators' grants and 费用明细's records, from their descriptors; registered under ORDER_BASE. */
export function recordRoutes({ compPowers, records, grants }: RecordServices): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      RecordApi,
      RecordApiSchemas,
      {
        compPowers: async (req) => ok(await compPowers.ofUser(principal(req), req.params.userId)),
        grant: async (req) => ok(await grants.byOperator(principal(req), req.body, req.ip)),
        grants: async (req) => ok(await grants.operatorGrants(principal(req), req.body)),
        page: async (req) => ok(await records.page(principal(req), req.body)),
        consumeStats: async (req) => ok(await records.consumeStats(principal(req), req.body)),
        daily: async (req) => ok(await records.days(principal(req), req.body)),
        charge: async (req) => ok(await records.charge(principal(req), req.params.id)),
        consume: async (req) => ok(await records.consume(principal(req), req.params.id)),
        teamCompPowers: async (req) => ok(await compPowers.ofTeam(principal(req), req.params.id)),
        teamUsage: async (req) => ok(await records.teamUsage(principal(req), req.body.teamId)),
      },
      ['order'],
    );
  };
}
