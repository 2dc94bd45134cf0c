import type { Kysely } from 'kysely';

/**
 * A task on a center that lacks a mounted dataset/model version syncs it there first (issue 11 item 5,
 * ADR 0010 §8): sync jobs of kind `version` name the version they copy into the target center's asset area,
 * and a task waits (state CREATED, `waiting_data` 1) until every copy it mounts is there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_jobs').addColumn('kind', 'text', (c) => c.notNull().defaultTo('path')).execute();
  await db.schema.alterTable('sync_jobs').addColumn('asset_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('sync_jobs').addColumn('version_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('sync_jobs').addColumn('label', 'text', (c) => c.notNull().defaultTo('')).execute();
  // The copies of a version: its jobs per target center.
  await db.schema.createIndex('sync_jobs_version').on('sync_jobs').columns(['version_id', 'target_center_id']).execute();
  await db.schema.alterTable('tasks').addColumn('waiting_data', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('waiting_data').execute();
  await db.schema.dropIndex('sync_jobs_version').execute();
  for (const c of ['label', 'version_id', 'asset_id', 'kind']) await db.schema.alterTable('sync_jobs').dropColumn(c).execute();
}
