import type { Kysely } from 'kysely';

/**
 * Why a task ended (issue 23): the scheduler's raw reason code (`OutOfMemory`, `TimeLimit`, `NodeFail`…; the
 * `reason` column holds only its Chinese text), the signal that ended the job, and what it used (JSON of
 * JobUsage: peak memory, CPU time, requested memory, CPUs). The diagnosis and the efficiency report are worked
 * out from these on read; all three are null for tasks that ended before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('reason_code', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('exit_signal', 'integer').execute();
  await db.schema.alterTable('tasks').addColumn('job_usage', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('job_usage').execute();
  await db.schema.alterTable('tasks').dropColumn('exit_signal').execute();
  await db.schema.alterTable('tasks').dropColumn('reason_code').execute();
}
