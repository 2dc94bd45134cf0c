import { sql, type Kysely } from 'kysely';

/**
 * Jobs run outside the console (issue 25): every job of a pool account that the center's accounting reports
 * and no console task owns — `sbatch`/`srun`/`salloc` over SSH or the web shell. One row per job, keyed
 * `<center>:<jobId>`; the same key is the job's meter in `task_meters` and its `task_id` in `consume_records`
 * (task_kind `outside`), so an outside job is drawn with the tasks' exactly-once meters and rounding.
 *
 * - `state` is the platform's JobState (QUEUED, RUNNING, SUCCEEDED, FAILED, STOPPED, UNDERPOWERED), `slurm_state`
 *   the scheduler's own word; `stop_reason` is set when metering cancelled the job for lack of compute power.
 * - Cards: `card_num` per node × `node_num` as the scheduler allocated them; billed as tasks are.
 * - The accounting cursor of a center is the `outside:<center>` row of `metering_cursors`; `outside:*` is when
 *   this migration ran (a center read for the first time starts there).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outside_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('partition', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('slurm_state', 'text', (c) => c.notNull())
    .addColumn('stop_reason', 'text')
    .addColumn('card_num', 'integer', (c) => c.notNull())
    .addColumn('node_num', 'integer', (c) => c.notNull())
    .addColumn('submit_time', 'bigint')
    .addColumn('start_time', 'bigint')
    .addColumn('end_time', 'bigint')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // The owner's list (newest first) and a center's jobs still to meter.
  await db.schema.createIndex('outside_jobs_owner_submit').on('outside_jobs').columns(['owner_id', 'submit_time']).execute();
  await db.schema.createIndex('outside_jobs_center_state').on('outside_jobs').columns(['sub_center_id', 'state']).execute();
  await sql`INSERT INTO metering_cursors (sub_center_id, since) VALUES ('outside:*', ${Date.now()})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outside_jobs').ifExists().execute();
  await sql`DELETE FROM metering_cursors WHERE sub_center_id LIKE 'outside:%'`.execute(db);
}
