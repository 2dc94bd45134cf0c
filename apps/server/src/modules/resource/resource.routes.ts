import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DailyCardHours, DailyCardHoursQuery, Envelope, ResourceOverview, UtilizationQuery, UtilizationSeries, VendorCards } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { ResourceService } from './resource.service';

/** Registered under RESOURCE_BASE. */
export function resourceRoutes(resources: ResourceService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['resource'];
    app.get('/overview', {
      schema: { tags, summary: '各分中心、各卡型的总量/已分配/空闲、排队数、状态，以及我运行中的任务', response: { 200: Envelope(ResourceOverview) } },
      handler: async (req) => ok(await resources.overview(principal(req))),
    });
    app.get('/utilization', {
      schema: { tags, summary: '各分中心的卡利用率随时间变化', querystring: UtilizationQuery, response: { 200: Envelope(UtilizationSeries) } },
      handler: async (req) => {
        principal(req);
        return ok(await resources.utilization(req.query.hours));
      },
    });
    app.get('/vendors', {
      schema: { tags, summary: '按厂商汇总的卡数', response: { 200: Envelope(VendorCards) } },
      handler: async (req) => ok(await resources.vendors(principal(req))),
    });
    app.get('/card-hours', {
      schema: { tags, summary: '我每天使用的卡时', querystring: DailyCardHoursQuery, response: { 200: Envelope(DailyCardHours) } },
      handler: async (req) => ok(await resources.cardHours(principal(req), req.query.days)),
    });
  };
}
