import { sql, type Kysely } from 'kysely';

/**
 * Teams (issue 21): the team, its members with their role (owner/admin/member; exactly one owner, the same
 * user as `teams.owner_id`), and invitations (pending → accepted/declined/cancelled; a pending one past
 * `expire_time` counts as expired and is written so when next touched).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // Names are unique per owner, also under two concurrent creates (the second answers 2601).
  await db.schema.createIndex('teams_owner_name_uq').on('teams').columns(['owner_id', 'name']).unique().execute();
  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('join_time', 'bigint', (c) => c.notNull())
    // One membership per user and team: accepting an invitation twice cannot make two.
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  // "My teams".
  await db.schema.createIndex('team_members_user').on('team_members').columns(['user_id', 'team_id']).execute();
  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('invitee_id', 'text', (c) => c.notNull())
    .addColumn('inviter_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('answer_time', 'bigint')
    .execute();
  // At most one pending invitation per team and invitee, also when two admins invite at once.
  await db.schema
    .createIndex('team_invitations_pending_uq')
    .on('team_invitations')
    .columns(['team_id', 'invitee_id'])
    .unique()
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  // The invitee's pending invitations.
  await db.schema.createIndex('team_invitations_invitee').on('team_invitations').columns(['invitee_id', 'state']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('team_invitations').execute();
  await db.schema.dropTable('team_members').execute();
  await db.schema.dropTable('teams').execute();
}
