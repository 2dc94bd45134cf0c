import { sql, type Kysely } from 'kysely';

/**
 * Usernames are unique regardless of case (issue 7: `ALICE_A` could be registered next to `alice_a`, two
 * accounts a person cannot tell apart). Usernames are ASCII (`[A-Za-z0-9_]`), so `lower()` folds them the
 * same way in SQLite and PostgreSQL, and the repository looks them up through this same expression.
 *
 * Existing accounts that differ only in case cannot both keep their name, and which one should is a
 * decision for an operator, not for a migration: it stops with the names instead of guessing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    SELECT lower(username) AS name FROM users GROUP BY lower(username) HAVING COUNT(*) > 1`.execute(db);
  if (rows.length) {
    throw new Error(
      `0004_username_nocase: usernames that differ only in case must be renamed first: ${rows.map((r) => r.name).join(', ')}`,
    );
  }
  await sql`CREATE UNIQUE INDEX users_username_lower_idx ON users (lower(username))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_username_lower_idx').ifExists().execute();
}
