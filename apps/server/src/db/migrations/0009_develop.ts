import type { Kysely } from 'kysely';

/**
 * Develop tasks (issue 10 item 3): whether the owner was warned that the task's 最长运行时长 is near (once per
 * task, also across gateway replicas: the warning is sent by whoever flips this 0 → 1).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('expiry_warned', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('expiry_warned').execute();
}
