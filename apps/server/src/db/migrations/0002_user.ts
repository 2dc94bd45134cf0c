import type { Kysely } from 'kysely';

/**
 * Login failure counters keyed by a subject: `u:<userId>` for real accounts and `a:<account as typed>` for
 * accounts that do not exist, so an unknown account locks exactly like a real one and the lockout message
 * cannot be used to find out which accounts exist.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('first_failed_at', 'bigint')
    .addColumn('locked_until', 'bigint')
    .execute();
  await db.schema.createIndex('login_failures_first_idx').on('login_failures').column('first_failed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('login_failures').ifExists().execute();
}
