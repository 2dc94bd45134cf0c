import type { Kysely } from 'kysely';

/**
 * Datasets and models (issue 11 items 1–2): one table for both kinds, their immutable versions (snapshots
 * in the center's platform-managed asset area), and the users an asset is shared with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('license', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('publish_state', 'text', (c) => c.notNull())
    .addColumn('framework', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('metrics', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // A name once per owner and kind (also under a race); the own list pages by owner, newest first.
  await db.schema.createIndex('assets_owner_name_uq').on('assets').columns(['owner_id', 'kind', 'name']).unique().execute();
  await db.schema.createIndex('assets_owner_time').on('assets').columns(['owner_id', 'kind', 'update_time']).execute();
  await db.schema.createIndex('assets_visibility').on('assets').columns(['visibility', 'kind', 'update_time']).execute();
  await db.schema
    .createTable('asset_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('source_path', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('file_count', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('source_task_id', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('asset_versions_uq').on('asset_versions').columns(['asset_id', 'version']).unique().execute();
  await db.schema
    .createTable('asset_shares')
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_shares_pk', ['asset_id', 'user_id'])
    .execute();
  // "Shared with me" pages by the receiving user.
  await db.schema.createIndex('asset_shares_user').on('asset_shares').columns(['user_id', 'create_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('asset_shares').execute();
  await db.schema.dropTable('asset_versions').execute();
  await db.schema.dropTable('assets').execute();
}
