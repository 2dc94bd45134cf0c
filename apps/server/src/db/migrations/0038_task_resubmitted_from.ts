import type { Kysely } from 'kysely';

/**
 * The task a task was resubmitted from (issue 23 item 2: 按建议重新提交 and 复制并重新提交 link the original):
 * its id, set when the new task is made and never changed; null for tasks made from a blank form and those
 * made before this migration. No foreign key: the original may be deleted, the link then just goes nowhere.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('resubmitted_from', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('resubmitted_from').execute();
}
