import type { Kysely } from 'kysely';

/**
 * Orders of compute packages (算力卡) and the charge records their payments made (ADR 0012). Money in 分 and
 * compute in card-seconds, as integers. `charge_records.order_id` is unique: besides the conditional
 * UNPAID→PAID write, the schema itself allows one credit per order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_no', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    // The package as it was sold: a later price or config change does not change an order.
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('card_seconds', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('valid_days', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pay_channel', 'text')
    // Alipay's trade_no, once paid through Alipay.
    .addColumn('trade_no', 'text')
    // The operator who confirmed an offline payment.
    .addColumn('confirmed_by', 'text')
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('pay_time', 'bigint')
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // orderNo is what users quote and write on a transfer: unique also under a race (create retries).
  await db.schema.createIndex('orders_order_no_uq').on('orders').column('order_no').unique().execute();
  // The owner's list, newest first; closing the owner's expired UNPAID orders; the operators' list and sweep.
  await db.schema.createIndex('orders_owner_time').on('orders').columns(['owner_id', 'create_time']).execute();
  await db.schema.createIndex('orders_owner_status').on('orders').columns(['owner_id', 'status', 'expire_time']).execute();
  await db.schema.createIndex('orders_time').on('orders').column('create_time').execute();
  await db.schema.createIndex('orders_status_expire').on('orders').columns(['status', 'expire_time']).execute();

  await db.schema
    .createTable('charge_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('order_no', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('card_seconds', 'bigint', (c) => c.notNull())
    .addColumn('comp_power_id', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('pay_channel', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('charge_records_order_uq').on('charge_records').column('order_id').unique().execute();
  await db.schema.createIndex('charge_records_owner_time').on('charge_records').columns(['owner_id', 'create_time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('charge_records').execute();
  await db.schema.dropTable('orders').execute();
}
