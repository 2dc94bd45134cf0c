import { sql, type Kysely } from 'kysely';

/**
 * Access records left open by a gateway that died (docs/plan/10.md, "Access records"). A web shell lives in
 * one gateway process; while it runs, that process renews the record's `seen_time`, and any replica ends
 * the records nobody has renewed for a few minutes (end time = last seen). Records a process does not hold
 * (the develop-task proxy, ended with its task) keep `seen_time` null and are never swept this way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_sessions').addColumn('seen_time', 'bigint').execute();
  // Shells still open from before: their gateway may be long gone, and none of today's gateways renews
  // them, so they are ended by the first sweep — at their start, the last moment anyone saw them.
  await sql`UPDATE access_sessions SET seen_time = start_time WHERE kind = 'shell' AND end_time IS NULL`.execute(db);
  // The sweep: open records (end_time null) not renewed since a cutoff.
  await db.schema.createIndex('access_sessions_open_seen_idx').on('access_sessions').columns(['end_time', 'seen_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('access_sessions_open_seen_idx').execute();
  await db.schema.alterTable('access_sessions').dropColumn('seen_time').execute();
}
