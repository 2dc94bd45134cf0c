import { sql, type Kysely } from 'kysely';

/**
 * The message list at 100k messages per user (docs/performance.md, "List endpoints at 100k rows"):
 * - `message_counts`: a user's messages per (type, viewed), kept by MessageRepository in the same
 *   transaction as every write of `messages`, so a page's total is a sum over at most ten rows instead of a
 *   COUNT that steps through every matching message of the user. Filled here from the existing rows.
 * - one index per filter shape, each ending in `id` (creation order): the page is read in index order
 *   without a sort, and skipping the rows before it touches the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_counts')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('viewed', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_counts_pk', ['user_id', 'type', 'viewed'])
    .execute();
  await sql`INSERT INTO message_counts (user_id, type, viewed, n)
    SELECT user_id, type, viewed, COUNT(*) FROM messages GROUP BY user_id, type, viewed`.execute(db);

  // Unfiltered lists keep using messages_user_id_idx (user_id, id).
  await db.schema.createIndex('messages_user_viewed_id_idx').on('messages').columns(['user_id', 'viewed', 'id']).execute();
  await db.schema.createIndex('messages_user_type_id_idx').on('messages').columns(['user_id', 'type', 'id']).execute();
  await db.schema.createIndex('messages_user_type_viewed_id_idx').on('messages').columns(['user_id', 'type', 'viewed', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const i of ['messages_user_type_viewed_id_idx', 'messages_user_type_id_idx', 'messages_user_viewed_id_idx']) {
    await db.schema.dropIndex(i).ifExists().execute();
  }
  await db.schema.dropTable('message_counts').ifExists().execute();
}
