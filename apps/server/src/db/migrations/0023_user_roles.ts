import { sql, type Kysely } from 'kysely';

/**
 * Roles as rows (issue 18, the access module): `user_roles` holds the roles granted beyond `user`, which
 * every account has, one row per user and role; the comma-separated `users.roles` string is moved there and
 * dropped. Team roles will be rows of their own team's membership table, not here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role'])
    .execute();
  const now = Date.now();
  const rows = await sql<{ id: string; roles: string }>`select id, roles from users where roles <> 'user'`.execute(db);
  for (const u of rows.rows) {
    for (const role of new Set(u.roles.split(',').map((r) => r.trim()))) {
      if (role && role !== 'user') await sql`insert into user_roles (user_id, role, create_time) values (${u.id}, ${role}, ${now})`.execute(db);
    }
  }
  await db.schema.alterTable('users').dropColumn('roles').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('roles', 'text', (c) => c.notNull().defaultTo('user')).execute();
  const rows = await sql<{ user_id: string; role: string }>`select user_id, role from user_roles order by role`.execute(db);
  const byUser = new Map<string, string[]>();
  for (const r of rows.rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? ['user']), r.role]);
  for (const [id, roles] of byUser) await sql`update users set roles = ${roles.join(',')} where id = ${id}`.execute(db);
  await db.schema.dropTable('user_roles').execute();
}
