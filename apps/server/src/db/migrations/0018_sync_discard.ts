import type { Kysely } from 'kysely';

/**
 * A sync job that ended while its receiving file service could not be reached still has a hidden folder
 * `targetDir/.suanli-upload-sync-<key>/` (and staged chunks) there (ADR 0010 §7). `discard_after` > 0 says
 * so and when to ask the receiver again; the runner's periodic sweep retries with backoff until it answers,
 * then sets it back to 0. The job's state and message are not touched.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_jobs').addColumn('discard_after', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // The sweep's query: finished jobs whose leftovers are due for another try.
  await db.schema.createIndex('sync_jobs_discard').on('sync_jobs').column('discard_after').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sync_jobs_discard').execute();
  await db.schema.alterTable('sync_jobs').dropColumn('discard_after').execute();
}
