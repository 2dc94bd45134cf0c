import { sql } from 'kysely';
import type { Db } from '../../db/db';
import type { OutsideJobsTable } from '../../db/schema';

export type OutsideJobRow = OutsideJobsTable;

/**
 * Outside jobs (issue 25, migration 0036): the jobs of pool accounts the center's accounting reports and no
 * console task owns. Their meters and consume records are the metering tables' (key `<center>:<jobId>`).
 */
export class OutsideJobRepository {
  constructor(private readonly db: Db) {}

  /** These ids that are rows already (once an outside job, always one). */
  async existing(ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      for (const r of await this.db.selectFrom('outside_jobs').select('id').where('id', 'in', ids.slice(i, i + 500)).execute()) out.add(r.id);
    }
    return out;
  }

  /**
   * Inserts new jobs and brings known ones to what accounting says now. The owner, card type and a stop
   * reason stay as first written; a job metering cancelled reads UNDERPOWERED once it ended cancelled.
   */
  async upsert(rows: OutsideJobRow[]): Promise<void> {
    for (const r of rows) {
      await this.db
        .insertInto('outside_jobs')
        .values(r)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({
            name: r.name,
            partition: r.partition,
            state: r.state === 'STOPPED' ? sql<string>`CASE WHEN outside_jobs.stop_reason IS NOT NULL THEN 'UNDERPOWERED' ELSE 'STOPPED' END` : r.state,
            slurm_state: r.slurm_state,
            card_num: r.card_num,
            node_num: r.node_num,
            submit_time: r.submit_time,
            start_time: r.start_time,
            end_time: r.end_time,
            update_time: r.update_time,
          }),
        )
        .execute();
    }
  }

  /** A center's jobs that started and are not settled yet (no meter, or an open one): what a pass meters. */
  meterable(subCenterId: string) {
    return this.db
      .selectFrom('outside_jobs as o')
      .leftJoin('task_meters as m', 'm.task_id', 'o.id')
      .selectAll('o')
      .where('o.sub_center_id', '=', subCenterId)
      .where('o.start_time', 'is not', null)
      .where((eb) => eb.or([eb('m.settled', 'is', null), eb('m.settled', '=', 0)]))
      .execute();
  }

  async markStopped(id: string, reason: string, now: number): Promise<void> {
    await this.db.updateTable('outside_jobs').set({ stop_reason: reason, update_time: now }).where('id', '=', id).where('stop_reason', 'is', null).execute();
  }

  /** The owner's outside jobs, newest submission first, with what each drew. */
  async page(ownerId: string, subCenterId: string | undefined, offset: number, limit: number) {
    let q = this.db.selectFrom('outside_jobs').where('outside_jobs.owner_id', '=', ownerId);
    if (subCenterId) q = q.where('outside_jobs.sub_center_id', '=', subCenterId);
    const [rows, total] = await Promise.all([
      q
        .leftJoin('task_meters as m', 'm.task_id', 'outside_jobs.id')
        .selectAll('outside_jobs')
        .select('m.drawn')
        .orderBy('outside_jobs.submit_time', 'desc')
        .orderBy('outside_jobs.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      q
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  /** Rows by id (the reconciliation's look-up of which jobs are outside ones). */
  async byIds(ids: string[]): Promise<OutsideJobRow[]> {
    const out: OutsideJobRow[] = [];
    for (let i = 0; i < ids.length; i += 500) out.push(...(await this.db.selectFrom('outside_jobs').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute()));
    return out;
  }

  /** Card-seconds drawn per (meter key, day) of a center's consume records over days [from, to]. */
  async drawnByKeyDay(subCenterId: string, fromDay: string, toDay: string) {
    const rows = await this.db
      .selectFrom('consume_records')
      .select((eb) => ['task_id', 'day', eb.fn.max('task_name').as('task_name'), eb.fn.max('card_num').as('card_num'), eb.fn.max('node_num').as('node_num'), eb.fn.sum<number>('card_seconds').as('n')])
      .where('sub_center_id', '=', subCenterId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy(['task_id', 'day'])
      .execute();
    return rows.map((r) => ({ key: r.task_id, day: r.day, name: String(r.task_name ?? ''), cardNum: Number(r.card_num), nodeNum: Number(r.node_num), cardSeconds: Number(r.n ?? 0) }));
  }

  /** The cards of these tasks' draws (any day): a console job is reconciled at the cards its task is billed. */
  async cardsOf(keys: string[]): Promise<Map<string, { cardNum: number; nodeNum: number }>> {
    const out = new Map<string, { cardNum: number; nodeNum: number }>();
    for (let i = 0; i < keys.length; i += 500) {
      const rows = await this.db.selectFrom('consume_records').select(['task_id', 'card_num', 'node_num']).where('task_id', 'in', keys.slice(i, i + 500)).execute();
      for (const r of rows) out.set(r.task_id, { cardNum: Number(r.card_num), nodeNum: Number(r.node_num) });
    }
    return out;
  }
}
