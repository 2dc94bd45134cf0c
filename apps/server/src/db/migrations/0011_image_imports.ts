import type { Kysely } from 'kysely';

/**
 * Imports of image archives from storage into the registry (issue 11 item 3, ADR 0009 §5): one row per
 * import with its progress and outcome. Images themselves stay in the registry (nothing of them is stored here).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('image_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('percent', 'integer', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // The owner's imports (one running at a time is checked through it).
  await db.schema.createIndex('image_imports_owner_state').on('image_imports').columns(['owner_id', 'state']).execute();
  // Imports a stopped gateway left running are failed at start.
  await db.schema.createIndex('image_imports_state').on('image_imports').column('state').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('image_imports').execute();
}
