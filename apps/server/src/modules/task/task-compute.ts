/**
 * The seam between tasks and compute power (ADR 0015), in both directions. The task module owns `tasks`; the
 * order module owns the buckets, the meters and the consume records. Neither reads the other's tables.
 */

import type { Principal } from '../access/principal';

/** A task as metering sees it (read through the task module's port, TaskUsageRepository). */
export interface MeterTask {
  id: string;
  owner_id: string;
  /** Whose buckets it draws from: null = the owner, `team:<id>` = a team (ADR 0017). */
  payer_id?: string | null;
  kind: string;
  name: string;
  state: string;
  sub_center_id: string;
  card_type_id: string;
  card_num: number;
  node_num: number;
  /** The scheduler's start and end (epoch ms), as the poller stored them; the end is null while it runs. */
  start_time: number;
  end_time: number | null;
}

/** What the task engine asks of compute power (the order module implements it). */
export interface TaskCompute {
  /**
   * The gate: refuses (2507, naming center, card type, balance and need) a submit whose matching compute
   * power cannot cover its first metering period. With `team` the team pays (ADR 0017): the caller
   * must be a member (1205 otherwise) within their monthly limit (2607); answers the payer to store
   * (`team:<id>`, or null for the caller's own buckets).
   */
  gate(ownerId: string, subCenterId: string, cardTypeId: string, cardNum: number, nodeNum: number, team?: { principal: Principal; teamId: string }): Promise<string | null>;
  /** Card-seconds drawn for the task so far (已消耗). */
  consumed(taskId: string): Promise<number>;
  /** The final draw of an ended task, before its row goes (a deleted task is still paid for). */
  settle(task: MeterTask): Promise<void>;
}

/** A task as the outside-job reading matches scheduler jobs to it. */
export interface TaggedTask {
  jobId: string | null;
  subCenterId: string;
  ownerId: string;
}

/** What metering reads of tasks and asks of the engine (the task module implements it). */
export interface TaskMeterSource {
  /** The center's tasks holding their allocation now (RUNNING, STOPPING) that have a start time. */
  running(subCenterId: string): Promise<MeterTask[]>;
  /** The center's ended tasks that had started, changed at or after `since` (their end was stored then). */
  endedSince(subCenterId: string, since: number): Promise<MeterTask[]>;
  /** These tasks, wherever they are (absent: deleted). */
  byIds(ids: string[]): Promise<MeterTask[]>;
  /**
   * These tasks (any state) with their job, center and owner: a scheduler job tagged with one's id is that
   * task's only when they match (issue 25) — the tag is a job name the user can set.
   */
  tagged(ids: string[]): Promise<Map<string, TaggedTask>>;
  /** Stops a RUNNING task whose compute power ran out: it ends UNDERPOWERED once the scheduler ends it. */
  stopUnderpowered(taskId: string, reason?: string): Promise<boolean>;
}

/** The reason a task stopped for lack of compute power carries, first while STOPPING, then UNDERPOWERED. */
export const UNDERPOWERED_REASON = '算力已用完，任务已停止。请购买算力后重新提交';

/**
 * The start of a reason for a team-paid task stopped by metering (ADR 0017): the member's monthly limit was
 * reached, or they left the team. It ends UNDERPOWERED like a task out of compute power, keeping its reason.
 */
export const TEAM_STOP_PREFIX = '团队付费已停止：';

/** Whether a STOPPING task's reason says metering stopped it (so it ends UNDERPOWERED, not STOPPED). */
export const isMeteringStop = (reason: string) => reason === UNDERPOWERED_REASON || reason.startsWith(TEAM_STOP_PREFIX);
