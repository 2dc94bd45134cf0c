import { Type, type Static } from '@sinclair/typebox';
import { Millis } from './common';
import { route, type SchemasOf } from './route';

/**
 * 资源 (issue 10 item 4): what each sub-center has free, from the scheduler (sampled by the center's
 * poller, one scheduler query per center per sample however many consoles are open), and the caller's own use.
 */
export const RESOURCE_BASE = '/gateway/resource/api/v1';
/** Samples are kept this long. */
export const RESOURCE_KEEP_MS = 7 * 24 * 3600_000;

export const CenterState = Type.Union([Type.Literal('online'), Type.Literal('maintenance'), Type.Literal('offline')]);
export type CenterState = Static<typeof CenterState>;

export const ResourceCardType = Type.Object({
  cardTypeId: Type.String(),
  cardTypeName: Type.String(),
  vendor: Type.String(),
  /** An accelerator (GPU/NPU/DCU); false for a CPU-only type, whose "cards" are cores. */
  accelerator: Type.Boolean(),
  /** Cards of the type (Slurm: the nodes' gres). */
  total: Type.Integer(),
  allocated: Type.Integer(),
  idle: Type.Integer(),
  nodesTotal: Type.Integer(),
  /** Nodes with no card in use. */
  nodesIdle: Type.Integer(),
  /** Jobs of the type waiting (all users). */
  queued: Type.Integer(),
});
export type ResourceCardType = Static<typeof ResourceCardType>;

export const MyRunningTask = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  type: Type.String(),
  name: Type.String(),
  state: Type.String(),
  cardTypeName: Type.String(),
  cards: Type.Integer(),
  startTime: Type.Union([Millis, Type.Null()]),
});
export type MyRunningTask = Static<typeof MyRunningTask>;

export const ResourceCenter = Type.Object({
  subCenterId: Type.String(),
  subCenterName: Type.String(),
  region: Type.String(),
  /** From the operators (maintenance) or from reachability (offline: the last sample failed or is stale). */
  state: CenterState,
  /** When the numbers were read from the scheduler; null before the first sample. */
  sampledAt: Type.Union([Millis, Type.Null()]),
  cardTypes: Type.Array(ResourceCardType),
  myRunning: Type.Array(MyRunningTask),
});
export type ResourceCenter = Static<typeof ResourceCenter>;

export const ResourceOverview = Type.Object({ centers: Type.Array(ResourceCenter), sampleIntervalMs: Type.Integer() });
export type ResourceOverview = Static<typeof ResourceOverview>;

export const UtilizationQuery = Type.Object({ hours: Type.Integer({ minimum: 1, maximum: 168, default: 24 }) });
export type UtilizationQuery = Static<typeof UtilizationQuery>;

export const UtilizationSeries = Type.Object({
  centers: Type.Array(
    Type.Object({
      subCenterId: Type.String(),
      subCenterName: Type.String(),
      /** Accelerator cards allocated ÷ accelerator cards, per sample (0–1); CPU-only types are left out. */
      points: Type.Array(Type.Object({ at: Millis, utilization: Type.Number(), allocated: Type.Integer(), total: Type.Integer() })),
    }),
  ),
});
export type UtilizationSeries = Static<typeof UtilizationSeries>;

/** Accelerator cards per vendor (CPU-only types are left out). */
export const VendorCards = Type.Array(Type.Object({ vendor: Type.String(), total: Type.Integer(), allocated: Type.Integer() }));
export type VendorCards = Static<typeof VendorCards>;

export const DailyCardHoursQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 31, default: 14 }) });
export type DailyCardHoursQuery = Static<typeof DailyCardHoursQuery>;

/** The caller's card-hours per calendar day (UTC+8, the platform's time zone), oldest first. */
export const DailyCardHours = Type.Array(Type.Object({ day: Type.String(), cardHours: Type.Number() }));
export type DailyCardHours = Static<typeof DailyCardHours>;

export const ResourceApi = {
  overview: route<{ response: typeof ResourceOverview }>('GET', RESOURCE_BASE, '/overview'),
  utilization: route<{ query: typeof UtilizationQuery; response: typeof UtilizationSeries }>('GET', RESOURCE_BASE, '/utilization'),
  vendors: route<{ response: typeof VendorCards }>('GET', RESOURCE_BASE, '/vendors'),
  cardHours: route<{ query: typeof DailyCardHoursQuery; response: typeof DailyCardHours }>('GET', RESOURCE_BASE, '/card-hours'),
};

export const ResourceApiSchemas: SchemasOf<typeof ResourceApi> = {
  overview: { summary: '各分中心、各卡型的总量/已分配/空闲、排队数、状态，以及我运行中的任务', response: ResourceOverview },
  utilization: { summary: '各分中心的卡利用率随时间变化', querystring: UtilizationQuery, response: UtilizationSeries },
  vendors: { summary: '按厂商汇总的卡数', response: VendorCards },
  cardHours: { summary: '我每天使用的卡时', querystring: DailyCardHoursQuery, response: DailyCardHours },
};
