import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * 审计日志 (issue 20): one row per operator action — who (an operator, or the server command), what, on what,
 * the target's state before and after (JSON text), the reason given, the address, when. Append-only: the
 * audit module has no statement that changes or deletes a row, and the database refuses one anyway (a
 * trigger on each engine), so not even a bug elsewhere or a hand-written query can rewrite history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('target_name', 'text', (c) => c.notNull())
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  // The list is newest first (ids are time-ordered), unfiltered or by one of its filters.
  await db.schema.createIndex('audit_log_time').on('audit_log').columns(['create_time', 'id']).execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'create_time']).execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'create_time']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_id', 'create_time']).execute();
  if (isPostgres(db)) {
    await sql`create function audit_log_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_log is append-only'; end $$`.execute(db);
    await sql`create trigger audit_log_no_change before update or delete on audit_log
      for each row execute function audit_log_append_only()`.execute(db);
    await sql`create trigger audit_log_no_truncate before truncate on audit_log
      for each statement execute function audit_log_append_only()`.execute(db);
  } else {
    await sql`create trigger audit_log_no_update before update on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
    await sql`create trigger audit_log_no_delete before delete on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  if (isPostgres(db)) await sql`drop function if exists audit_log_append_only()`.execute(db);
}

/** The one statement that differs between the engines here is the trigger's body. */
function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
