import type { Kysely } from 'kysely';

/**
 * 分中心 for operators (issue 20): each center's status (online / maintenance / offline) with the notice users
 * read, and the packages (算力卡) it sells with their prices. The centers file gives the first value: the
 * center module copies a center's status and packages here the first time it sees that center, and from then
 * on these rows are what the platform uses (运营管理 › 分中心 changes them, each change audited).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('center_states')
    .addColumn('center_id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('notice', 'text', (c) => c.notNull())
    // Null while the centers file's value stands; the time of the last operator change after it.
    .addColumn('update_time', 'bigint')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('center_packages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('card_hours', 'integer', (c) => c.notNull())
    // 分, as orders store amounts.
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('valid_days', 'integer', (c) => c.notNull())
    // The order operators gave them (the buy page lists them so).
    .addColumn('sort', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('center_packages_center').on('center_packages').columns(['center_id', 'sort']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('center_packages').execute();
  await db.schema.dropTable('center_states').execute();
}
