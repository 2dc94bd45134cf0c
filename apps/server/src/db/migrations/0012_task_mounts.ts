import type { Kysely } from 'kysely';

/**
 * Training tasks mount dataset and model versions (issue 11): the resolved mounts as JSON on the task, so a
 * retried submit rebuilds the same job and a version in use by an unfinished task cannot be deleted.
 * (0011 is the images migration.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('mounts', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('mounts').execute();
}
