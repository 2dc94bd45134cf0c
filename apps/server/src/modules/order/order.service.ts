// Over 400 lines: orders from pre-order to the exactly-once credit over both payment channels, with what a credit sets off (messages, pushes, the balance limits it lifts), in one place.
import {
  teamOfPayer,
  ErrorCode,
  ORDER_PAY_WINDOW_MS,
  formatCardHours,
  formatYuan,
  type Order,
  type OrderDetail,
  type OrderPage,
  type OrderPageQuery,
  type OrderPre,
  type OrderStatus,
  type OrderBuyer,
  type PayBody,
  type PayChannel,
  type PayChannels,
  type PayResult,
  type Product,
  type ProductQuery,
} from '@suanli/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { CenterCardType, CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { AppError, invalid, notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { CenterService } from '../center/center.service';
import type { CenterPackageRow } from '../center/center.repository';
import type { UserDirectory } from '../user/user-directory';
import type { AlipayChannel } from './alipay';
import type { AlipayReconciler } from './alipay-reconciler';
import type { OfflinePayment } from '../../centers/centers';
import type { OrderRepository, OrderRow, Payment } from './order.repository';
import type { InTx } from '../../db/db';
import { nextSerial, serialPrefix } from '../../lib/serial-no';
import type { BalanceLimits } from './balance-limit.service';

const HOUR_SECONDS = 3600;
/** A number taken meanwhile by a concurrent order: try the next this many times before giving up. */
const RETRIES = 10;

interface Sellable {
  pkg: CenterPackageRow;
  center: CenterConfig;
  cardType: CenterCardType;
}

/** The packages on sale and whether a center takes orders (center module: 运营管理 › 分中心). */
export type OrderCatalogue = Pick<CenterService, 'forSale' | 'sellable' | 'requireOpen'>;

/** The channels this deployment offers; an absent one answers 2505 with the reason. */
export interface PaymentChannels {
  offline?: OfflinePayment;
  alipay?: AlipayChannel;
  /** With Alipay: settles orders whose notify never came when their owner reads them. */
  reconciler?: Pick<AlipayReconciler, 'onOwnerRead' | 'onOrderRead'>;
}

/** Alipay's trade states that mean the money is paid. */
const ALIPAY_PAID = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);

/**
 * 算力卡 orders (ADR 0012): packages and prices from the center module (the database; the centers file is their
 * first value) and only while the center is 正常, UNPAID orders that close after their pay window,
 * payment by offline transfer confirmed by an operator, and the credit — order PAID, a compute bucket and a
 * charge record — made exactly once in one transaction whoever confirms it and however often.
 */
export class OrderService {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly repo: OrderRepository,
    centers: CenterConfig[],
    private readonly payment: PaymentChannels,
    private readonly access: Pick<AccessService, 'require' | 'found' | 'owns'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly log: FastifyBaseLogger,
    private readonly users: Pick<UserDirectory, 'contacts' | 'named'>,
    private readonly catalogue: OrderCatalogue,
    private readonly audit: AuditTrail,
    private readonly teams: { payer(p: Principal, teamId: string, action: 'team.manage'): Promise<{ payer: string }>; memberIds(teamId: string): Promise<string[]> }, // for a team its owner/admins buy, paying themselves (1205 non-member, 1020 member; ADR 0017); its members are told of the credit
    /** The balance enforced by the scheduler (issue 25): the credited users' held accounts are opened at once. */
    private readonly limits?: Pick<BalanceLimits, 'owners'>,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** Which channels the buy page may offer: 支付宝支付 only when Alipay is configured. */
  channels(): PayChannels {
    return { alipay: Boolean(this.payment.alipay), offline: Boolean(this.payment.offline) };
  }

  /**
   * The packages a center sells, of one card type when given; an unknown center or card type is 1205. A center
   * in 维护 or 下线 sells nothing: the list is empty until it is 正常 again.
   */
  async listProducts(subCenterId: string, q: ProductQuery): Promise<Product[]> {
    const center = this.centers.get(subCenterId);
    if (!center) throw notFound('分中心');
    if (q.cardTypeId !== undefined && !center.cardTypes.some((t) => t.id === q.cardTypeId)) throw notFound('卡型');
    return (await this.catalogue.forSale(center.id))
      .filter((pkg) => q.cardTypeId === undefined || pkg.card_type_id === q.cardTypeId)
      .map((pkg) => toProduct({ pkg, center, cardType: center.cardTypes.find((t) => t.id === pkg.card_type_id)! }));
  }

  /**
   * An UNPAID order priced here from the package as it is now (the client never sends a price), closing after
   * 30 min. Refused (2012/2013, naming the notice) while the package's center is not 正常.
   */
  async pre(p: Principal, body: OrderPre): Promise<Order> {
    const sold = await this.sellable(body.productId);
    if (!sold) throw invalid('productId', '算力卡不存在或已下架');
    await this.catalogue.requireOpen(sold.center.id);
    const team = body.teamId ? await this.teams.payer(p, body.teamId, 'team.manage') : undefined;
    for (let attempt = 0; ; attempt++) {
      const now = this.clock();
      const row: OrderRow = {
        id: newId(now),
        order_no: await this.nextOrderNo(now),
        owner_id: p.userId,
        product_id: sold.pkg.id,
        product_name: sold.pkg.name,
        sub_center_id: sold.center.id,
        card_type_id: sold.cardType.id,
        quantity: body.quantity,
        card_seconds: body.quantity * Number(sold.pkg.card_hours) * HOUR_SECONDS,
        amount: body.quantity * Number(sold.pkg.price),
        valid_days: Number(sold.pkg.valid_days),
        status: 'UNPAID',
        pay_channel: null,
        trade_no: null,
        confirmed_by: null,
        create_time: now,
        pay_time: null,
        expire_time: now + ORDER_PAY_WINDOW_MS,
        update_time: now,
        payer_id: team?.payer ?? null,
      };
      if (await this.repo.insert(row)) return this.toOrder(row);
      // Another order took this number a moment ago: the next one is free.
      if (attempt >= RETRIES) throw new AppError(ErrorCode.RESOURCE_FAILED, '订单编号生成失败，请重试');
    }
  }

  async page(p: Principal, q: OrderPageQuery): Promise<OrderPage> {
    const all = q.scope === 'all';
    if (all) this.access.require(p, 'order.readAll');
    // An owner's Alipay order whose notify never came is settled before they see it (not for `all`: the leader sweeps those).
    else await this.payment.reconciler?.onOwnerRead(p.userId);
    // Expiry is applied when orders are read: what is shown is never an UNPAID order past its window.
    await this.repo.closeExpired(this.clock(), all ? {} : { ownerId: p.userId });
    const keyword = q.keyword?.trim();
    let ownerId = all ? undefined : p.userId;
    const username = all ? q.username?.trim() : undefined;
    if (username) {
      const [buyer] = await this.users.named([username]);
      if (!buyer) return { list: [], total: 0, pageNum: q.pageNum, pageSize: q.pageSize };
      ownerId = buyer.id;
    }
    const { rows, total } = await this.repo.page(
      {
        ownerId,
        status: q.status,
        keyword: keyword || undefined,
        subCenterId: all ? q.subCenterId : undefined,
        payChannel: all ? q.payChannel : undefined,
      },
      (q.pageNum - 1) * q.pageSize,
      q.pageSize,
    );
    const buyers = all ? await this.buyers(rows) : undefined;
    return { list: rows.map((r) => this.toOrder(r, buyers?.get(r.owner_id))), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, id: string): Promise<OrderDetail> {
    let row = await this.visible(p, id);
    if (this.payment.reconciler && row.pay_channel === 'alipay' && row.status !== 'PAID') {
      await this.payment.reconciler.onOrderRead(id);
      row = await this.visible(p, id);
    }
    const charge = row.status === 'PAID' ? await this.repo.chargeOfOrder(row.id) : undefined;
    // An operator reading another user's order sees who bought it.
    const buyer = this.access.owns(p, { ownerId: row.owner_id }) ? undefined : (await this.buyers([row])).get(row.owner_id);
    return { ...this.toOrder(row, buyer), chargeRecordId: charge?.id ?? null };
  }

  /** UNPAID → CANCELLED, the owner only. */
  async cancel(p: Principal, id: string): Promise<Order> {
    await this.own(p, id);
    if (!(await this.repo.cancel(id, p.userId, this.clock()))) throw this.stateError(await this.own(p, id));
    return this.toOrder(await this.own(p, id));
  }

  /**
   * The owner chooses how to pay. `offline`: the order is held for the transfer (`holdHours`) and the answer
   * carries the account, the amount and the orderNo to write as the remark.
   */
  async pay(p: Principal, id: string, body: PayBody): Promise<PayResult> {
    const row = await this.own(p, id);
    // No new payment for a center in 维护 or 下线 (an order made before stays payable once it is 正常 again).
    if (row.status === 'UNPAID') await this.catalogue.requireOpen(row.sub_center_id);
    if (body.channel === 'offline') {
      const offline = this.payment.offline;
      if (!offline) throw new AppError(ErrorCode.PAY_CHANNEL_UNAVAILABLE, '线下转账暂未开通，请联系运维人员');
      const now = this.clock();
      if (!(await this.repo.choose(id, p.userId, 'offline', now + offline.holdMs, now))) throw this.stateError(await this.own(p, id));
      const order = this.toOrder(await this.own(p, id));
      return {
        order,
        channel: 'offline',
        transfer: { bankName: offline.bankName, accountName: offline.accountName, accountNo: offline.accountNo, amount: order.amount, remark: row.order_no, note: offline.note },
      };
    }
    const alipay = this.payment.alipay;
    if (!alipay) throw new AppError(ErrorCode.PAY_CHANNEL_UNAVAILABLE, '支付宝支付暂未开通，请选择线下转账');
    const now = this.clock();
    // The window stays as it is (Alipay is told to stop accepting payment at expireTime).
    if (!(await this.repo.choose(id, p.userId, 'alipay', now, now))) throw this.stateError(await this.own(p, id));
    const order = this.toOrder(await this.own(p, id));
    try {
      const cashierUrl = alipay.cashierUrl({ orderNo: order.orderNo, amount: order.amount, subject: `${order.productName} × ${order.quantity}`, expireTime: order.expireTime });
      return { order, channel: 'alipay', cashierUrl };
    } catch (err) {
      this.log.error({ err, orderId: id }, 'alipay page pay: signing failed');
      throw new AppError(ErrorCode.PAY_FAILED);
    }
  }

  /**
   * Alipay's async notify (public, form-encoded). `success` — only after the credit is committed, or when
   * the order is already paid (a repeated notify) or the trade is not paid (nothing to do) — stops Alipay
   * from sending it again; `failure` for anything unverified: bad signature, another app or seller, an
   * unknown order, an amount that is not the order's. Never throws (Alipay reads only the text).
   */
  async alipayNotify(form: Record<string, string>): Promise<'success' | 'failure'> {
    const alipay = this.payment.alipay;
    if (!alipay) return 'failure';
    const refuse = (why: string) => {
      this.log.warn({ outTradeNo: form.out_trade_no, tradeNo: form.trade_no, why }, 'alipay notify refused');
      return 'failure' as const;
    };
    try {
      if (!alipay.verify(form)) return refuse('signature');
      if (form.app_id !== alipay.settings.appId) return refuse('app_id');
      if (alipay.settings.sellerId && form.seller_id !== alipay.settings.sellerId) return refuse('seller_id');
      if (!ALIPAY_PAID.has(form.trade_status)) return 'success';
      const order = form.out_trade_no ? await this.repo.findByOrderNo(form.out_trade_no) : undefined;
      if (!order) return refuse('out_trade_no');
      // Both sides are `元.角分` strings built from integers: compared as text, no float involved.
      if (form.total_amount !== formatYuan(Number(order.amount))) return refuse('total_amount');
      // Already paid (this notify again, or an operator was first): acknowledged, nothing changes.
      await this.credit(order.id, { channel: 'alipay', tradeNo: form.trade_no ?? null, confirmedBy: null });
      return 'success';
    } catch (err) {
      this.log.error({ err, outTradeNo: form.out_trade_no }, 'alipay notify failed');
      return 'failure';
    }
  }

  /**
   * An operator confirms that the offline payment of the order arrived: the credit, exactly once, with its
   * audit entry (`order.confirm`) in the credit's transaction. A second confirm (or one racing an Alipay
   * notify) changes nothing, writes no entry and answers 2502.
   */
  async confirm(p: Principal, id: string, ip: string | null): Promise<Order> {
    this.access.require(p, 'order.confirm');
    const row = await this.repo.find(id);
    if (!row) throw notFound('订单');
    const actor = await this.audit.operator(p, ip);
    const buyer = (await this.buyers([row])).get(row.owner_id);
    const view = this.toOrder(row);
    const credited = await this.credit(id, { channel: 'offline', tradeNo: null, confirmedBy: p.userId }, (tx) =>
      this.audit.record(tx, {
        actor,
        action: 'order.confirm',
        target: { type: 'order', id, name: row.order_no },
        before: { status: row.status },
        after: { status: 'PAID', payChannel: 'offline', amount: view.amount, cardHours: view.cardHours, buyer: buyer?.username ?? row.owner_id },
      }),
    );
    if (!credited) throw new AppError(ErrorCode.ORDER_PAID);
    return this.toOrder(credited, (await this.buyers([credited])).get(credited.owner_id));
  }

  /** Alipay said (trade query) the order is paid: the same exactly-once credit. False when it was paid already. */
  async creditAlipay(id: string, tradeNo: string): Promise<boolean> {
    return (await this.credit(id, { channel: 'alipay', tradeNo, confirmedBy: null })) !== null;
  }

  // ---- helpers ----------------------------------------------------------------------------------------

  /**
   * The credit (repository: one transaction, conditional on the order not being PAID), then — only after
   * the commit — the owner's message and the balance push. Null when it was paid already.
   */
  private async credit(id: string, pay: Payment, alsoIn?: InTx): Promise<OrderRow | null> {
    const now = this.clock();
    const order = await this.repo.credit(id, pay, { bucketId: newId(now), chargeId: newId(now) }, now, alsoIn);
    if (!order) return null;
    const paid = (await this.repo.find(id))!;
    const view = this.toOrder(paid);
    try {
      await this.notify(paid.owner_id, {
        type: 'order',
        title: '订单支付成功',
        content: `订单「${paid.order_no}」已支付，算力已到账：${view.subCenterName} ${view.cardTypeName} ${view.cardHours} 卡时，有效期 ${paid.valid_days} 天。`,
        businessType: 'order',
        businessId: paid.id,
      });
    } catch (err) {
      // The credit is committed; a lost message must not turn it into an error the payer retries.
      this.log.error({ err, orderId: id }, 'order paid: message to the owner failed');
    }
    const credited = new Set([paid.owner_id, ...(paid.payer_id ? await this.teams.memberIds(teamOfPayer(paid.payer_id)!) : [])]);
    for (const u of credited) await this.bus.publish(u, { businessType: 'comp-power.changed', data: {} });
    await this.limits?.owners([...credited]);
    return paid;
  }

  /** The caller's order, closed first if its window has passed; another user's or a missing one is 1205. */
  private async own(p: Principal, id: string): Promise<OrderRow> {
    await this.repo.closeExpired(this.clock(), { id });
    return this.access.found(p, 'order.write', await this.repo.find(id), (r) => ({ ownerId: r.owner_id }), '订单');
  }

  /** The owner's order, or any order for an operator (they confirm transfers); 1205 otherwise. */
  private async visible(p: Principal, id: string): Promise<OrderRow> {
    await this.repo.closeExpired(this.clock(), { id });
    return this.access.found(p, 'order.read', await this.repo.find(id), (r) => ({ ownerId: r.owner_id }), '订单');
  }

  /** A package on sale by id with its center and card type (the centers file must still have both). */
  private async sellable(productId: string): Promise<Sellable | undefined> {
    const pkg = await this.catalogue.sellable(productId);
    const center = pkg && this.centers.get(pkg.center_id);
    const cardType = center?.cardTypes.find((t) => t.id === pkg!.card_type_id);
    return pkg && center && cardType ? { pkg, center, cardType } : undefined;
  }

  private stateError(row: OrderRow): AppError {
    const byStatus: Partial<Record<OrderStatus, number>> = { PAID: ErrorCode.ORDER_PAID, CLOSED: ErrorCode.ORDER_CLOSED, CANCELLED: ErrorCode.ORDER_CANCELLED };
    return new AppError(byStatus[row.status as OrderStatus] ?? ErrorCode.ORDER_STATE);
  }

  /** The next free-looking number of the day; the unique index settles a race (pre retries). */
  private async nextOrderNo(now: number): Promise<string> {
    const prefix = serialPrefix('DD', now);
    return nextSerial(prefix, await this.repo.lastOrderNo(prefix));
  }

  private names(centerId: string, cardTypeId: string) {
    // A center or card type removed from the config still shows its orders under their ids.
    const center = this.centers.get(centerId);
    return { subCenterName: center?.name ?? centerId, cardTypeName: center?.cardTypes.find((t) => t.id === cardTypeId)?.name ?? cardTypeId };
  }

  /** Who bought these orders (operators' views): names and contact details through the user module. */
  private async buyers(rows: OrderRow[]): Promise<Map<string, OrderBuyer>> {
    const found = await this.users.contacts(rows.map((r) => r.owner_id));
    return new Map([...found].map(([id, u]) => [id, { username: u.username, nickname: u.nickname, phone: u.phone, email: u.email }]));
  }

  private toOrder(r: OrderRow, buyer?: OrderBuyer): Order {
    return {
      id: r.id,
      teamId: teamOfPayer(r.payer_id),
      orderNo: r.order_no,
      productId: r.product_id,
      productName: r.product_name,
      subCenterId: r.sub_center_id,
      cardTypeId: r.card_type_id,
      ...this.names(r.sub_center_id, r.card_type_id),
      quantity: Number(r.quantity),
      cardHours: formatCardHours(Number(r.card_seconds)),
      amount: formatYuan(Number(r.amount)),
      status: r.status as OrderStatus,
      payChannel: (r.pay_channel as PayChannel | null) ?? null,
      createTime: Number(r.create_time),
      payTime: r.pay_time === null ? null : Number(r.pay_time),
      expireTime: Number(r.expire_time),
      ownerId: r.owner_id,
      ...(buyer ? { buyer } : {}),
    };
  }
}

function toProduct({ pkg, center, cardType }: Sellable): Product {
  return {
    id: pkg.id,
    subCenterId: center.id,
    subCenterName: center.name,
    cardTypeId: cardType.id,
    cardTypeName: cardType.name,
    name: pkg.name,
    cardHours: formatCardHours(Number(pkg.card_hours) * HOUR_SECONDS),
    price: formatYuan(Number(pkg.price)),
    unitPrice: formatYuan(Math.round(Number(pkg.price) / Number(pkg.card_hours))),
    validDays: Number(pkg.valid_days),
  };
}
