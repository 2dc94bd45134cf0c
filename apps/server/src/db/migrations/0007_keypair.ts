import type { Kysely } from 'kysely';

/**
 * Key pairs (issue 10 item 1): a user's public keys (a generated key's private half is handed out once and
 * never stored), where each is installed (center × cluster account), and the per-user platform key the
 * web shell logs in with (its private half encrypted with the gateway's key-store secret).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('key_pairs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('bits', 'integer', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  // One key once per user (a second import of the same key is refused by this, also under a race).
  await db.schema.createIndex('key_pairs_user_fp_uq').on('key_pairs').columns(['user_id', 'fingerprint']).unique().execute();
  await db.schema
    .createTable('key_installs')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('install_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_installs_pk', ['key_id', 'sub_center_id'])
    .execute();
  await db.schema
    .createTable('platform_keys')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key_enc', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('platform_keys').execute();
  await db.schema.dropTable('key_installs').execute();
  await db.schema.dropTable('key_pairs').execute();
}
