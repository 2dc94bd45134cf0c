import type { Kysely } from 'kysely';

/**
 * Idempotent task submission (issue 17 item 6): the console's id of a submission, `client_request_id`, is
 * stored on the task it made. The unique index on (owner_id, client_request_id) lets one of two identical
 * requests racing insert and makes the other's insert fail, which then answers the first task; rows without
 * an id (null) never collide on either engine. After a day the id is cleared from its task so it may name a
 * new one. The index also serves the lookup by (owner, id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('client_request_id', 'text').execute();
  await db.schema.createIndex('tasks_owner_client_request_uq').on('tasks').columns(['owner_id', 'client_request_id']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_owner_client_request_uq').execute();
  await db.schema.alterTable('tasks').dropColumn('client_request_id').execute();
}
