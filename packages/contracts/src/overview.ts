import { Type, type Static } from '@sinclair/typebox';
import { ADMIN_BASE } from './admin';
import { Id, Millis } from './common';
import { SubCenterStatus } from './foundation';
import { route, type SchemasOf } from './route';

/**
 * 运营管理 › 平台概览 (issue 20): accounts, what holds cards now per center, and card-hours sold, granted and
 * consumed per day. One read for operators; the figures are the modules' own (users, tasks, records).
 */
export const OVERVIEW_DAYS_MIN = 7;
export const OVERVIEW_DAYS_MAX = 90;
export const OVERVIEW_DAYS_DEFAULT = 30;

/** `GET /overview?days=`: how many calendar days (UTC+8, today included) the per-day series covers. */
export const AdminOverviewQuery = Type.Object({
  days: Type.Integer({ minimum: OVERVIEW_DAYS_MIN, maximum: OVERVIEW_DAYS_MAX, default: OVERVIEW_DAYS_DEFAULT }),
});
export type AdminOverviewQuery = Static<typeof AdminOverviewQuery>;

export const OverviewUsers = Type.Object({
  total: Type.Integer(),
  active: Type.Integer(),
  disabled: Type.Integer(),
  /** Registered in the last 7 × 24 hours. */
  newLast7Days: Type.Integer(),
});
export type OverviewUsers = Static<typeof OverviewUsers>;

/** One card type of a center: cards held by tasks now and the center's cards of that type. */
export const OverviewCardType = Type.Object({
  id: Id,
  name: Type.String(),
  /** False for a CPU-only type, whose "cards" are cores (counted in 核, not 张). */
  accelerator: Type.Boolean(),
  runningTasks: Type.Integer(),
  cardsInUse: Type.Integer(),
  totalCards: Type.Integer(),
});
export type OverviewCardType = Static<typeof OverviewCardType>;

export const OverviewCenter = Type.Object({
  id: Id,
  name: Type.String(),
  status: SubCenterStatus,
  /** Tasks holding cards now (starting, running or stopping). */
  runningTasks: Type.Integer(),
  cardTypes: Type.Array(OverviewCardType),
});
export type OverviewCenter = Static<typeof OverviewCenter>;

/** One calendar day (UTC+8) in card-seconds (exact; the console shows 卡时). */
export const OverviewDay = Type.Object({
  /** `YYYY-MM-DD`. */
  day: Type.String(),
  /** Credited by paid orders (充值), grants not included. */
  soldCardSeconds: Type.Integer(),
  /** Grants (operators', welcome and demo grants). */
  grantedCardSeconds: Type.Integer(),
  /** Drawn by tasks (消费记录 of that day). */
  consumedCardSeconds: Type.Integer(),
});
export type OverviewDay = Static<typeof OverviewDay>;

export const AdminOverview = Type.Object({
  users: OverviewUsers,
  centers: Type.Array(OverviewCenter),
  /** Every day of the range, oldest first, zero where nothing happened. */
  days: Type.Array(OverviewDay),
  time: Millis,
});
export type AdminOverview = Static<typeof AdminOverview>;

/** 平台概览: served by the overview module. */
export const AdminOverviewApi = {
  get: route<{ query: typeof AdminOverviewQuery; response: typeof AdminOverview }>('GET', ADMIN_BASE, '/overview', { role: 'operator' }),
};

export const AdminOverviewApiSchemas: SchemasOf<typeof AdminOverviewApi> = {
  get: { summary: '平台概览：用户、各分中心运行任务与用卡、每日售出/赠送/消耗卡时（运营人员）', querystring: AdminOverviewQuery, response: AdminOverview },
};
