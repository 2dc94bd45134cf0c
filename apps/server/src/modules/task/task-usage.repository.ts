import { TERMINAL_STATES } from '@suanli/contracts';
import type { Db } from '../../db/db';
import type { MeterTask } from './task-compute';

/** What metering reads of a task (task-compute.ts, MeterTask). */
const METER_COLUMNS = ['id', 'owner_id', 'payer_id', 'kind', 'name', 'state', 'sub_center_id', 'card_type_id', 'card_num', 'node_num', 'start_time', 'end_time'] as const;

/**
 * What other modules may read about a user's use of compute (the resource dashboard): the tasks holding cards
 * now and those that ran in a window. The task module owns the `tasks` table; this read-only repository is
 * the port it hands out for them (`createTaskModule(...).usage`), kept apart from the state engine.
 */
export class TaskUsageRepository {
  constructor(private readonly db: Db) {}

  /** The owner's tasks holding cards now (any family), newest start first. */
  running(ownerId: string) {
    return this.db
      .selectFrom('tasks')
      .select(['id', 'kind', 'type', 'name', 'state', 'sub_center_id', 'card_type_id', 'card_num', 'node_num', 'start_time'])
      .where('owner_id', '=', ownerId)
      .where('state', 'in', ['STARTING', 'RUNNING', 'STOPPING'])
      .orderBy('start_time', 'desc')
      .execute();
  }

  /** The owner's tasks that ran at some point after `from` (for card-hours per day). */
  ranSince(ownerId: string, from: number) {
    return this.db
      .selectFrom('tasks')
      .select(['card_num', 'node_num', 'start_time', 'end_time'])
      .where('owner_id', '=', ownerId)
      .where('start_time', 'is not', null)
      .where((eb) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', from)]))
      .execute();
  }

  /**
   * Every center's tasks holding cards now (the same states as `running`), per card type: how many tasks and
   * how many cards (cards per node × nodes) — 平台概览.
   */
  async runningByCenter(): Promise<{ subCenterId: string; cardTypeId: string; tasks: number; cards: number }[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select((eb) => ['sub_center_id', 'card_type_id', eb.fn.countAll<number>().as('tasks'), eb.fn.sum<number>(eb('card_num', '*', eb.ref('node_num'))).as('cards')])
      .where('state', 'in', ['STARTING', 'RUNNING', 'STOPPING'])
      .groupBy(['sub_center_id', 'card_type_id'])
      .execute();
    // PostgreSQL answers counts and sums as strings.
    return rows.map((r) => ({ subCenterId: r.sub_center_id, cardTypeId: r.card_type_id, tasks: Number(r.tasks), cards: Number(r.cards ?? 0) }));
  }

  // ---- metering (ADR 0015): the order module's read port ------------------------------------------------

  /** A center's tasks holding their allocation now that have a start time (the scheduler's). */
  async meterRunning(subCenterId: string): Promise<MeterTask[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(METER_COLUMNS)
      .where('sub_center_id', '=', subCenterId)
      .where('state', 'in', ['RUNNING', 'STOPPING'])
      .where('start_time', 'is not', null)
      .execute();
    return rows.map(toMeterTask);
  }

  /** A center's ended tasks that had started, changed at or after `since` (when their end was stored). */
  async meterEndedSince(subCenterId: string, since: number): Promise<MeterTask[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(METER_COLUMNS)
      .where('sub_center_id', '=', subCenterId)
      .where('update_time', '>=', since)
      .where('state', 'in', [...TERMINAL_STATES])
      .where('start_time', 'is not', null)
      .execute();
    return rows.map(toMeterTask);
  }

  /** Which of these ids are tasks, whatever their state (outside jobs are told from console ones by it). */
  async tagged(ids: string[]): Promise<Map<string, { jobId: string | null; subCenterId: string; ownerId: string }>> {
    const out = new Map<string, { jobId: string | null; subCenterId: string; ownerId: string }>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db.selectFrom('tasks').select(['id', 'job_id', 'sub_center_id', 'owner_id']).where('id', 'in', ids.slice(i, i + 500)).execute();
      for (const r of rows) out.set(r.id, { jobId: r.job_id, subCenterId: r.sub_center_id, ownerId: r.owner_id });
    }
    return out;
  }

  async meterByIds(ids: string[]): Promise<MeterTask[]> {
    const out: MeterTask[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db.selectFrom('tasks').select(METER_COLUMNS).where('id', 'in', ids.slice(i, i + 500)).where('start_time', 'is not', null).execute();
      out.push(...rows.map(toMeterTask));
    }
    return out;
  }
}

function toMeterTask(r: Omit<MeterTask, 'start_time' | 'end_time'> & { start_time: number | null; end_time: number | null }): MeterTask {
  return { ...r, card_num: Number(r.card_num), node_num: Number(r.node_num), start_time: Number(r.start_time), end_time: r.end_time === null ? null : Number(r.end_time) };
}
