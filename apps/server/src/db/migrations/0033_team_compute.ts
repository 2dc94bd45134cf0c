import type { Kysely } from 'kysely';

/**
 * Team compute power (issue 21 item 3, ADR 0017). A bucket, an order's credit and a task's draws name their
 * payer in the existing `owner_id` text: a user id, or `team:<teamId>` for a team. What is new:
 * - `orders.payer_id`: who the bought compute power goes to (null: the buyer, as before);
 * - `tasks.payer_id`: whose buckets a task draws from (null: its owner, as before);
 * - `consume_records.user_id`: who ran the task a record charged (null: the record's owner, as before) — a
 *   team's records are the team's, and members' usage is summed by this column;
 * - `team_member_limits`: a member's monthly card-hour limit (total over card types) set by owners/admins.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('payer_id', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('payer_id', 'text').execute();
  await db.schema.alterTable('consume_records').addColumn('user_id', 'text').execute();
  // A team's usage per member and day (member usage this month, the limit check).
  await db.schema.createIndex('consume_records_owner_user_day').on('consume_records').columns(['owner_id', 'user_id', 'day']).execute();
  await db.schema
    .createTable('team_member_limits')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    /** Card-seconds per calendar month (UTC+8), all card types together. */
    .addColumn('card_seconds', 'bigint', (c) => c.notNull())
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_member_limits_pk', ['team_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('team_member_limits').execute();
  await db.schema.dropIndex('consume_records_owner_user_day').execute();
  await db.schema.alterTable('consume_records').dropColumn('user_id').execute();
  await db.schema.alterTable('tasks').dropColumn('payer_id').execute();
  await db.schema.alterTable('orders').dropColumn('payer_id').execute();
}
