import type { Kysely } from 'kysely';

/**
 * Interactive access records (issue 10, criterion 5): every web shell session and every develop-task proxy
 * session — who, which center, as which cluster account, start, end and why it ended — for the user's own
 * list and for operators. `kind` is shell | proxy; `target` is the shell transport (ssh | local) or the
 * proxied task id. Written only through modules/access-log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('access_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('client_ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint')
    .addColumn('end_reason', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The user's list (all kinds, or one), newest first by id; the operator's view by time.
  await db.schema.createIndex('access_sessions_user_id_idx').on('access_sessions').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('access_sessions_user_kind_id_idx').on('access_sessions').columns(['user_id', 'kind', 'id']).execute();
  await db.schema.createIndex('access_sessions_start_idx').on('access_sessions').columns(['start_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('access_sessions').execute();
}
