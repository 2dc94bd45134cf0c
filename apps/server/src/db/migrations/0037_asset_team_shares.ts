import type { Kysely } from 'kysely';

/**
 * Datasets and models shared with a team (issue 21 item 4, ADR 0018): every current member reads and mounts
 * them. The row names the team only; who its members are is the team module's, asked when access is decided,
 * so a member who leaves loses the asset without anything here changing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('asset_team_shares')
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_team_shares_pk', ['asset_id', 'team_id'])
    .execute();
  // 团队详情's "shared with this team", and "shared with me" through the caller's teams.
  await db.schema.createIndex('asset_team_shares_team').on('asset_team_shares').columns(['team_id', 'create_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('asset_team_shares').execute();
}
