import type { Kysely } from 'kysely';

/**
 * A sync job is run by one gateway replica at a time, under the lease `sync:<id>` (ADR 0010 §9). A cancel
 * that reaches another replica while the holder runs the job is asked for here; the holder sees it when it
 * renews its lease, stops the pull and removes what the receiver staged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_jobs').addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_jobs').dropColumn('cancel_requested').execute();
}
