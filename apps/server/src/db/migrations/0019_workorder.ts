import type { Kysely } from 'kysely';

/**
 * Work orders (工单, ADR 0011): the work order with its description, the replies, the uploaded screenshots,
 * and per user the number of work orders that are not CLOSED (the open limit, kept exact under concurrent
 * requests by a conditional UPDATE on this row rather than a count that two requests could both pass).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('work_orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_no', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text')
    .addColumn('reply_count', 'integer', (c) => c.notNull())
    .addColumn('last_reply_by', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // orderNo is what users quote: unique also under a race (the second insert retries with the next number).
  await db.schema.createIndex('work_orders_order_no_uq').on('work_orders').column('order_no').unique().execute();
  // The owner's list, and the operators' list of everyone's, both newest change first.
  await db.schema.createIndex('work_orders_owner_time').on('work_orders').columns(['owner_id', 'update_time']).execute();
  await db.schema.createIndex('work_orders_time').on('work_orders').column('update_time').execute();
  await db.schema
    .createTable('work_order_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('work_order_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('author_role', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('work_order_replies_order').on('work_order_replies').columns(['work_order_id', 'id']).execute();
  await db.schema
    .createTable('work_order_attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('uploader_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    // PostgreSQL's bytea; SQLite keeps a blob as it is in a column of any declared type.
    .addColumn('data', 'bytea', (c) => c.notNull())
    // Null until a message uses it; reply_id null with work_order_id set means the description.
    .addColumn('work_order_id', 'text')
    .addColumn('reply_id', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  // A work order's screenshots; and (work_order_id null) the unused uploads the sweep removes after 24 h.
  await db.schema.createIndex('work_order_attachments_order').on('work_order_attachments').columns(['work_order_id', 'create_time']).execute();
  await db.schema.createIndex('work_order_attachments_uploader').on('work_order_attachments').columns(['uploader_id', 'create_time']).execute();
  await db.schema
    .createTable('work_order_open_counts')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('n', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('work_order_open_counts').execute();
  await db.schema.dropTable('work_order_attachments').execute();
  await db.schema.dropTable('work_order_replies').execute();
  await db.schema.dropTable('work_orders').execute();
}
