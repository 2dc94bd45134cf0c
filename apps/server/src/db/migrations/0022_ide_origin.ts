import type { Kysely } from 'kysely';

/**
 * The IDE on its own origin (issue 17, ADR 0014):
 * - `tasks.exec_host`: the address of the node the scheduler allocated to a running task (local executor:
 *   loopback), stored by the poller. The IDE proxy connects there and nowhere else — a file the job writes
 *   names only the port.
 * - `ide_tickets`: the one-minute tickets 打开 hands out, stored (hashed) so that exchanging one deletes it:
 *   a ticket works once, on whichever gateway it reaches first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('exec_host', 'text').execute();
  await db.schema
    .createTable('ide_tickets')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ide_tickets_expire').on('ide_tickets').column('expire_time').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ide_tickets').execute();
  await db.schema.alterTable('tasks').dropColumn('exec_host').execute();
}
