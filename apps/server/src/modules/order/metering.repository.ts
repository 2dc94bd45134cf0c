import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Db, Engine } from '../../db/db';
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

/** Tasks per batch (one transaction each); the bulk statements below bind a handful of parameters whatever its size. */
export const BATCH = 1000;
/** Ids per `IN (…)` list, well below both engines' bound-parameter limits. */
const IN_LIST = 500;

export const chunks = <T>(xs: T[], n = IN_LIST): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

type ColType = 'text' | 'bigint' | 'integer';

/**
 * Rows given by the caller as a relation `v(col, …)` to join against — one statement for a whole batch, joined
 * by key (a CASE per row would make the statement quadratic in the batch). PostgreSQL: `unnest` of one typed
 * array per column; SQLite: `json_each` of one JSON array of rows. Either way a few bound parameters.
 */
function rowsOf(engine: Engine, cols: [name: string, type: ColType][], rows: unknown[][]): RawBuilder<unknown> {
  if (engine === 'postgres') {
    const arrays = cols.map(([, type], i) => sql`${rows.map((r) => r[i])}::${sql.raw(type)}[]`);
    return sql`unnest(${sql.join(arrays)}) AS v(${sql.join(cols.map(([name]) => sql.ref(name)))})`;
  }
  const picks = cols.map(([name], i) => sql`value ->> ${`$[${i}]`} AS ${sql.ref(name)}`);
  return sql`(SELECT ${sql.join(picks)} FROM json_each(${JSON.stringify(rows)})) AS v`;
}

const affected = (r: { numAffectedRows?: bigint }) => Number(r.numAffectedRows ?? 0);

/**
 * The only SQL of metering (ADR 0015): task meters, consume records, the per-center cursor, and the draws on
 * compute buckets. A pass writes a batch of tasks in a few statements (CASE-keyed bulk updates, a multi-row
 * upsert), each guarded so that a concurrent writer makes the row count differ and the caller rolls back.
 */
export class MeteringRepository {
  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
  ) {}

  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** A meter at 0 for each of these tasks (a task metered before, or inserted meanwhile, is left alone). */
  async ensureMeters(rows: { taskId: string; ownerId: string; subCenterId: string; cardTypeId: string }[], now: number): Promise<void> {
    if (!rows.length) return;
    const v = rowsOf(
      this.engine,
      [
        ['task_id', 'text'],
        ['owner_id', 'text'],
        ['sub_center_id', 'text'],
        ['card_type_id', 'text'],
      ],
      rows.map((r) => [r.taskId, r.ownerId, r.subCenterId, r.cardTypeId]),
    );
    await sql`INSERT INTO task_meters (task_id, owner_id, sub_center_id, card_type_id, metered, drawn, shortfall, settled, create_time, update_time)
      SELECT v.task_id, v.owner_id, v.sub_center_id, v.card_type_id, 0, 0, 0, 0, ${now}, ${now} FROM ${v} WHERE true
      ON CONFLICT (task_id) DO NOTHING`.execute(this.db);
  }

  /** The meters of these tasks (one statement however many). */
  async meters(taskIds: string[]): Promise<MeterRow[]> {
    if (!taskIds.length) return [];
    const v = rowsOf(this.engine, [['task_id', 'text']], taskIds.map((id) => [id]));
    const r = await sql<MeterRow>`SELECT m.* FROM task_meters m JOIN ${v} ON m.task_id = v.task_id`.execute(this.db);
    return r.rows;
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
    if (!items.length) return 0;
    const v = rowsOf(
      this.engine,
      [
        ['task_id', 'text'],
        ['old', 'bigint'],
        ['metered', 'bigint'],
        ['drawn', 'bigint'],
        ['shortfall', 'bigint'],
        ['settled', 'integer'],
      ],
      items.map((i) => [i.taskId, i.old, i.metered, i.drawn, i.shortfall, i.final ? 1 : 0]),
    );
    const r = await sql`UPDATE task_meters SET metered = v.metered, drawn = task_meters.drawn + v.drawn, shortfall = task_meters.shortfall + v.shortfall,
        settled = v.settled, update_time = ${now}
      FROM ${v} WHERE task_meters.task_id = v.task_id AND task_meters.settled = 0 AND task_meters.metered = v.old`.execute(trx);
    return affected(r);
  }

  /** Lowers buckets by the amounts, each only if it still holds that much; answers how many did. */
  async take(trx: Trx, amounts: Map<string, number>): Promise<number> {
    if (!amounts.size) return 0;
    const v = rowsOf(
      this.engine,
      [
        ['id', 'text'],
        ['amount', 'bigint'],
      ],
      [...amounts],
    );
    const r = await sql`UPDATE comp_power_buckets SET remaining = comp_power_buckets.remaining - v.amount
      FROM ${v} WHERE comp_power_buckets.id = v.id AND comp_power_buckets.remaining >= v.amount`.execute(trx);
    return affected(r);
  }

  /** Gives card-seconds back to the buckets they were drawn from (a final draw's return). */
  async give(trx: Trx, amounts: Map<string, number>): Promise<void> {
    if (!amounts.size) return;
    const v = rowsOf(
      this.engine,
      [
        ['id', 'text'],
        ['amount', 'bigint'],
      ],
      [...amounts],
    );
    await sql`UPDATE comp_power_buckets SET remaining = comp_power_buckets.remaining + v.amount FROM ${v} WHERE comp_power_buckets.id = v.id`.execute(trx);
  }

  /** Adds draws to their records: a new (task, bucket, day) is inserted, an existing one grows. */
  async upsertRecords(trx: Trx, rows: ConsumeRow[]): Promise<void> {
    if (!rows.length) return;
    const cols: [keyof ConsumeRow & string, ColType][] = [
      ['id', 'text'],
      ['owner_id', 'text'],
      ['task_id', 'text'],
      ['task_kind', 'text'],
      ['task_name', 'text'],
      ['sub_center_id', 'text'],
      ['card_type_id', 'text'],
      ['card_num', 'integer'],
      ['node_num', 'integer'],
      ['comp_power_id', 'text'],
      ['day', 'text'],
      ['user_id', 'text'],
      ['card_seconds', 'bigint'],
      ['elapsed_from', 'bigint'],
      ['elapsed_to', 'bigint'],
      ['start_time', 'bigint'],
      ['end_time', 'bigint'],
      ['create_time', 'bigint'],
      ['update_time', 'bigint'],
    ];
    const names = sql.join(cols.map(([c]) => sql.ref(c)));
    const picked = sql.join(cols.map(([c]) => sql.ref(`v.${c}`)));
    const v = rowsOf(this.engine, cols, rows.map((r) => cols.map(([c]) => r[c] ?? null)));
    const least = (c: string) => sql`CASE WHEN excluded.${sql.ref(c)} < consume_records.${sql.ref(c)} THEN excluded.${sql.ref(c)} ELSE consume_records.${sql.ref(c)} END`;
    const greatest = (c: string) => sql`CASE WHEN excluded.${sql.ref(c)} > consume_records.${sql.ref(c)} THEN excluded.${sql.ref(c)} ELSE consume_records.${sql.ref(c)} END`;
    // `WHERE true`: SQLite reads `ON CONFLICT` after a bare FROM as a join's ON.
    await sql`INSERT INTO consume_records (${names}) SELECT ${picked} FROM ${v} WHERE true
      ON CONFLICT (task_id, comp_power_id, day) DO UPDATE SET
        card_seconds = consume_records.card_seconds + excluded.card_seconds,
        elapsed_from = ${least('elapsed_from')}, elapsed_to = ${greatest('elapsed_to')},
        start_time = ${least('start_time')}, end_time = ${greatest('end_time')},
        task_name = excluded.task_name, update_time = excluded.update_time`.execute(trx);
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

  /** Per day (UTC+8, oldest first) of the filtered records: the tasks that drew and their card-seconds. */
  async consumeDays(f: ConsumeFilter): Promise<{ day: string; tasks: number; cardSeconds: number }[]> {
    const rows = await this.consumes(f)
      .select((eb) => ['day', eb.fn.count<number>('task_id').distinct().as('tasks'), eb.fn.sum<number>('card_seconds').as('n')])
      .groupBy('day')
      .orderBy('day', 'asc')
      .execute();
    // PostgreSQL answers counts and sums of bigint as strings.
    return rows.map((r) => ({ day: r.day, tasks: Number(r.tasks), cardSeconds: Number(r.n ?? 0) }));
  }

  // ---- team compute power (ADR 0017) --------------------------------------------------------------------

  /** Card-seconds a user's tasks drew from a payer's (a team's) buckets since `fromDay` (UTC+8, inclusive). */
  async monthUsed(payer: string, userId: string, fromDay: string): Promise<number> {
    const row = await this.db
      .selectFrom('consume_records')
      .select((eb) => eb.fn.sum<number>('card_seconds').as('n'))
      .where('owner_id', '=', payer)
      .where('user_id', '=', userId)
      .where('day', '>=', fromDay)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The same per (payer, user) of these payers, keyed `payer|user`. */
  async monthUsedBy(payers: string[], fromDay: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const part of chunks(payers)) {
      const rows = await this.db
        .selectFrom('consume_records')
        .select((eb) => ['owner_id', 'user_id', eb.fn.sum<number>('card_seconds').as('n')])
        .where('owner_id', 'in', part)
        .where('day', '>=', fromDay)
        .groupBy(['owner_id', 'user_id'])
        .execute();
      for (const r of rows) out.set(`${r.owner_id}|${r.user_id}`, Number(r.n ?? 0));
    }
    return out;
  }

  /** A payer's draws since `fromDay` per member and card type (团队详情's usage). */
  async usageByMember(payer: string, fromDay: string) {
    const rows = await this.db
      .selectFrom('consume_records')
      .select((eb) => ['user_id', 'card_type_id', eb.fn.sum<number>('card_seconds').as('n')])
      .where('owner_id', '=', payer)
      .where('day', '>=', fromDay)
      .groupBy(['user_id', 'card_type_id'])
      .execute();
    return rows.map((r) => ({ userId: r.user_id ?? '', cardTypeId: r.card_type_id, cardSeconds: Number(r.n ?? 0) }));
  }

  /** Everyone's drawn card-seconds per day (UTC+8 `YYYY-MM-DD`, both ends included) — 平台概览. */
  async platformConsumeDays(fromDay: string, toDay: string): Promise<{ day: string; cardSeconds: number }[]> {
    const rows = await this.db
      .selectFrom('consume_records')
      .select((eb) => ['day', eb.fn.sum<number>('card_seconds').as('n')])
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy('day')
      .execute();
    return rows.map((r) => ({ day: r.day, cardSeconds: Number(r.n ?? 0) }));
  }

  /** Card-seconds per day, per center and per card type of the filtered records. */
  async consumeTotals(f: ConsumeFilter) {
    const [byDay, byCenter, byCardType, byTask] = await Promise.all([
      this.consumes(f).select((eb) => ['day', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('day').orderBy('day', 'asc').execute(),
      this.consumes(f).select((eb) => ['sub_center_id', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('sub_center_id').orderBy('sub_center_id', 'asc').execute(),
      this.consumes(f).select((eb) => ['card_type_id', eb.fn.sum<number>('card_seconds').as('n')]).groupBy('card_type_id').orderBy('card_type_id', 'asc').execute(),
      this.consumes(f)
        .select((eb) => ['task_id', 'task_kind', eb.fn.max('task_name').as('task_name'), eb.fn.sum<number>('card_seconds').as('n')])
        .groupBy(['task_id', 'task_kind'])
        .orderBy('n', 'desc')
        .orderBy('task_id', 'asc')
        .execute(),
    ]);
    return { byDay, byCenter, byCardType, byTask };
  }
}
