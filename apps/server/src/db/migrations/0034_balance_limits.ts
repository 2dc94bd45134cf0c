import type { Kysely } from 'kysely';

/**
 * The balance enforced by the scheduler (issue 25, item 3): per center and cluster account, the limit the
 * platform last set on the account's association (`limited` 1 = `GrpTRES=gres/<name>=0`, 0 = no limit), so the
 * limit is written to slurmdbd only when it has to change — not on every pass of every replica — and a restart
 * knows what it set. A row is written only after Slurm accepted the change: a failed call leaves the old row,
 * and the next pass, seeing the wanted state differ, tries again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('balance_limits')
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('limited', 'integer', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('balance_limits_pk', ['sub_center_id', 'account'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('balance_limits').execute();
}
