import { sql, type Kysely } from 'kysely';

/**
 * 审核 (issue 20): what a publication request's owner sees after an operator's decision.
 * - `assets.publish_reason`: the reason of the last rejected request to publish in the public hall (empty
 *   once published or asked again); `assets.publish_review_time`: when it was decided (null: never).
 * - `image_publications`: requests to make an image tag public, and their decisions (one pending request
 *   per source image: a partial unique index on both engines).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('publish_reason', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('assets').addColumn('publish_review_time', 'bigint').execute();
  await db.schema
    .createTable('image_publications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('review_time', 'bigint')
    .execute();
  await db.schema.createIndex('image_publications_owner').on('image_publications').columns(['owner_id', 'create_time']).execute();
  await db.schema.createIndex('image_publications_state').on('image_publications').columns(['state', 'create_time']).execute();
  await db.schema
    .createIndex('image_publications_one_pending')
    .on('image_publications')
    .column('source')
    .unique()
    .where(sql.ref('state'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('image_publications').execute();
  await db.schema.alterTable('assets').dropColumn('publish_review_time').execute();
  await db.schema.alterTable('assets').dropColumn('publish_reason').execute();
}
