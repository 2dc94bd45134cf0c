import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Page, PageQuery } from './common';
import { CardHours, ORDER_BASE } from './order';
import { route, type SchemasOf } from './route';
import { JobState } from './task';

/**
 * 外部作业 (issue 25): jobs a user ran on a center without the console — `sbatch`, `srun`, `salloc` over SSH
 * or the web shell, as their cluster account. The center's accounting reports them; metering draws them from
 * the owner's compute power like tasks (same rounding, same exactly-once meters). Read-only.
 */
export const OutsideJob = Type.Object({
  /** `<center>:<jobId>`: also the `taskId` of its 消费记录 (taskKind `outside`). */
  id: Id,
  jobId: Type.String(),
  /** The cluster account it ran as. */
  account: Type.String(),
  /** The job's name (sbatch's `--job-name`, else the script or command). */
  name: Type.String(),
  /** The platform's state (QUEUED, RUNNING, SUCCEEDED, FAILED, STOPPED, UNDERPOWERED when metering ended it). */
  state: JobState,
  /** The scheduler's own state word (`COMPLETED`, `CANCELLED`, `TIMEOUT`…). */
  slurmState: Type.String(),
  /** Why the platform ended it ('' when it did not). */
  reason: Type.String(),
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  partition: Type.String(),
  /** Cards per node (0: CPU only) and nodes, as the scheduler allocated them. */
  cardNum: Type.Integer(),
  nodeNum: Type.Integer(),
  billedCards: Type.Integer(),
  submitTime: Type.Union([Millis, Type.Null()]),
  startTime: Type.Union([Millis, Type.Null()]),
  endTime: Type.Union([Millis, Type.Null()]),
  /** Drawn so far (卡时, and exactly in card-seconds). */
  consumed: CardHours,
  consumedSeconds: Type.Integer(),
});
export type OutsideJob = Static<typeof OutsideJob>;

export const OutsideJobPageQuery = Type.Composite([PageQuery, Type.Object({ subCenterId: Type.Optional(Id) })]);
export type OutsideJobPageQuery = Static<typeof OutsideJobPageQuery>;
export const OutsideJobPage = Page(OutsideJob);
export type OutsideJobPage = Page<OutsideJob>;

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

/** 对账 (operators): accounting against draws, per center and day (UTC+8), both ends included, at most 31 days. */
export const ReconcileQuery = Type.Object({ subCenterId: Type.Optional(Id), fromDay: Day, toDay: Day });
export type ReconcileQuery = Static<typeof ReconcileQuery>;

export const ReconcileDay = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  day: Type.String(),
  /** Card-seconds of the day's ended jobs of pool accounts as the scheduler's accounting has them. */
  accountedSeconds: Type.Integer(),
  /** Card-seconds drawn for the same day (consume records). */
  drawnSeconds: Type.Integer(),
  /** drawn − accounted (0 expected). */
  differenceSeconds: Type.Integer(),
  jobs: Type.Integer(),
});
export type ReconcileDay = Static<typeof ReconcileDay>;

export const ReconcileDifference = Type.Object({
  subCenterId: Id,
  day: Type.String(),
  /** The scheduler's job id ('' for draws no accounted job matches). */
  jobId: Type.String(),
  /** `task` (submitted by the console), `outside` (外部作业) or `unknown` (no metering for it, or no job for the draws). */
  kind: Type.Union([Type.Literal('task'), Type.Literal('outside'), Type.Literal('unknown')]),
  /** The task id or the outside job's id the draws are kept under ('' when none). */
  meterKey: Type.String(),
  name: Type.String(),
  account: Type.String(),
  accountedSeconds: Type.Integer(),
  drawnSeconds: Type.Integer(),
  differenceSeconds: Type.Integer(),
});
export type ReconcileDifference = Static<typeof ReconcileDifference>;

export const Reconciliation = Type.Object({
  days: Type.Array(ReconcileDay),
  /** Every (job, day) whose draws differ from accounting. */
  differences: Type.Array(ReconcileDifference),
  /** Jobs of the range still running (left out: their draws are interim). */
  running: Type.Integer(),
  /** Centers whose accounting could not be read (named), or that have none (the local scheduler). */
  unavailable: Type.Array(Type.String()),
  /** Centers whose accounting was read and compared (named): none means nothing was reconciled. */
  reconciled: Type.Array(Type.String()),
});
export type Reconciliation = Static<typeof Reconciliation>;

export const OutsideJobApi = {
  page: route<{ body: typeof OutsideJobPageQuery; response: typeof OutsideJobPage }>('POST', ORDER_BASE, '/outside-jobs/action/page'),
  reconcile: route<{ body: typeof ReconcileQuery; response: typeof Reconciliation }>('POST', ORDER_BASE, '/metering/action/reconcile', { role: 'operator' }),
};

export const OutsideJobApiSchemas: SchemasOf<typeof OutsideJobApi> = {
  page: { summary: '外部作业（本人在登录节点直接提交的作业，按计费规则扣减算力；只读）', body: OutsideJobPageQuery, response: OutsideJobPage },
  reconcile: { summary: '计量对账（运营人员）：按分中心、日期比较调度器记账的卡秒与已扣减的卡秒，列出每一处差异', body: ReconcileQuery, response: Reconciliation },
};
