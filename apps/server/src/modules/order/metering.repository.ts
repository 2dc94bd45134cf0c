import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Db } from '../../db/db';
import type { ConsumeRecordsTable, Database, TaskMetersTable } from '../../db/schema';

export type MeterRow = TaskMetersTable;
export type ConsumeRow = ConsumeRecordsTable;
export type Trx = Transaction<Database>;

/** One task's advance: its meter moves from `old` to `metered` elapsed seconds (only if still at `old`). */
export interface Advance {
  taskId: string;
  old: number;
  metered: number;
  drawn: number;
  shortfall: number;
  final: boolean;
}

export interface ConsumeFilter {
  ownerId: string;
  subCenterId?: string;
  cardTypeId?: string;
  taskId?: string;
  startTime?: number;
  endTime?: number;
}

/** Rows per statement: well below both engines' bound-parameter limits (SQLite 32 766, PostgreSQL 65 535). */
export const BATCH = 400;

const chunks = <T>(xs: T[], n = BATCH): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

/** `CASE <key> WHEN k1 THEN v1 … END`, the values cast so PostgreSQL types them (SQLite takes the cast too). */
function caseOf(key: string, pairs: [string, number][], type: 'bigint' | 'integer' = 'bigint'): RawBuilder<number> {
  const whens = pairs.map(([k, v]) => sql`WHEN ${k} THEN CAST(${v} AS ${sql.raw(type)})`);
  return sql<number>`CASE ${sql.ref(key)} ${sql.join(whens, sql` `)} END`;
}

/**
 * The only SQL of metering (ADR 0015): task meters, consume records, the per-center cursor, and the draws on
 * compute buckets. A pass writes a batch of tasks in a few statements (CASE-keyed bulk updates, a multi-row
 * upsert), each guarded so that a concurrent writer makes the row count differ and the caller rolls back.
 */
export class MeteringRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** A meter at 0 for each task not metered before (a concurrent insert of the same one is left alone). */
  async ensureMeters(rows: { taskId: string; ownerId: string; subCenterId: string; cardTypeId: string }[], now: number): Promise<void> {
    for (const part of chunks(rows)) {
      await this.db
        .insertInto('task_meters')
        .values(
          part.map((r) => ({
            task_id: r.taskId,
            owner_id: r.ownerId,
            sub_center_id: r.subCenterId,
            card_type_id: r.cardTypeId,
            metered: 0,
            drawn: 0,
            shortfall: 0,
            settled: 0,
            create_time: now,
            update_time: now,
          })),
        )
        .onConflict((oc) => oc.column('task_id').doNothing())
        .execute();
    }
  }

  async meters(taskIds: string[]): Promise<MeterRow[]> {
    const out: MeterRow[] = [];
    for (const part of chunks(taskIds)) out.push(...(await this.db.selectFrom('task_meters').selectAll().where('task_id', 'in', part).execute()));
    return out;
  }

  meter(taskId: string): Promise<MeterRow | undefined> {
    return this.db.selectFrom('task_meters').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  }

  /** Tasks of a center metered but not settled yet. */
  async openMeters(subCenterId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('task_meters').select('task_id').where('sub_center_id', '=', subCenterId).where('settled', '=', 0).execute();
    return rows.map((r) => r.task_id);
  }

  /** Settles meters whose task is gone without a final draw possible (nothing more is drawn). */
  async closeMeters(taskIds: string[], now: number): Promise<void> {
    for (const part of chunks(taskIds)) await this.db.updateTable('task_meters').set({ settled: 1, update_time: now }).where('task_id', 'in', part).where('settled', '=', 0).execute();
  }

  async cursor(subCenterId: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('metering_cursors').select('since').where('sub_center_id', '=', subCenterId).executeTakeFirst();
    return row ? Number(row.since) : undefined;
  }

  /** Moves the center's cursor forward (never back: two replicas' passes may finish out of order). */
  async setCursor(subCenterId: string, since: number): Promise<void> {
    await this.db
      .insertInto('metering_cursors')
      .values({ sub_center_id: subCenterId, since })
      .onConflict((oc) => oc.column('sub_center_id').doUpdateSet({ since }).where('metering_cursors.since', '<', since))
      .execute();
  }

  /** The buckets tasks of these owners may draw from now, any center and card type. */
  async usableBuckets(trx: Trx, ownerIds: string[], now: number) {
    const out = [];
    for (const part of chunks([...new Set(ownerIds)])) {
      out.push(
        ...(await trx
          .selectFrom('comp_power_buckets')
          .select(['id', 'owner_id', 'sub_center_id', 'card_type_id', 'remaining', 'expire_time'])
          .where('owner_id', 'in', part)
          .where('expire_time', '>', now)
          .where('remaining', '>', 0)
          .execute()),
      );
    }
    return out;
  }

  /** The matching usable balance in card-seconds (the gate). */
  async balance(ownerId: string, subCenterId: string, cardTypeId: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('comp_power_buckets')
      .select((eb) => eb.fn.sum<number>('remaining').as('n'))
      .where('owner_id', '=', ownerId)
      .where('sub_center_id', '=', subCenterId)
      .where('card_type_id', '=', cardTypeId)
      .where('expire_time', '>', now)
      .where('remaining', '>', 0)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Advances meters still where the caller read them; answers how many moved (fewer: someone was first). */
  async advance(trx: Trx, items: Advance[], now: number): Promise<number> {
    let moved = 0;
    for (const part of chunks(items)) {
      const r = await trx
        .updateTable('task_meters')
        .set({
          metered: caseOf('task_id', part.map((i) => [i.taskId, i.metered])),
          drawn: sql<number>`drawn + ${caseOf('task_id', part.map((i) => [i.taskId, i.drawn]))}`,
          shortfall: sql<number>`shortfall + ${caseOf('task_id', part.map((i) => [i.taskId, i.shortfall]))}`,
          settled: caseOf('task_id', part.map((i) => [i.taskId, i.final ? 1 : 0]), 'integer'),
          update_time: now,
        })
        .where('task_id', 'in', part.map((i) => i.taskId))
        .where('settled', '=', 0)
        .where(sql<boolean>`metered = ${caseOf('task_id', part.map((i) => [i.taskId, i.old]))}`)
        .executeTakeFirst();
      moved += Number(r.numUpdatedRows);
    }
    return moved;
  }

  /** Lowers buckets by the amounts, each only if it still holds that much; answers how many did. */
  async take(trx: Trx, amounts: Map<string, number>): Promise<number> {
    let done = 0;
    for (const part of chunks([...amounts])) {
      const by = caseOf('id', part);
      const r = await trx
        .updateTable('comp_power_buckets')
        .set({ remaining: sql<number>`remaining - ${by}` })
        .where('id', 'in', part.map(([id]) => id))
        .where(sql<boolean>`remaining >= ${by}`)
        .executeTakeFirst();
      done += Number(r.numUpdatedRows);
    }
    return done;
  }

  /** Gives card-seconds back to the buckets they were drawn from (a final draw's return). */
  async give(trx: Trx, amounts: Map<string, number>): Promise<void> {
    for (const part of chunks([...amounts])) {
      await trx
        .updateTable('comp_power_buckets')
        .set({ remaining: sql<number>`remaining + ${caseOf('id', part)}` })
        .where('id', 'in', part.map(([id]) => id))
        .execute();
    }
  }

  /** Adds draws to their records: a new (task, bucket, day) is inserted, an existing one grows. */
  async upsertRecords(trx: Trx, rows: ConsumeRow[]): Promise<void> {
    const min = (c: string) => sql`CASE WHEN excluded.${sql.ref(c)} < consume_records.${sql.ref(c)} THEN excluded.${sql.ref(c)} ELSE consume_records.${sql.ref(c)} END`;
    const max = (c: string) => sql`CASE WHEN excluded.${sql.ref(c)} > consume_records.${sql.ref(c)} THEN excluded.${sql.ref(c)} ELSE consume_records.${sql.ref(c)} END`;
    for (const part of chunks(rows)) {
      await trx
        .insertInto('consume_records')
        .values(part)
        .onConflict((oc) =>
          oc.columns(['task_id', 'comp_power_id', 'day']).doUpdateSet({
            card_seconds: sql<number>`consume_records.card_seconds + excluded.card_seconds`,
            elapsed_from: min('elapsed_from') as RawBuilder<number>,
            elapsed_to: max('elapsed_to') as RawBuilder<number>,
            start_time: min('start_time') as RawBuilder<number>,
            end_time: max('end_time') as RawBuilder<number>,
            task_name: sql<string>`excluded.task_name`,
            update_time: sql<number>`excluded.update_time`,
          }),
        )
        .execute();
    }
  }

  /** A task's records, the latest draws first (what a return takes back first). */
  recordsNewestFirst(trx: Trx, taskId: string) {
    return trx
      .selectFrom('consume_records')
      .select(['id', 'comp_power_id', 'card_seconds'])
      .where('task_id', '=', taskId)
      .orderBy('day', 'desc')
      .orderBy('elapsed_to', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /**
   * Takes card-seconds back from a task's records (emptied ones go) and cuts its records' spans at the
   * task's accounted end.
   */
  async lowerRecords(trx: Trx, taskId: string, returns: { id: string; cardSeconds: number }[], end: { elapsed: number; time: number }, now: number) {
    for (const r of returns) {
      await trx
        .updateTable('consume_records')
        .set({ card_seconds: sql<number>`card_seconds - ${r.cardSeconds}`, update_time: now })
        .where('id', '=', r.id)
        .execute();
    }
    await trx.deleteFrom('consume_records').where('task_id', '=', taskId).where('card_seconds', '<=', 0).execute();
    await trx
      .updateTable('consume_records')
      .set({ elapsed_to: end.elapsed, end_time: end.time })
      .where('task_id', '=', taskId)
      .where('elapsed_to', '>', end.elapsed)
      .execute();
  }

  // ---- reads for the records API -------------------------------------------------------------------------

  private consumes(f: ConsumeFilter) {
    let q = this.db.selectFrom('consume_records').where('owner_id', '=', f.ownerId);
    if (f.subCenterId) q = q.where('sub_center_id', '=', f.subCenterId);
    if (f.cardTypeId) q = q.where('card_type_id', '=', f.cardTypeId);
    if (f.taskId) q = q.where('task_id', '=', f.taskId);
    if (f.startTime !== undefined) q = q.where('start_time', '>=', f.startTime);
    if (f.endTime !== undefined) q = q.where('start_time', '<', f.endTime);
    return q;
  }

  /** The owner's consume records, newest first. */
  async consumePage(f: ConsumeFilter, offset: number, limit: number): Promise<{ rows: ConsumeRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.consumes(f).selectAll().orderBy('start_time', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      this.consumes(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  consume(id: string): Promise<ConsumeRow | undefined> {
    return this.db.selectFrom('consume_records').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Card-seconds per day, per center and per card type of the filtered records. */
  async consumeTotals(f: ConsumeFilter) {
    const [byDay, byCenter, byCardType] = await Promise.all([
      this.consumes(f).select((eb) => ['day', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('day').orderBy('day', 'asc').execute(),
      this.consumes(f).select((eb) => ['sub_center_id', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('sub_center_id').orderBy('sub_center_id', 'asc').execute(),
      this.consumes(f).select((eb) => ['card_type_id', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('card_type_id').orderBy('card_type_id', 'asc').execute(),
    ]);
    return { byDay, byCenter, byCardType };
  }
}
