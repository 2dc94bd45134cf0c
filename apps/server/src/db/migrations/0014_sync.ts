import type { Kysely } from 'kysely';

/**
 * Cross-center sync jobs (issue 11 item 5, ADR 0010): one row per job with its progress and outcome, and the
 * hash of the grant the file services resolve while it runs (the grant itself is never stored).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sync_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('source_center_id', 'text', (c) => c.notNull())
    .addColumn('source_path', 'text', (c) => c.notNull())
    .addColumn('target_center_id', 'text', (c) => c.notNull())
    .addColumn('target_dir', 'text', (c) => c.notNull())
    .addColumn('target_path', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('bytes_done', 'bigint', (c) => c.notNull())
    .addColumn('bytes_total', 'bigint', (c) => c.notNull())
    .addColumn('files_done', 'integer', (c) => c.notNull())
    .addColumn('files_total', 'integer', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull())
    .addColumn('grant_hash', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addColumn('finish_time', 'bigint')
    .execute();
  // The owner's jobs, newest first (the task panel), and the count of their active ones.
  await db.schema.createIndex('sync_jobs_owner_time').on('sync_jobs').columns(['owner_id', 'create_time']).execute();
  await db.schema.createIndex('sync_jobs_owner_state').on('sync_jobs').columns(['owner_id', 'state']).execute();
  // Jobs a stopped gateway left running are resumed at start; grants are looked up by their hash.
  await db.schema.createIndex('sync_jobs_state').on('sync_jobs').column('state').execute();
  await db.schema.createIndex('sync_jobs_grant').on('sync_jobs').column('grant_hash').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sync_jobs').execute();
}
