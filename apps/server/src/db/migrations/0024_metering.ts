import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * Metering (issue 19, ADR 0015): what each task has been charged and where it came from.
 *
 * - `task_meters`: one row per task that has run — the elapsed seconds already metered (advanced only by a
 *   conditional UPDATE on its old value, so a retried or concurrent draw counts once), the card-seconds drawn
 *   and those that could not be drawn (`shortfall`), and whether it is settled (the final draw done).
 * - `consume_records` (消费记录): the draws of one task from one bucket on one day (UTC+8), summed; the
 *   unique (task, bucket, day) key makes every draw an upsert into its record.
 * - `metering_cursors`: per center, the time the last pass started, from which ended tasks are looked for
 *   (`tasks_center_update_idx` serves that look-up on the task module's table); the `*` row is when metering
 *   began, the cursor of a center not passed over yet.
 * - `charge_records` takes grants (赠送): `kind` 'order' | 'grant'; a grant has no order, order number or pay
 *   channel (nullable now), has a `reason`, and — for the welcome and demo grants — a unique `grant_key` so
 *   that each is given once however many gateways race to give it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('task_meters')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    // Elapsed seconds since the task's start already metered (whole seconds, ADR 0015).
    .addColumn('metered', 'bigint', (c) => c.notNull())
    .addColumn('drawn', 'bigint', (c) => c.notNull())
    .addColumn('shortfall', 'bigint', (c) => c.notNull())
    .addColumn('settled', 'integer', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // The open meters of a center (tasks metered but not yet settled).
  await db.schema.createIndex('task_meters_center_settled').on('task_meters').columns(['sub_center_id', 'settled']).execute();

  await db.schema
    .createTable('consume_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('task_kind', 'text', (c) => c.notNull())
    .addColumn('task_name', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('card_num', 'integer', (c) => c.notNull())
    .addColumn('node_num', 'integer', (c) => c.notNull())
    .addColumn('comp_power_id', 'text', (c) => c.notNull())
    // yyyy-MM-dd in UTC+8: the day the draws belong to.
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('card_seconds', 'bigint', (c) => c.notNull())
    // The elapsed range covered, in seconds since the task's start, and the same as wall-clock times.
    .addColumn('elapsed_from', 'bigint', (c) => c.notNull())
    .addColumn('elapsed_to', 'bigint', (c) => c.notNull())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('consume_records_task_bucket_day_uq').on('consume_records').columns(['task_id', 'comp_power_id', 'day']).unique().execute();
  // The owner's list and totals (newest first, by day), filtered by center/card type/task.
  await db.schema.createIndex('consume_records_owner_start').on('consume_records').columns(['owner_id', 'start_time']).execute();
  await db.schema.createIndex('consume_records_owner_day').on('consume_records').columns(['owner_id', 'day']).execute();

  // The task module's read port for metering: a center's tasks changed since the cursor (ended ones).
  await db.schema.createIndex('tasks_center_update_idx').on('tasks').columns(['sub_center_id', 'update_time']).execute();

  await db.schema
    .createTable('metering_cursors')
    .addColumn('sub_center_id', 'text', (c) => c.primaryKey())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .execute();
  // When metering began: a center's first pass looks for ended tasks from here (the `*` row), so a task that
  // ran between the upgrade and that pass is charged, and none that ended long before it.
  await sql`INSERT INTO metering_cursors (sub_center_id, since) VALUES ('*', ${Date.now()})`.execute(db);

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // SQLite cannot drop NOT NULL: the table is rebuilt with the same rows.
    await db.schema
      .createTable('charge_records_new')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull().defaultTo('order'))
      .addColumn('order_id', 'text')
      .addColumn('order_no', 'text')
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('card_seconds', 'bigint', (c) => c.notNull())
      .addColumn('comp_power_id', 'text', (c) => c.notNull())
      .addColumn('sub_center_id', 'text', (c) => c.notNull())
      .addColumn('card_type_id', 'text', (c) => c.notNull())
      .addColumn('pay_channel', 'text')
      .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('granted_by', 'text')
      .addColumn('grant_key', 'text')
      .addColumn('create_time', 'bigint', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO charge_records_new (id, owner_id, kind, order_id, order_no, amount, card_seconds, comp_power_id, sub_center_id, card_type_id, pay_channel, create_time)
      SELECT id, owner_id, 'order', order_id, order_no, amount, card_seconds, comp_power_id, sub_center_id, card_type_id, pay_channel, create_time FROM charge_records`.execute(db);
    await db.schema.dropTable('charge_records').execute();
    await sql`ALTER TABLE charge_records_new RENAME TO charge_records`.execute(db);
    await db.schema.createIndex('charge_records_order_uq').on('charge_records').column('order_id').unique().execute();
    await db.schema.createIndex('charge_records_owner_time').on('charge_records').columns(['owner_id', 'create_time']).execute();
  } else {
    for (const col of ['order_id', 'order_no', 'pay_channel']) await sql`ALTER TABLE charge_records ALTER COLUMN ${sql.ref(col)} DROP NOT NULL`.execute(db);
    await db.schema.alterTable('charge_records').addColumn('kind', 'text', (c) => c.notNull().defaultTo('order')).execute();
    await db.schema.alterTable('charge_records').addColumn('reason', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('charge_records').addColumn('granted_by', 'text').execute();
    await db.schema.alterTable('charge_records').addColumn('grant_key', 'text').execute();
  }
  // NULLs never collide (both engines): only keyed grants (welcome, demo) are held to one.
  await db.schema.createIndex('charge_records_grant_key_uq').on('charge_records').column('grant_key').unique().execute();
}

/** Back to 0023: the metering tables go, and charge_records holds order credits only again (grant rows go, their buckets stay). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('charge_records_grant_key_uq').ifExists().execute();
  await db.schema.dropIndex('tasks_center_update_idx').ifExists().execute();
  for (const t of ['metering_cursors', 'consume_records', 'task_meters']) await db.schema.dropTable(t).ifExists().execute();
  await sql`DELETE FROM charge_records WHERE kind <> 'order'`.execute(db);
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await db.schema
      .createTable('charge_records_old')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('order_no', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('card_seconds', 'bigint', (c) => c.notNull())
      .addColumn('comp_power_id', 'text', (c) => c.notNull())
      .addColumn('sub_center_id', 'text', (c) => c.notNull())
      .addColumn('card_type_id', 'text', (c) => c.notNull())
      .addColumn('pay_channel', 'text', (c) => c.notNull())
      .addColumn('create_time', 'bigint', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO charge_records_old SELECT id, owner_id, order_id, order_no, amount, card_seconds, comp_power_id, sub_center_id, card_type_id, pay_channel, create_time FROM charge_records`.execute(db);
    await db.schema.dropTable('charge_records').execute();
    await sql`ALTER TABLE charge_records_old RENAME TO charge_records`.execute(db);
    await db.schema.createIndex('charge_records_order_uq').on('charge_records').column('order_id').unique().execute();
    await db.schema.createIndex('charge_records_owner_time').on('charge_records').columns(['owner_id', 'create_time']).execute();
  } else {
    for (const col of ['kind', 'reason', 'granted_by', 'grant_key']) await db.schema.alterTable('charge_records').dropColumn(col).execute();
    for (const col of ['order_id', 'order_no', 'pay_channel']) await sql`ALTER TABLE charge_records ALTER COLUMN ${sql.ref(col)} SET NOT NULL`.execute(db);
  }
}
