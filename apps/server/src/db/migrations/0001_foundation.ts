import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('nickname', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.unique())
    .addColumn('email', 'text', (c) => c.unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('head_image', 'text')
    .addColumn('roles', 'text', (c) => c.notNull().defaultTo('user'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoke_reason', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('verification_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scene', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('codes_target_idx').on('verification_codes').columns(['target', 'create_time']).execute();

  await db.schema
    .createTable('rsa_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('public_pem', 'text', (c) => c.notNull())
    .addColumn('private_pem', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('business_type', 'text')
    .addColumn('business_id', 'text')
    .addColumn('viewed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  // Unread count and filtered lists both lead with the owner; id order equals creation order.
  await db.schema.createIndex('messages_user_viewed_idx').on('messages').columns(['user_id', 'viewed', 'create_time']).execute();
  await db.schema.createIndex('messages_user_id_idx').on('messages').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('cluster_accounts')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('uid', 'integer', (c) => c.notNull())
    .addColumn('home_dir', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cluster_accounts_pk', ['user_id', 'sub_center_id'])
    .addUniqueConstraint('cluster_accounts_account_uq', ['sub_center_id', 'account'])
    .execute();

  await db.schema
    .createTable('comp_power_buckets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('granted', 'bigint', (c) => c.notNull())
    .addColumn('remaining', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('buckets_owner_idx').on('comp_power_buckets').columns(['owner_id', 'expire_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['comp_power_buckets', 'cluster_accounts', 'messages', 'rsa_keys', 'verification_codes', 'sessions', 'users']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
