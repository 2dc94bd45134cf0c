import { randomUUID } from 'node:crypto';
import { formatYuan } from '@suanli/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { LeaseRepository } from '../../db/lease.repository';
import type { AlipayChannel } from './alipay';
import type { OrderRepository, OrderRow } from './order.repository';

/** How often the leader asks Alipay about every open Alipay order. */
export const RECONCILE_INTERVAL_MS = 3 * 60_000;
/** The same order is asked about at most this often per gateway (reads and the sweep alike). */
export const RECONCILE_MIN_GAP_MS = 30_000;
/**
 * Orders whose pay window ended longer ago than this are no longer asked about: Alipay stops taking money at
 * the window's end (time_expire), so a payment is at most this old when the leader first sees it — a gateway
 * down for longer leaves it to an operator (who confirms it from 全部订单).
 */
export const RECONCILE_HORIZON_MS = 24 * 3600_000;
/** A read (an order page, a detail) waits this long for the query, then answers with what is stored. */
export const READ_WAIT_MS = 2500;
/** Orders one sweep asks about at most (the oldest windows first); the rest come in the next rounds. */
const SWEEP_LIMIT = 200;
/** Queries to Alipay at a time during a sweep. */
const SWEEP_CONCURRENCY = 4;
const LEASE = 'alipay-reconcile';

/** Credits a paid order exactly once (OrderService → OrderRepository.credit); false when it was paid already. */
export type CreditAlipay = (orderId: string, tradeNo: string) => Promise<boolean>;

export interface ReconcilerOptions {
  intervalMs?: number;
  /** This process's name in the lease table (tests run two "gateways" in one process). */
  holder?: string;
}

/**
 * Settles Alipay orders whose async notify never came (ADR 0012, "Reconciliation"): `alipay.trade.query`
 * asks Alipay about the trade and a verified TRADE_SUCCESS/TRADE_FINISHED for the order's exact amount goes
 * through the same exactly-once credit as the notify and the operator's confirm. Asked when the owner reads
 * the order (detail, or their order page) and by one leader across replicas every few minutes (a lease, like
 * the task poller). A failed query — gateway down, a reply whose signature does not verify — changes nothing;
 * the order is asked about again later.
 */
export class AlipayReconciler {
  readonly holder: string;
  private readonly intervalMs: number;
  /** When each order was last asked about by this process (pruned as it grows). */
  private readonly asked = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private leading = false;
  private stopped = false;

  constructor(
    private readonly repo: OrderRepository,
    private readonly alipay: AlipayChannel,
    private readonly credit: CreditAlipay,
    private readonly leases: LeaseRepository,
    private readonly clock: () => number,
    private readonly log: FastifyBaseLogger,
    opts: ReconcilerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? RECONCILE_INTERVAL_MS;
    this.holder = opts.holder ?? randomUUID();
  }

  /** Before the owner's order page: their open Alipay orders, waiting at most READ_WAIT_MS. */
  async onOwnerRead(ownerId: string): Promise<void> {
    await this.settleWithin(await this.repo.alipayOpen({ ownerId, since: this.clock() - RECONCILE_HORIZON_MS }, 20));
  }

  /** Before an order's detail: that order, if it is an open Alipay order, waiting at most READ_WAIT_MS. */
  async onOrderRead(id: string): Promise<void> {
    await this.settleWithin(await this.repo.alipayOpen({ id, since: this.clock() - RECONCILE_HORIZON_MS }, 1));
  }

  /**
   * Asks Alipay about one order and credits it when Alipay says it is paid, for this order and this amount.
   * True when this call credited it. Never throws: whatever fails is logged and left for a later round.
   */
  async settle(order: OrderRow): Promise<boolean> {
    if (order.pay_channel !== 'alipay' || order.status === 'PAID') return false;
    const now = this.clock();
    const last = this.asked.get(order.id);
    if (last !== undefined && now - last < RECONCILE_MIN_GAP_MS) return false;
    this.remember(order.id, now);
    try {
      const trade = await this.alipay.query(order.order_no);
      if (trade.kind !== 'paid') return false;
      // The signature says the reply is Alipay's; these say it is about this order and its whole amount.
      if (trade.outTradeNo !== order.order_no) return this.refuse(order, 'out_trade_no', trade.outTradeNo);
      if (trade.totalAmount !== formatYuan(Number(order.amount))) return this.refuse(order, 'total_amount', trade.totalAmount);
      const credited = await this.credit(order.id, trade.tradeNo);
      if (credited) this.log.info({ orderId: order.id, orderNo: order.order_no, tradeNo: trade.tradeNo }, 'alipay reconcile: paid order credited');
      return credited;
    } catch (err) {
      // The message says enough (refused connection, 验签失败…); the SDK's error also carries the whole reply.
      this.log.warn({ orderId: order.id, orderNo: order.order_no, why: (err as Error).message.slice(0, 300) }, 'alipay reconcile: trade query failed, asking again later');
      return false;
    }
  }

  /** One sweep over the open Alipay orders (the leader's round; tests call it directly). Answers how many were credited. */
  async sweep(): Promise<number> {
    const open = await this.repo.alipayOpen({ since: this.clock() - RECONCILE_HORIZON_MS }, SWEEP_LIMIT);
    let credited = 0;
    for (let i = 0; i < open.length; i += SWEEP_CONCURRENCY) {
      if (this.stopped) break;
      const done = await Promise.all(open.slice(i, i + SWEEP_CONCURRENCY).map((o) => this.settle(o)));
      credited += done.filter(Boolean).length;
    }
    return credited;
  }

  /** Whether this replica runs the sweeps right now. */
  isLeading(): boolean {
    return this.leading;
  }

  /** One round: take or renew the lease; the holder sweeps. */
  async tick(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = (async () => {
      try {
        // Held for two intervals: a leader that dies is replaced within two rounds.
        const mine = await this.leases.acquire(LEASE, this.holder, this.clock(), 2 * this.intervalMs);
        if (mine !== this.leading) this.log.info({ holder: this.holder, leading: mine }, mine ? 'alipay reconcile: leading' : 'alipay reconcile: not leading');
        this.leading = mine;
        if (mine) await this.sweep();
      } catch (err) {
        this.log.warn({ err }, 'alipay reconcile: round failed');
      }
    })();
    try {
      await this.sweeping;
    } finally {
      this.sweeping = null;
    }
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops the rounds and gives the lease up, so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => undefined);
    if (this.leading) await this.leases.release(LEASE, this.holder).catch(() => undefined);
    this.leading = false;
  }

  /** Settles these orders, answering after all of them or READ_WAIT_MS, whichever is first (the rest go on). */
  private async settleWithin(orders: OrderRow[]): Promise<void> {
    if (!orders.length) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, READ_WAIT_MS);
      timer.unref();
    });
    await Promise.race([Promise.all(orders.map((o) => this.settle(o))), waited]);
    clearTimeout(timer);
  }

  private refuse(order: OrderRow, field: string, value: string): false {
    this.log.warn({ orderId: order.id, orderNo: order.order_no, field, value }, 'alipay reconcile: reply does not match the order, nothing credited');
    return false;
  }

  private remember(id: string, now: number): void {
    if (this.asked.size >= 10_000) for (const [k, at] of this.asked) if (now - at >= RECONCILE_MIN_GAP_MS) this.asked.delete(k);
    this.asked.set(id, now);
  }
}
