import { sql, type Insertable } from 'kysely';
import type { OrderStatus, PayChannel } from '@suanli/contracts';
import type { Db, InTx } from '../../db/db';
import type { ChargeRecordsTable, OrdersTable } from '../../db/schema';

export type OrderRow = OrdersTable;
export type ChargeRow = ChargeRecordsTable;

export interface OrderFilter {
  /** Absent: everyone's (operators). */
  ownerId?: string;
  status?: OrderStatus;
  keyword?: string;
  subCenterId?: string;
  payChannel?: PayChannel;
}

export interface ChargeFilter {
  ownerId: string;
  /** `order`: credits of paid orders (充值记录); `grant`: grants (赠送记录). */
  kind: 'order' | 'grant';
  subCenterId?: string;
  cardTypeId?: string;
  startTime?: number;
  endTime?: number;
}

/** How a payment was made: the channel, Alipay's trade number or the confirming operator. */
export interface Payment {
  channel: PayChannel;
  tradeNo: string | null;
  confirmedBy: string | null;
}

const DAY_MS = 24 * 3600_000;
/** Calendar days are China Standard Time's (as orderNos): create_time + 8 h, in whole days. */
const CST_MS = 8 * 3600_000;

/** One day of charges: the day as a number of days since 1970-01-01 (UTC+8) and its sums. */
export interface ChargeDayRow {
  day: number;
  count: number;
  amount: number;
  cardSeconds: number;
}

/**
 * The only SQL of orders and charge records. Every change of an order's status is a conditional UPDATE on
 * the status it may move from, so of concurrent requests (two confirms, a confirm and an Alipay notify, a
 * notify delivered twice) exactly one moves it; the credit's inserts share that write's transaction.
 */
export class OrderRepository {
  constructor(private readonly db: Db) {}

  /** The order, of that owner when `ownerId` is given (operators and the payment notify read any). */
  find(id: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByOrderNo(orderNo: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('order_no', '=', orderNo).executeTakeFirst();
  }

  /**
   * Alipay orders not paid (yet) whose pay window ended after `since`: those a lost notify may have left
   * unsettled (ADR 0012, "Reconciliation"). Of one owner or one order when given; oldest window first.
   */
  alipayOpen(f: { ownerId?: string; id?: string; since: number }, limit: number): Promise<OrderRow[]> {
    let q = this.db.selectFrom('orders').selectAll().where('pay_channel', '=', 'alipay').where('status', '<>', 'PAID').where('expire_time', '>', f.since);
    if (f.ownerId !== undefined) q = q.where('owner_id', '=', f.ownerId);
    if (f.id !== undefined) q = q.where('id', '=', f.id);
    return q.orderBy('expire_time', 'asc').orderBy('id', 'asc').limit(limit).execute();
  }

  /** Inserts the order; false when its orderNo was taken meanwhile (the caller takes the next one). */
  async insert(row: Insertable<OrdersTable>): Promise<boolean> {
    const r = await this.db.insertInto('orders').values(row).onConflict((oc) => oc.column('order_no').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** The highest orderNo starting with `prefix` (`DD` + the day): the next one is one more. */
  async lastOrderNo(prefix: string): Promise<string | undefined> {
    // A range, not LIKE: PostgreSQL uses the unique index for it whatever the collation. ':' follows '9'.
    const row = await this.db
      .selectFrom('orders')
      .select('order_no')
      .where('order_no', '>', prefix)
      .where('order_no', '<', `${prefix}:`)
      .orderBy('order_no', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.order_no;
  }

  /**
   * UNPAID orders past their expireTime → CLOSED (of one owner, of one order, or everyone's). Conditional on
   * the status, so a payment committed meanwhile is never overwritten.
   */
  async closeExpired(now: number, scope: { ownerId?: string; id?: string } = {}): Promise<void> {
    let q = this.db.updateTable('orders').set({ status: 'CLOSED', update_time: now }).where('status', '=', 'UNPAID').where('expire_time', '<=', now);
    if (scope.ownerId !== undefined) q = q.where('owner_id', '=', scope.ownerId);
    if (scope.id !== undefined) q = q.where('id', '=', scope.id);
    await q.execute();
  }

  private filtered(f: OrderFilter) {
    let q = this.db.selectFrom('orders');
    if (f.ownerId !== undefined) q = q.where('owner_id', '=', f.ownerId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.subCenterId) q = q.where('sub_center_id', '=', f.subCenterId);
    if (f.payChannel) q = q.where('pay_channel', '=', f.payChannel);
    if (f.keyword) {
      // orderNos are upper case; the keyword is matched as typed, wildcards escaped.
      const pattern = `%${f.keyword.toUpperCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      q = q.where((eb) => sql<boolean>`${eb.ref('order_no')} like ${pattern} escape '!'`);
    }
    return q;
  }

  /** Newest first. */
  async page(f: OrderFilter, offset: number, limit: number): Promise<{ rows: OrderRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.filtered(f).selectAll().orderBy('create_time', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      this.filtered(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  /** UNPAID → CANCELLED; false when it was not UNPAID (or had expired) by then. */
  async cancel(id: string, ownerId: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('orders')
      .set({ status: 'CANCELLED', update_time: now })
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .where('status', '=', 'UNPAID')
      .where('expire_time', '>', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Records the channel the owner pays with, holding the order until `holdUntil` at least; false when no longer UNPAID. */
  async choose(id: string, ownerId: string, channel: PayChannel, holdUntil: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('orders')
      .set((eb) => ({
        pay_channel: channel,
        // Never shortened: choosing Alipay after offline keeps the longer hold.
        expire_time: eb.case().when('expire_time', '<', holdUntil).then(holdUntil).else(eb.ref('expire_time')).end(),
        update_time: now,
      }))
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .where('status', '=', 'UNPAID')
      .where('expire_time', '>', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * The credit, exactly once (ADR 0012): in one transaction the order → PAID (conditional: only from a status
   * other than PAID), a compute bucket of the order's card-seconds usable `valid_days` from now, and the
   * charge record — and `alsoIn` (an operator's confirm: its audit entry). Null when the order was already
   * PAID — nothing was written.
   */
  async credit(id: string, pay: Payment, ids: { bucketId: string; chargeId: string }, now: number, alsoIn?: InTx): Promise<OrderRow | null> {
    return this.db.transaction().execute(async (trx) => {
      const paid = await trx
        .updateTable('orders')
        .set({ status: 'PAID', pay_channel: pay.channel, trade_no: pay.tradeNo, confirmed_by: pay.confirmedBy, pay_time: now, update_time: now })
        .where('id', '=', id)
        .where('status', '<>', 'PAID')
        .executeTakeFirst();
      if (Number(paid.numUpdatedRows) !== 1) return null;
      // Read inside the transaction, after the write: the row as it now is (and locked on PostgreSQL).
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const seconds = Number(order.card_seconds);
      await trx
        .insertInto('comp_power_buckets')
        .values({
          id: ids.bucketId,
          // Bought for a team (ADR 0017): the bucket and its charge record are the team's.
          owner_id: order.payer_id ?? order.owner_id,
          sub_center_id: order.sub_center_id,
          card_type_id: order.card_type_id,
          granted: seconds,
          remaining: seconds,
          expire_time: now + Number(order.valid_days) * DAY_MS,
          source: 'order',
          create_time: now,
        })
        .execute();
      await trx
        .insertInto('charge_records')
        .values({
          id: ids.chargeId,
          owner_id: order.payer_id ?? order.owner_id,
          order_id: order.id,
          order_no: order.order_no,
          amount: Number(order.amount),
          card_seconds: seconds,
          comp_power_id: ids.bucketId,
          sub_center_id: order.sub_center_id,
          card_type_id: order.card_type_id,
          pay_channel: pay.channel,
          kind: 'order',
          reason: '',
          granted_by: null,
          grant_key: null,
          create_time: now,
        })
        .execute();
      if (alsoIn) await alsoIn(trx);
      return order;
    });
  }

  chargeOfOrder(orderId: string): Promise<ChargeRow | undefined> {
    return this.db.selectFrom('charge_records').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  }

  /** A charge-side record of either kind (the caller checks whose it is). */
  charge(id: string): Promise<ChargeRow | undefined> {
    return this.db.selectFrom('charge_records').selectAll().where('id', '=', id).executeTakeFirst();
  }

  private charges(f: ChargeFilter) {
    let q = this.db.selectFrom('charge_records').where('owner_id', '=', f.ownerId).where('kind', '=', f.kind);
    if (f.subCenterId) q = q.where('sub_center_id', '=', f.subCenterId);
    if (f.cardTypeId) q = q.where('card_type_id', '=', f.cardTypeId);
    if (f.startTime !== undefined) q = q.where('create_time', '>=', f.startTime);
    if (f.endTime !== undefined) q = q.where('create_time', '<', f.endTime);
    return q;
  }

  /** The owner's charge-side records of one kind, newest first. */
  async chargePage(f: ChargeFilter, offset: number, limit: number): Promise<{ rows: ChargeRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.charges(f).selectAll().orderBy('create_time', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      this.charges(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  /**
   * Everyone's card-seconds per calendar day (UTC+8) and kind, created in [from, to) — 平台概览. `day` is
   * the day's number since 1970 (as in `chargeDays`).
   */
  async platformChargeDays(from: number, to: number): Promise<{ day: number; kind: string; cardSeconds: number }[]> {
    const day = sql<number>`(create_time + ${sql.lit(CST_MS)}) / ${sql.lit(DAY_MS)}`;
    const rows = await this.db
      .selectFrom('charge_records')
      .select(['kind', day.as('day'), (eb) => eb.fn.sum<number>('card_seconds').as('seconds')])
      .where('create_time', '>=', from)
      .where('create_time', '<', to)
      .groupBy(['kind', day])
      .execute();
    return rows.map((r) => ({ day: Number(r.day), kind: r.kind, cardSeconds: Number(r.seconds ?? 0) }));
  }

  /** The owner's charges per calendar day (UTC+8) under the same filters, oldest day first. */
  async chargeDays(f: ChargeFilter): Promise<ChargeDayRow[]> {
    // Integer division on both engines (bigint on PostgreSQL, integer on SQLite; times are after 1970). The
    // numbers are literals, not parameters: PostgreSQL matches the grouped expression to the selected one
    // only when they are the same text, and better-sqlite3 may bind a number as REAL (no integer division).
    const day = sql<number>`(create_time + ${sql.lit(CST_MS)}) / ${sql.lit(DAY_MS)}`;
    const rows = await this.charges(f)
      .select([
        day.as('day'),
        (eb) => eb.fn.countAll<number>().as('n'),
        (eb) => eb.fn.sum<number>('amount').as('amount'),
        (eb) => eb.fn.sum<number>('card_seconds').as('seconds'),
      ])
      .groupBy(day)
      .orderBy(day)
      .execute();
    // PostgreSQL answers sums of bigint as numeric strings.
    return rows.map((r) => ({ day: Number(r.day), count: Number(r.n), amount: Number(r.amount), cardSeconds: Number(r.seconds) }));
  }
}
