import type { Kysely } from 'kysely';

/** Registry passwords (issue 11 item 3): one per user, only its hash; reset shows a new one once. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('registry_credentials')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registry_credentials').execute();
}
