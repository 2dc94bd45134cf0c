import type { Kysely } from 'kysely';

/**
 * Resource samples (issue 10 item 4): per center × card type, what the scheduler reported at `at` — cards
 * total/allocated, nodes total/idle, queued jobs — and whether the scheduler answered. Written by the
 * center's poller leader, kept RESOURCE_KEEP_MS; the dashboard's series and the overview read them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('resource_samples')
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('online', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('allocated', 'integer', (c) => c.notNull())
    .addColumn('queued', 'integer', (c) => c.notNull())
    .addColumn('nodes_total', 'integer', (c) => c.notNull())
    .addColumn('nodes_idle', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('resource_samples_pk', ['sub_center_id', 'at', 'card_type_id'])
    .execute();
  await db.schema.createIndex('resource_samples_at_idx').on('resource_samples').columns(['at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('resource_samples').execute();
}
