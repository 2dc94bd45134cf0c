import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';

export const ORDER_BASE = '/gateway/order/api/v1';

/** Compute power is a decimal string of 卡时 with two decimals. */
export const CardHours = Type.String({ pattern: '^\\d+\\.\\d{2}$' });
export type CardHours = Static<typeof CardHours>;

export const CompPowerBucket = Type.Object({
  id: Id,
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  granted: CardHours,
  remaining: CardHours,
  expireTime: Millis,
  source: Type.Union([Type.Literal('order'), Type.Literal('grant')]),
  /** 标准卡时 per card-hour of this card type (config/centers.yaml `standardFactor`, default 1). */
  standardFactor: Type.Number(),
  /** `remaining` × `standardFactor`, in 标准卡时 (rounded down). */
  standardRemaining: CardHours,
});
export type CompPowerBucket = Static<typeof CompPowerBucket>;
export type CompPowerSource = CompPowerBucket['source'];
export const CompPowers = Type.Object({
  userId: Id,
  /** Native card-hours of every bucket added up (mixes card types: shown only per bucket). */
  total: CardHours,
  /** The normalised total: each bucket's remaining × its card type's factor, in 标准卡时. */
  standardTotal: CardHours,
  items: Type.Array(CompPowerBucket),
  /**
   * Centers whose scheduler holds the user's cluster account for lack of compute power (issue 25): new card
   * jobs of it wait there, whatever route they came by, until power is bought or granted. Own balance only.
   */
  held: Type.Optional(Type.Array(Type.Object({ subCenterId: Id, subCenterName: Type.String(), account: Type.String() }))),
});
export type CompPowers = Static<typeof CompPowers>;
export const CompPowersParams = Type.Object({ userId: Id });
export type CompPowersParams = Static<typeof CompPowersParams>;

/** Card-seconds (integer storage) → 卡时 string with two decimals, rounded down. */
export function formatCardHours(cardSeconds: number): string {
  const hundredths = Math.floor((cardSeconds * 100) / 3600);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

// ---- Packages (算力卡), orders, payment, records (ADR 0012) -------------------------------------------

/**
 * Money on the wire is a decimal string of 元 with two decimals ("1280.00"), like 卡时: what the console
 * shows and what Alipay's `total_amount` takes. Stored as integer 分.
 */
export const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$' });
export type Money = Static<typeof Money>;

/** Integer 分 → `元.角分`. */
export function formatYuan(fen: number): string {
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

/** A compute package (算力卡) a center sells for one of its card types (config/centers.yaml). */
export const Product = Type.Object({
  id: Id,
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  name: Type.String(),
  cardHours: CardHours,
  price: Money,
  /** Price per 卡时, rounded to the 分 (display only; the amount is always quantity × price). */
  unitPrice: Money,
  /** The bought compute power is usable this many days from payment. */
  validDays: Type.Integer(),
});
export type Product = Static<typeof Product>;
export const ProductParams = Type.Object({ subCenterId: Id });
export type ProductParams = Static<typeof ProductParams>;
export const ProductQuery = Type.Object({ cardTypeId: Type.Optional(Id) });
export type ProductQuery = Static<typeof ProductQuery>;

export const ORDER_STATUSES = ['UNPAID', 'PAID', 'CANCELLED', 'CLOSED'] as const;
export const OrderStatus = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));
export type OrderStatus = Static<typeof OrderStatus>;
export const PAY_CHANNELS = ['alipay', 'offline'] as const;
export const PayChannel = Type.Union(PAY_CHANNELS.map((s) => Type.Literal(s)));
export type PayChannel = Static<typeof PayChannel>;

/** Quantity of one order: whole packages. */
export const ORDER_QUANTITY_MAX = 100;
/** An UNPAID order is CLOSED this long after its creation (an offline transfer holds it longer, ADR 0012). */
export const ORDER_PAY_WINDOW_MS = 30 * 60_000;

export const Order = Type.Object({
  id: Id,
  /** Bought for this team (ADR 0017); absent or null: for the buyer. */
  teamId: Type.Optional(Type.Union([Id, Type.Null()])),
  /** `DD` + yyyyMMdd (UTC+8) + digits: what users quote to operators and on a bank transfer. */
  orderNo: Type.String(),
  productId: Id,
  productName: Type.String(),
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  quantity: Type.Integer(),
  /** quantity × the package's 卡时. */
  cardHours: CardHours,
  /** quantity × the package's price, computed by the server. */
  amount: Money,
  status: OrderStatus,
  /** The channel the owner chose to pay with; null until then. */
  payChannel: Type.Union([PayChannel, Type.Null()]),
  createTime: Millis,
  payTime: Type.Union([Millis, Type.Null()]),
  expireTime: Millis,
  ownerId: Id,
  /**
   * Who bought it, for operators only (their 全部订单 and another user's detail; never the internal id in
   * the UI): the login name, the display name and how to reach them. Absent on one's own orders.
   */
  buyer: Type.Optional(
    Type.Object({ username: Type.String(), nickname: Type.String(), phone: Type.Union([Type.String(), Type.Null()]), email: Type.Union([Type.String(), Type.Null()]) }),
  ),
});
export type Order = Static<typeof Order>;
export type OrderBuyer = NonNullable<Order['buyer']>;

/** The detail: the order and, once paid, the charge record its payment made. */
export const OrderDetail = Type.Composite([Order, Type.Object({ chargeRecordId: Type.Union([Id, Type.Null()]) })]);
export type OrderDetail = Static<typeof OrderDetail>;

export const OrderPre = Type.Object({
  productId: Id,
  quantity: Type.Integer({ minimum: 1, maximum: ORDER_QUANTITY_MAX }),
  /** Buy for a team (its owner or an admin; ADR 0017): the buyer pays, the compute power is the team's. */
  teamId: Type.Optional(Id),
});
export type OrderPre = Static<typeof OrderPre>;

export const OrderPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(OrderStatus),
    /** Part of an orderNo. */
    keyword: Type.Optional(Type.String({ maxLength: 32 })),
    /** `all`: every user's orders — operators only (1020 otherwise), to find transfers to confirm. Default `mine`. */
    scope: Type.Optional(Type.Union([Type.Literal('mine'), Type.Literal('all')])),
    /** With `all`: the buyer's username (exact, ignoring case). */
    username: Type.Optional(Type.String({ maxLength: 64 })),
    /** With `all`: orders of one center. */
    subCenterId: Type.Optional(Id),
    /** With `all`: the pay channel the buyer chose (`offline`: transfers to confirm). */
    payChannel: Type.Optional(PayChannel),
  }),
]);
export type OrderPageQuery = Static<typeof OrderPageQuery>;
export const OrderPage = Page(Order);
export type OrderPage = Page<Order>;

/** The channels this deployment offers (Alipay only when ALIPAY_* is configured; offline when the centers file has `payment.offline`). */
export const PayChannels = Type.Object({ alipay: Type.Boolean(), offline: Type.Boolean() });
export type PayChannels = Static<typeof PayChannels>;

export const PayBody = Type.Object({ channel: PayChannel });
export type PayBody = Static<typeof PayBody>;

/** What the console shows for an offline payment: where to transfer to and what to write as the remark. */
export const TransferInstructions = Type.Object({
  bankName: Type.String(),
  accountName: Type.String(),
  accountNo: Type.String(),
  amount: Money,
  /** The orderNo: the operator matches the transfer to the order by it. */
  remark: Type.String(),
  /** Chinese text shown below the account (how long it takes, whom to contact). */
  note: Type.String(),
});
export type TransferInstructions = Static<typeof TransferInstructions>;

/** `offline`: the transfer instructions; `alipay`: the cashier URL the browser opens. */
export const PayResult = Type.Object({
  order: Order,
  channel: PayChannel,
  transfer: Type.Optional(TransferInstructions),
  cashierUrl: Type.Optional(Type.String()),
});
export type PayResult = Static<typeof PayResult>;

export const ChargeRecord = Type.Object({
  id: Id,
  orderId: Id,
  orderNo: Type.String(),
  amount: Money,
  cardHours: CardHours,
  compPowerId: Id,
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  payChannel: PayChannel,
  createTime: Millis,
});
export type ChargeRecord = Static<typeof ChargeRecord>;

/** Compute power given for free (赠送): an operator's grant, the welcome grant, the demo account's (ADR 0015). */
export const GrantRecord = Type.Object({
  id: Id,
  cardHours: CardHours,
  /** The bucket the grant made (source `grant`). */
  compPowerId: Id,
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  /** Why it was given, as shown to the user (欢迎赠送, 演示账号赠送, or the operator's words). */
  reason: Type.String(),
  createTime: Millis,
});
export type GrantRecord = Static<typeof GrantRecord>;

/**
 * Compute drawn by a task (消费记录, ADR 0015): one record per task, bucket and day (UTC+8) — the draws of
 * that day from that bucket summed. `startTime`/`endTime` are the wall-clock span of the task's run it
 * covers (the task's start as the scheduler reports it + the elapsed seconds metered).
 */
export const ConsumeRecord = Type.Object({
  id: Id,
  taskId: Id,
  /** `training` or `slurm`. */
  taskKind: Type.String(),
  /** The task's name when it was metered (a deleted task keeps its records). */
  taskName: Type.String(),
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  /** Cards per node as submitted (0: CPU only) and nodes. */
  cardNum: Type.Integer(),
  nodeNum: Type.Integer(),
  /** Cards billed: max(cardNum, 1) × nodeNum (a CPU-only job is billed one card per node). */
  billedCards: Type.Integer(),
  /** The day (UTC+8) the record belongs to, `yyyy-MM-dd`. */
  day: Type.String(),
  startTime: Millis,
  endTime: Millis,
  cardHours: CardHours,
  /** The exact amount (卡时 × 3600), for sums and exports that must not add rounded figures. */
  cardSeconds: Type.Integer(),
  compPowerId: Id,
  createTime: Millis,
  updateTime: Millis,
  /** A team's record: the member who ran the task (ADR 0017). */
  userId: Type.Optional(Id),
  username: Type.Optional(Type.String()),
});
export type ConsumeRecord = Static<typeof ConsumeRecord>;

export const RECORD_TYPES = ['charge', 'consume', 'grant'] as const;
export const RecordPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    /** 充值记录 (orders paid), 消费记录 (tasks' draws) or 赠送记录 (grants). */
    type: Type.Union(RECORD_TYPES.map((t) => Type.Literal(t))),
    /** A team's records instead of the caller's (any member may read them; ADR 0017). */
    teamId: Type.Optional(Id),
    subCenterId: Type.Optional(Id),
    /** consume and grant records. */
    cardTypeId: Type.Optional(Id),
    /** consume records of one task. */
    taskId: Type.Optional(Id),
    /** [startTime, endTime): a charge or grant record's createTime, a consume record's startTime. */
    startTime: Type.Optional(Millis),
    endTime: Type.Optional(Millis),
  }),
]);
export type RecordPageQuery = Static<typeof RecordPageQuery>;

/** The filters of a record page without paging: what the per-day totals are of. */
export const RecordStatsQuery = Type.Omit(RecordPageQuery, ['pageNum', 'pageSize']);
export type RecordStatsQuery = Static<typeof RecordStatsQuery>;
/** One calendar day (UTC+8, `yyyy-MM-dd`) of records: how many, their 卡时 and (charges) their amount. */
export const RecordDay = Type.Object({ day: Type.String(), count: Type.Integer(), cardHours: CardHours, amount: Type.Optional(Money) });
export type RecordDay = Static<typeof RecordDay>;
export const RecordPage = Page(Type.Union([ChargeRecord, ConsumeRecord, GrantRecord]));
export type RecordPage = Page<ChargeRecord | ConsumeRecord | GrantRecord>;

/** Filters of the consumption totals (the charts of 费用明细); the same meaning as in RecordPageQuery. */
export const ConsumeStatsQuery = Type.Object({
  /** A team's consumption instead of the caller's (members; ADR 0017). */
  teamId: Type.Optional(Id),
  subCenterId: Type.Optional(Id),
  cardTypeId: Type.Optional(Id),
  taskId: Type.Optional(Id),
  startTime: Type.Optional(Millis),
  endTime: Type.Optional(Millis),
});
export type ConsumeStatsQuery = Static<typeof ConsumeStatsQuery>;
/** The sum of one group. Composed, not spread: a module-level object spread into schemas cannot be
 * tree-shaken, and it put TypeBox on the login page (docs/performance.md, "Console first-load JS"). */
const ConsumeSum = Type.Object({ cardHours: CardHours, cardSeconds: Type.Integer() });
export const ConsumeStats = Type.Object({
  total: CardHours,
  totalSeconds: Type.Integer(),
  /** Per day (UTC+8, `yyyy-MM-dd`), oldest first; days without consumption are absent. */
  byDay: Type.Array(Type.Composite([Type.Object({ day: Type.String() }), ConsumeSum])),
  byCenter: Type.Array(Type.Composite([Type.Object({ subCenterId: Id, subCenterName: Type.String() }), ConsumeSum])),
  byCardType: Type.Array(Type.Composite([Type.Object({ cardTypeId: Id, cardTypeName: Type.String() }), ConsumeSum])),
  /** Per task, most consumed first (the name as last metered): 消费记录's task filter. */
  byTask: Type.Array(Type.Composite([Type.Object({ taskId: Id, taskKind: Type.String(), taskName: Type.String() }), ConsumeSum])),
});
export type ConsumeStats = Static<typeof ConsumeStats>;

/** 团队详情: each member's team-paid usage this calendar month (UTC+8), per card type, with their limit. */
export const TeamUsageQuery = Type.Object({ teamId: Id });
export type TeamUsageQuery = Static<typeof TeamUsageQuery>;
export const TeamUsage = Type.Object({
  /** `yyyy-MM` (UTC+8). */
  month: Type.String(),
  cardTypes: Type.Array(Type.Object({ cardTypeId: Id, cardTypeName: Type.String() })),
  members: Type.Array(
    Type.Object({
      userId: Id,
      username: Type.String(),
      total: CardHours,
      /** The monthly limit in 卡时; null: none. */
      limitCardHours: Type.Union([Type.Integer(), Type.Null()]),
      byCardType: Type.Array(Type.Composite([Type.Object({ cardTypeId: Id, cardTypeName: Type.String() }), ConsumeSum])),
    }),
  ),
});
export type TeamUsage = Static<typeof TeamUsage>;

/** An operator's grant (赠送) of compute power to a user, named by username. */
export const GRANT_CARD_HOURS_MAX = 100_000;
export const GrantBody = Type.Object({
  /** The recipient: a user by login name, or a team by `teamName` — exactly one of the two (else 1001). */
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** 发放给团队 (ADR 0017): the team's name; with `teamOwner` (its owner's login name) when several teams share it. */
  teamName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  teamOwner: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  subCenterId: Id,
  cardTypeId: Id,
  cardHours: Type.Integer({ minimum: 1, maximum: GRANT_CARD_HOURS_MAX }),
  validDays: Type.Integer({ minimum: 1, maximum: 3650 }),
  reason: Type.String({ minLength: 1, maxLength: 200 }),
});
export type GrantBody = Static<typeof GrantBody>;

/** The data of a 2507 answer (COMP_POWER_INSUFFICIENT): what the submit needed, so the console can send the user to 购买算力. */
export const InsufficientCompPower = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  /** The matching balance (rounded down) and the first period's need (rounded up), 卡时. */
  balance: CardHours,
  need: CardHours,
});
export type InsufficientCompPower = Static<typeof InsufficientCompPower>;

// ---- route descriptors (route.ts): the order routes; compute power and records are still registered by hand ----

export const ProductList = Type.Array(Product);
export type ProductList = Static<typeof ProductList>;
/** Alipay's notify: a flat form (verified by signature, not by shape); the answer is a plain word. */
export const AlipayNotifyForm = Type.Record(Type.String(), Type.String());
export type AlipayNotifyForm = Static<typeof AlipayNotifyForm>;
export const PlainText = Type.String();
export type PlainText = Static<typeof PlainText>;

export const OrderApi = {
  products: route<{ params: typeof ProductParams; query: typeof ProductQuery; response: typeof ProductList }>('GET', ORDER_BASE, '/sub-center-card/:subCenterId/card-type'),
  pre: route<{ body: typeof OrderPre; response: typeof Order }>('POST', ORDER_BASE, '/orders/pre'),
  page: route<{ body: typeof OrderPageQuery; response: typeof OrderPage }>('POST', ORDER_BASE, '/orders/action/page'),
  detail: route<{ params: typeof IdParams; response: typeof OrderDetail }>('GET', ORDER_BASE, '/orders/:id'),
  cancel: route<{ params: typeof IdParams; response: typeof Order }>('POST', ORDER_BASE, '/orders/:id/cancel'),
  channels: route<{ response: typeof PayChannels }>('GET', ORDER_BASE, '/pay/channels'),
  pay: route<{ params: typeof IdParams; body: typeof PayBody; response: typeof PayResult }>('POST', ORDER_BASE, '/orders/:id/pay'),
  confirm: route<{ params: typeof IdParams; response: typeof Order }>('POST', ORDER_BASE, '/orders/:id/confirm', { role: 'operator' }),
  alipayNotify: route<{ body: typeof AlipayNotifyForm; response: typeof PlainText }>('POST', ORDER_BASE, '/pay/alipay/notify', { public: true }),
};

export const OrderApiSchemas: SchemasOf<typeof OrderApi> = {
  products: { summary: '分中心在售算力卡（可按卡型筛选；维护或下线的分中心没有）', params: ProductParams, querystring: ProductQuery, response: ProductList },
  pre: { summary: '下单（服务端计价，30 分钟内未支付自动关闭）', body: OrderPre, response: Order },
  page: { summary: '订单列表（运营人员可查看全部）', body: OrderPageQuery, response: OrderPage },
  detail: { summary: '订单详情', params: IdParams, response: OrderDetail },
  cancel: { summary: '取消未支付的订单', params: IdParams, response: Order },
  channels: { summary: '可用的支付方式（支付宝仅在已配置时可用）', response: PayChannels },
  pay: { summary: '选择支付方式（线下转账返回收款账户，支付宝返回收银台地址）', params: IdParams, body: PayBody, response: PayResult },
  confirm: { summary: '确认线下转账已到账（运营人员；记入审计日志）', params: IdParams, response: Order },
  alipayNotify: { summary: '支付宝异步通知（验签后入账，应答 success / failure 纯文本）', body: AlipayNotifyForm, response: PlainText },
};
