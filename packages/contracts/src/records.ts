import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Page, PageQuery } from './common';
import {
  ChargeRecord,
  CompPowers,
  CompPowersParams,
  ConsumeRecord,
  ConsumeStats,
  ConsumeStatsQuery,
  GrantBody,
  GrantRecord,
  ORDER_BASE,
  RecordDay,
  RecordPage,
  RecordPageQuery,
  RecordStatsQuery,
  TeamUsage,
  TeamUsageQuery,
} from './order';
import { route, type SchemasOf } from './route';

/** A grant as operators list them (算力发放): whom it went to, who gave it, until when. */
export const AdminGrant = Type.Composite([
  GrantRecord,
  Type.Object({
    /** The recipient: id, login name and display name (names empty when the account is gone). */
    userId: Id,
    username: Type.String(),
    nickname: Type.String(),
    /** The operator who gave it. */
    grantedByName: Type.String(),
    /** When the bucket it made expires. */
    expireTime: Millis,
    /** Given to a team (ADR 0017): its id and name (`userId` is then the team's payer key, names empty). */
    teamId: Type.Optional(Id),
    teamName: Type.Optional(Type.String()),
  }),
]);
export type AdminGrant = Static<typeof AdminGrant>;

export const AdminGrantPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    /** Only grants to this login name (exact, ignoring ASCII case). */
    username: Type.Optional(Type.String({ maxLength: 64 })),
  }),
]);
export type AdminGrantPageQuery = Static<typeof AdminGrantPageQuery>;
export const AdminGrantPage = Page(AdminGrant);
export type AdminGrantPage = Page<AdminGrant>;

const RecordDays = Type.Array(RecordDay);

/**
 * Compute power and 费用明细's records (ADR 0012, 0015) as route descriptors: the caller's balance, operators'
 * grants, the records and their totals. Served by the order module's `records.routes.ts`.
 */
export const RecordApi = {
  compPowers: route<{ params: typeof CompPowersParams; response: typeof CompPowers }>('GET', ORDER_BASE, '/comp-powers/:userId'),
  grant: route<{ body: typeof GrantBody; response: typeof GrantRecord }>('POST', ORDER_BASE, '/comp-powers/grant', { role: 'operator' }),
  grants: route<{ body: typeof AdminGrantPageQuery; response: typeof AdminGrantPage }>('POST', ORDER_BASE, '/comp-powers/grants/action/page', { role: 'operator' }),
  page: route<{ body: typeof RecordPageQuery; response: typeof RecordPage }>('POST', ORDER_BASE, '/records/action/page'),
  consumeStats: route<{ body: typeof ConsumeStatsQuery; response: typeof ConsumeStats }>('POST', ORDER_BASE, '/records/consume/action/stats'),
  daily: route<{ body: typeof RecordStatsQuery; response: typeof RecordDays }>('POST', ORDER_BASE, '/records/action/daily'),
  charge: route<{ params: typeof IdParams; response: typeof ChargeRecord }>('GET', ORDER_BASE, '/records/charge/:id'),
  consume: route<{ params: typeof IdParams; response: typeof ConsumeRecord }>('GET', ORDER_BASE, '/records/consume/:id'),
  teamCompPowers: route<{ params: typeof IdParams; response: typeof CompPowers }>('GET', ORDER_BASE, '/comp-powers/team/:id'),
  teamUsage: route<{ body: typeof TeamUsageQuery; response: typeof TeamUsage }>('POST', ORDER_BASE, '/records/consume/action/team-usage'),
};

export const RecordApiSchemas: SchemasOf<typeof RecordApi> = {
  compPowers: { summary: '本人剩余算力（卡时）', params: CompPowersParams, response: CompPowers },
  grant: { summary: '发放算力（运营人员，按用户名或团队名称；写审计日志）', body: GrantBody, response: GrantRecord },
  grants: { summary: '最近的算力发放（运营人员，可按用户名筛选）', body: AdminGrantPageQuery, response: AdminGrantPage },
  page: { summary: '充值记录 / 消费记录 / 赠送记录（按分中心、卡型、任务、时间筛选）', body: RecordPageQuery, response: RecordPage },
  consumeStats: { summary: '消费统计：按日、分中心、卡型汇总（卡时）', body: ConsumeStatsQuery, response: ConsumeStats },
  daily: { summary: '按日汇总（充值：笔数、卡时、金额；消费：任务数、卡时；按东八区自然日）', body: RecordStatsQuery, response: RecordDays },
  charge: { summary: '充值记录详情', params: IdParams, response: ChargeRecord },
  consume: { summary: '消费记录详情（一个任务在一天内从一份算力扣减的合计）', params: IdParams, response: ConsumeRecord },
  teamCompPowers: { summary: '团队剩余算力（卡时；团队成员可见）', params: IdParams, response: CompPowers },
  teamUsage: { summary: '团队成员本月用量（团队付费的任务，按卡型；含每月限额；团队成员可见）', body: TeamUsageQuery, response: TeamUsage },
};
