import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OutsideJobApi, OutsideJobApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { OutsideJobService } from './outside-job.service';

/** 外部作业 (the caller's own) and the operators' 计量对账 (issue 25), from their descriptors; under ORDER_BASE. */
export function outsideJobRoutes({ outside }: { outside: OutsideJobService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      OutsideJobApi,
      OutsideJobApiSchemas,
      {
        page: async (req) => ok(await outside.page(principal(req), req.body)),
        reconcile: async (req) => ok(await outside.reconcile(principal(req), req.body)),
      },
      ['order'],
    );
  };
}
