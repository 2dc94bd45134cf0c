// Over 400 lines: one app per engine for the order cases, and a second describe for Alipay, which needs its own app and keys.
import { createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_BASE, ORDER_BASE, type WsEvent } from '@suanli/contracts';
import { FakeAlipayGateway } from '../../../test/alipay-gateway';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

interface User {
  id: string;
  username: string;
  token: string;
}

const MIN = 60_000;
const DAY_MS = 24 * 3600_000;

/** The calendar day of `now` in UTC+8, as orderNo spells it. */
const day = (now: number) => new Date(now + 8 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');

describe.each(engines)('order api (%s)', (engine) => {
  let t: TestApp;
  let owner: User;
  let other: User;
  let op: User;
  let seq = 0;

  const user = async (tag: string): Promise<User> => {
    const username = `od_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
    const { token } = await t.app.ctx.sessions.create(created!.id);
    return { id: created!.id, username, token };
  };
  /** Sessions idle out after 30 min: after moving the clock, a user needs a new one. */
  const refresh = async (u: User) => ({ ...u, token: (await t.app.ctx.sessions.create(u.id)).token });

  beforeAll(async () => {
    t = await createTestApp(engine, { metering: {} });
    [owner, other, op] = [await user('owner'), await user('other'), await user('op')];
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  const send = async (method: 'GET' | 'POST', path: string, token: string | null, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${ORDER_BASE}${path}`, headers: token ? { token } : {}, payload: payload as object }));
  const pre = (u: User, productId = 'sz-a100-10h', quantity = 1, extra: object = {}) => send('POST', '/orders/pre', u.token, { productId, quantity, ...extra });
  const detail = (u: User, id: string) => send('GET', `/orders/${id}`, u.token);
  const page = (u: User, q: object = {}) => send('POST', '/orders/action/page', u.token, { pageNum: 1, pageSize: 100, ...q });
  const confirm = (u: User, id: string) => send('POST', `/orders/${id}/confirm`, u.token);
  const records = (u: User, q: object = {}) => send('POST', '/records/action/page', u.token, { type: 'charge', pageNum: 1, pageSize: 100, ...q });
  const balance = async (u: User) => (await send('GET', `/comp-powers/${u.id}`, u.token)).data;
  const messages = async (u: User) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 100, type: 'order' } })).data.list;
  const countRows = async (table: 'charge_records' | 'comp_power_buckets', ownerId: string) =>
    Number(
      (
        await t.app.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('owner_id', '=', ownerId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('lists the packages a center sells per card type, priced in 元 with 卡时 and validity', async () => {
    const res = await send('GET', '/sub-center-card/sz-a100/card-type?cardTypeId=a100-80g', owner.token);
    expect(res.message).toEqual({ code: 0, message: '操作成功' });
    expect(res.data.map((p: any) => [p.id, p.cardHours, p.price, p.unitPrice, p.validDays])).toEqual([
      ['sz-a100-10h', '10.00', '128.00', '12.80', 30],
      ['sz-a100-100h', '100.00', '1180.00', '11.80', 90],
      ['sz-a100-1000h', '1000.00', '10800.00', '10.80', 365],
    ]);
    expect(res.data[0]).toMatchObject({ subCenterId: 'sz-a100', subCenterName: '深圳算力分中心', cardTypeId: 'a100-80g', cardTypeName: 'NVIDIA A100 80G', name: 'A100 体验卡 10 卡时' });
    // Without a card type: every package of the center; another center sells its own.
    expect((await send('GET', '/sub-center-card/sz-a100/card-type', owner.token)).data.map((p: any) => p.cardTypeId)).toEqual(['a100-80g', 'a100-80g', 'a100-80g', 'cpu-std', 'cpu-std']);
    expect((await send('GET', '/sub-center-card/gz-ascend/card-type?cardTypeId=dcu-z100', owner.token)).data.map((p: any) => p.id)).toEqual(['gz-dcu-10h', 'gz-dcu-100h']);
    expect((await send('GET', '/sub-center-card/nowhere/card-type', owner.token)).message).toEqual({ code: 1205, message: '分中心不存在' });
    expect((await send('GET', '/sub-center-card/sz-a100/card-type?cardTypeId=ascend-910b', owner.token)).message).toEqual({ code: 1205, message: '卡型不存在' });
  });

  it('prices an order on the server: UNPAID, amount = quantity × price, closes in 30 min; a price in the body changes nothing', async () => {
    const res = await pre(owner, 'sz-a100-10h', 3, { price: '0.01', amount: '0.01' });
    expect(res.message.code).toBe(0);
    expect(res.data).toMatchObject({
      productId: 'sz-a100-10h',
      productName: 'A100 体验卡 10 卡时',
      subCenterId: 'sz-a100',
      subCenterName: '深圳算力分中心',
      cardTypeId: 'a100-80g',
      cardTypeName: 'NVIDIA A100 80G',
      quantity: 3,
      cardHours: '30.00',
      amount: '384.00',
      status: 'UNPAID',
      payChannel: null,
      payTime: null,
      createTime: t.clock.now,
      expireTime: t.clock.now + 30 * MIN,
      ownerId: owner.id,
    });
    expect(res.data.orderNo).toMatch(new RegExp(`^DD${day(t.clock.now)}\\d{4}$`));
    // The next order of the day has the next number.
    const next = await pre(owner, 'gz-910b-100h', 2);
    expect(Number(next.data.orderNo.slice(-4))).toBe(Number(res.data.orderNo.slice(-4)) + 1);
    expect(next.data).toMatchObject({ amount: '1800.00', cardHours: '200.00' });
    expect((await detail(owner, res.data.id)).data).toMatchObject({ ...res.data, chargeRecordId: null });
  });

  it('gives concurrent orders distinct orderNos (a number taken meanwhile is retried with the next)', async () => {
    const placed = await Promise.all(Array.from({ length: 8 }, () => pre(other, 'gz-dcu-10h', 1)));
    expect(placed.map((r) => r.message.code)).toEqual(Array(8).fill(0));
    expect(new Set(placed.map((r) => r.data.orderNo)).size).toBe(8);
  });

  it('refuses a bad productId or quantity with 1005 naming the field', async () => {
    for (const [productId, quantity, field] of [
      ['no-such-card', 1, 'productId'],
      ['', 1, 'productId'],
      ['sz-a100-10h', 0, 'quantity'],
      ['sz-a100-10h', 101, 'quantity'],
      ['sz-a100-10h', 1.5, 'quantity'],
    ] as const) {
      const { message } = await pre(owner, productId, quantity as number);
      expect(message.code, `${productId} ${quantity}`).toBe(1005);
      expect(message.message).toContain(field);
    }
  });

  it('hides another user\'s orders and records: 1205 for every call on them, absent from their pages', async () => {
    const mine = (await pre(owner)).data;
    const missing = { message: { code: 1205, message: '订单不存在' }, data: null };
    expect(await detail(other, mine.id)).toEqual(missing);
    expect(await send('POST', `/orders/${mine.id}/cancel`, other.token)).toEqual(missing);
    expect(await send('POST', `/orders/${mine.id}/pay`, other.token, { channel: 'offline' })).toEqual(missing);
    expect((await page(other)).data.list.map((o: any) => o.id)).not.toContain(mine.id);
    expect((await page(owner)).data.list.map((o: any) => o.id)).toContain(mine.id);
    // Everyone's list is the operators'.
    expect((await page(other, { scope: 'all' })).message.code).toBe(1020);
    expect((await page(op, { scope: 'all', keyword: mine.orderNo })).data.list.map((o: any) => o.id)).toEqual([mine.id]);
    expect((await detail(op, mine.id)).data.id).toBe(mine.id);
  });

  it('cancels an UNPAID order once; a cancelled order cannot be paid', async () => {
    const o = (await pre(owner)).data;
    const res = await send('POST', `/orders/${o.id}/cancel`, owner.token);
    expect(res.data).toMatchObject({ id: o.id, status: 'CANCELLED' });
    expect((await send('POST', `/orders/${o.id}/cancel`, owner.token)).message).toEqual({ code: 2504, message: '订单已取消' });
    expect((await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'offline' })).message.code).toBe(2504);
    expect((await page(owner, { status: 'CANCELLED' })).data.list.map((x: any) => x.id)).toContain(o.id);
  });

  it('closes an UNPAID order 30 minutes after it was placed', async () => {
    const o = (await pre(owner)).data;
    t.clock.advance(30 * MIN - 1);
    try {
      const u = await refresh(owner);
      expect((await detail(u, o.id)).data.status).toBe('UNPAID');
      t.clock.advance(1);
      expect((await detail(u, o.id)).data.status).toBe('CLOSED');
      const closed = (await page(u, { status: 'CLOSED' })).data.list.map((x: any) => x.id);
      expect(closed).toContain(o.id);
      expect((await page(u, { status: 'UNPAID' })).data.list.map((x: any) => x.id)).not.toContain(o.id);
      expect((await send('POST', `/orders/${o.id}/pay`, u.token, { channel: 'offline' })).message).toEqual({ code: 2503, message: '订单已超时关闭，请重新下单' });
      expect((await send('POST', `/orders/${o.id}/cancel`, u.token)).message.code).toBe(2503);
    } finally {
      t.clock.advance(-(30 * MIN));
    }
  });

  it('offline payment: the answer carries the account, the amount and the orderNo as remark, and holds the order 24 h', async () => {
    const o = (await pre(owner, 'sz-cpu-100h', 2)).data;
    const res = await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'offline' });
    expect(res.message.code).toBe(0);
    expect(res.data.channel).toBe('offline');
    expect(res.data.order).toMatchObject({ id: o.id, status: 'UNPAID', payChannel: 'offline', expireTime: t.clock.now + DAY_MS });
    expect(res.data.transfer).toMatchObject({ accountName: '示例算力科技有限公司', amount: '40.00', remark: o.orderNo });
    expect(res.data.transfer.note).toContain('订单号');
    expect(res.data.cashierUrl).toBeUndefined();
    // Alipay is not configured here: refused with the reason, the order unchanged.
    const alipay = await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'alipay' });
    expect(alipay.message.code).toBe(2505);
    expect(alipay.message.message).toContain('支付宝');
    expect((await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'wechat' })).message.message).toContain('channel');
  });

  it('only operators confirm (1020); a missing order is 1205', async () => {
    const o = (await pre(owner)).data;
    expect(await confirm(owner, o.id)).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
    expect((await confirm(other, o.id)).message.code).toBe(1020);
    expect((await confirm(op, 'no-such-order')).message.code).toBe(1205);
    expect((await detail(owner, o.id)).data.status).toBe('UNPAID');
  });

  it('credits exactly once: concurrent confirms make one bucket, one charge record, one message; the balance rises once', async () => {
    const buyer = await user('buyer');
    const o = (await pre(buyer, 'gz-910b-10h', 2)).data;
    await send('POST', `/orders/${o.id}/pay`, buyer.token, { channel: 'offline' });
    const events: [string, WsEvent][] = [];
    const off = t.app.ctx.bus.subscribe((uid, e) => {
      if (e.businessType === 'comp-power.changed') events.push([uid, e]);
    });
    try {
      expect((await balance(buyer)).total).toBe('0.00');
      const answers = await Promise.all([confirm(op, o.id), confirm(op, o.id), confirm(op, o.id), confirm(op, o.id)]);
      const codes = answers.map((a) => a.message.code).sort();
      expect(codes).toEqual([0, 2502, 2502, 2502]);
      const won = answers.find((a) => a.message.code === 0)!;
      expect(won.data).toMatchObject({ id: o.id, status: 'PAID', payChannel: 'offline', payTime: t.clock.now });
      expect(answers.filter((a) => a.message.code === 2502).every((a) => a.message.message === '订单已支付' && a.data === null)).toBe(true);
      expect(await countRows('charge_records', buyer.id)).toBe(1);
      expect(await countRows('comp_power_buckets', buyer.id)).toBe(1);

      // The balance shows the new bucket: 20 卡时 of 910B from the order, usable 30 days.
      const b = await balance(buyer);
      expect(b.total).toBe('20.00');
      expect(b.items).toEqual([
        expect.objectContaining({ subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', granted: '20.00', remaining: '20.00', source: 'order', expireTime: t.clock.now + 30 * DAY_MS }),
      ]);

      // The detail links the charge record, which links the bucket.
      const d = (await detail(buyer, o.id)).data;
      expect(d).toMatchObject({ status: 'PAID', payTime: t.clock.now });
      const charge = await send('GET', `/records/charge/${d.chargeRecordId}`, buyer.token);
      expect(charge.data).toEqual({
        id: d.chargeRecordId,
        orderId: o.id,
        orderNo: o.orderNo,
        amount: '196.00',
        cardHours: '20.00',
        compPowerId: b.items[0].id,
        subCenterId: 'gz-ascend',
        subCenterName: '广州算力分中心',
        cardTypeId: 'ascend-910b',
        cardTypeName: '昇腾 910B',
        payChannel: 'offline',
        createTime: t.clock.now,
      });
      expect((await records(buyer)).data).toMatchObject({ total: 1, list: [charge.data] });
      expect((await records(buyer, { subCenterId: 'sz-a100' })).data.total).toBe(0);
      expect((await records(buyer, { startTime: t.clock.now + 1 })).data.total).toBe(0);

      // One message to the owner, one balance push to the owner.
      const told = await messages(buyer);
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({ type: 'order', title: '订单支付成功', businessType: 'order', businessId: o.id });
      expect(told[0].content).toContain(`订单「${o.orderNo}」已支付，算力已到账`);
      expect(events).toEqual([[buyer.id, { businessType: 'comp-power.changed', data: {} }]]);

      // Later confirms, and a cancel of the paid order, change nothing.
      expect((await confirm(op, o.id)).message.code).toBe(2502);
      expect((await send('POST', `/orders/${o.id}/cancel`, buyer.token)).message).toEqual({ code: 2502, message: '订单已支付' });
      expect(await countRows('charge_records', buyer.id)).toBe(1);
      expect((await balance(buyer)).total).toBe('20.00');

      // Nobody else sees the charge record.
      expect((await send('GET', `/records/charge/${d.chargeRecordId}`, other.token)).message).toEqual({ code: 1205, message: '充值记录不存在' });
      expect((await records(other)).data.list.map((r: any) => r.id)).not.toContain(d.chargeRecordId);
    } finally {
      off();
    }
  });

  it('an operator may still confirm an order whose window closed (the money arrived): credited once', async () => {
    const buyer = await user('late');
    const o = (await pre(buyer, 'sz-cpu-100h', 1)).data;
    t.clock.advance(31 * MIN);
    try {
      const [u, o2] = [await refresh(buyer), await refresh(op)];
      expect((await detail(u, o.id)).data.status).toBe('CLOSED');
      expect((await confirm(o2, o.id)).data).toMatchObject({ status: 'PAID', payChannel: 'offline' });
      expect((await balance(u)).total).toBe('100.00');
    } finally {
      t.clock.advance(-31 * MIN);
    }
  });

  it('consume records of a user who ran no task: an empty page, 1205 for an unknown id; an unknown type is 1005', async () => {
    expect((await records(owner, { type: 'consume' })).data).toEqual({ list: [], total: 0, pageNum: 1, pageSize: 100 });
    expect((await send('GET', '/records/consume/anything', owner.token)).message).toEqual({ code: 1205, message: '消费记录不存在' });
    expect((await records(owner, { type: 'refund' })).message.message).toContain('type');
  });

  it('documents every call in the OpenAPI page under the order tag with a Chinese summary', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/gateway/docs/json' })).body);
    const ops = Object.entries(doc.paths as Record<string, Record<string, { tags: string[]; summary: string }>>)
      .filter(([path]) => path.startsWith(ORDER_BASE))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path.slice(ORDER_BASE.length)}`, ...op })));
    expect(ops.map((o) => o.route)).toEqual(
      expect.arrayContaining([
        'GET /sub-center-card/{subCenterId}/card-type',
        'POST /orders/pre',
        'POST /orders/action/page',
        'GET /orders/{id}',
        'POST /orders/{id}/cancel',
        'POST /orders/{id}/pay',
        'POST /orders/{id}/confirm',
        'POST /records/action/page',
        'GET /records/charge/{id}',
        'GET /records/consume/{id}',
        'POST /records/consume/action/stats',
        'POST /comp-powers/grant',
      ]),
    );
    for (const o of ops) {
      expect(o.tags, o.route).toEqual(['order']);
      expect(o.summary, o.route).toMatch(/\p{Script=Han}/u);
    }
  });

  it('refuses every call without a token (10133)', async () => {
    const o = (await pre(owner)).data;
    for (const [method, path, payload] of [
      ['GET', '/sub-center-card/sz-a100/card-type', undefined],
      ['POST', '/orders/pre', { productId: 'sz-a100-10h', quantity: 1 }],
      ['POST', '/orders/action/page', { pageNum: 1, pageSize: 10 }],
      ['GET', `/orders/${o.id}`, undefined],
      ['POST', `/orders/${o.id}/cancel`, undefined],
      ['POST', `/orders/${o.id}/pay`, { channel: 'offline' }],
      ['POST', `/orders/${o.id}/confirm`, undefined],
      ['POST', '/records/action/page', { type: 'charge', pageNum: 1, pageSize: 10 }],
      ['GET', '/records/charge/x', undefined],
      ['GET', '/records/consume/x', undefined],
      ['POST', '/records/consume/action/stats', {}],
      ['POST', '/comp-powers/grant', { username: 'x', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardHours: 1, validDays: 1, reason: '测试' }],
    ] as const) {
      expect((await send(method, path, null, payload)).message.code, `${method} ${path}`).toBe(10133);
    }
    expect((await detail(owner, o.id)).data.status).toBe('UNPAID');
  });
});

/** Alipay, played by the test: one RSA-2048 pair is the application's, the other Alipay's. */
describe.each(engines)('order api with Alipay (%s)', (engine) => {
  const appKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipayKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const APP_ID = '2021000000000001';
  // Reads of an unpaid Alipay order ask the gateway about it (reconciliation): a local one that knows no trade.
  const gateway = new FakeAlipayGateway(appKeys.publicKey, alipayKeys.privateKey);
  let GATEWAY = '';
  let t: TestApp;
  let owner: User;
  let op: User;

  beforeAll(async () => {
    await gateway.up();
    GATEWAY = gateway.url;
    t = await createTestApp(engine, {
      metering: {},
      alipay: {
        appId: APP_ID,
        privateKey: appKeys.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
        alipayPublicKey: alipayKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string,
        gateway: GATEWAY,
        notifyUrl: `http://127.0.0.1${ORDER_BASE}/pay/alipay/notify`,
        returnUrl: 'http://127.0.0.1/console/order',
        sellerId: '2088000000000002',
      },
    });
    const mk = async (tag: string) => {
      const username = `ap_${tag}_${randomBytes(3).toString('hex')}`;
      const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
      return { id: created!.id, username, token: (await t.app.ctx.sessions.create(created!.id)).token };
    };
    [owner, op] = [await mk('owner'), await mk('op')];
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(async () => {
    await t.close();
    await gateway.down();
  });

  const send = async (method: 'GET' | 'POST', path: string, token: string | null, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${ORDER_BASE}${path}`, headers: token ? { token } : {}, payload: payload as object }));
  const count = async (table: 'charge_records' | 'comp_power_buckets') =>
    Number((await t.app.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', owner.id).executeTakeFirstOrThrow()).n);

  /** Alipay's notify signature: every parameter but sign and sign_type, sorted, `k=v` joined by `&`, SHA256withRSA. */
  const signed = (params: Record<string, string>, key = alipayKeys.privateKey) => {
    const content = Object.keys(params)
      .filter((k) => k !== 'sign' && k !== 'sign_type')
      .sort()
      .map((k) => `${k}=${params[k]}`)
      .join('&');
    return { ...params, sign_type: 'RSA2', sign: createSign('RSA-SHA256').update(content, 'utf8').sign(key, 'base64') };
  };
  const notifyOf = (o: { orderNo: string; amount: string }, over: Record<string, string> = {}) => ({
    notify_time: '2026-11-27 10:00:00',
    notify_type: 'trade_status_sync',
    notify_id: randomBytes(8).toString('hex'),
    charset: 'utf-8',
    version: '1.0',
    app_id: APP_ID,
    seller_id: '2088000000000002',
    trade_no: `2026112722001${randomBytes(4).toString('hex')}`,
    out_trade_no: o.orderNo,
    total_amount: o.amount,
    trade_status: 'TRADE_SUCCESS',
    subject: 'A100 体验卡 10 卡时 × 1',
    gmt_payment: '2026-11-27 10:00:00',
    ...over,
  });
  const notify = async (form: Record<string, string>) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${ORDER_BASE}/pay/alipay/notify`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.body;
  };
  const placed = async (productId = 'sz-a100-10h', quantity = 1) => (await send('POST', '/orders/pre', owner.token, { productId, quantity })).data;

  it('pay with Alipay answers the cashier URL, signed with the application key, for the order\'s amount and number', async () => {
    const o = await placed('sz-a100-100h', 2);
    const res = await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'alipay' });
    expect(res.message.code).toBe(0);
    expect(res.data.order).toMatchObject({ id: o.id, status: 'UNPAID', payChannel: 'alipay', expireTime: o.expireTime });
    const url = new URL(res.data.cashierUrl);
    expect(`${url.origin}${url.pathname}`).toBe(GATEWAY);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ method: 'alipay.trade.page.pay', app_id: APP_ID, sign_type: 'RSA2', notify_url: `http://127.0.0.1${ORDER_BASE}/pay/alipay/notify` });
    const biz = JSON.parse(q.biz_content);
    expect(biz).toMatchObject({ out_trade_no: o.orderNo, total_amount: '2360.00', product_code: 'FAST_INSTANT_TRADE_PAY' });
    // Alipay checks the request with the application's public key over the sorted parameters but sign.
    const content = Object.keys(q)
      .filter((k) => k !== 'sign')
      .sort()
      .map((k) => `${k}=${q[k]}`)
      .join('&');
    expect(createVerify('RSA-SHA256').update(content, 'utf8').verify(appKeys.publicKey, q.sign, 'base64')).toBe(true);
  });

  it('a verified notify credits once, even sent twice concurrently together with an operator confirm', async () => {
    const o = await placed('sz-a100-10h', 1);
    await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'alipay' });
    const form = signed(notifyOf(o));
    const [a, b, c] = await Promise.all([notify(form), notify(form), send('POST', `/orders/${o.id}/confirm`, op.token)]);
    expect([a, b]).toEqual(['success', 'success']);
    expect([0, 2502]).toContain(c.message.code);
    expect(await count('charge_records')).toBe(1);
    expect(await count('comp_power_buckets')).toBe(1);
    const d = (await send('GET', `/orders/${o.id}`, owner.token)).data;
    expect(d.status).toBe('PAID');
    expect((await send('GET', `/comp-powers/${owner.id}`, owner.token)).data.total).toBe('10.00');
    // Alipay repeats a notify until it reads success: the repeat changes nothing.
    expect(await notify(form)).toBe('success');
    expect(await count('charge_records')).toBe(1);
    const told = body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: owner.token }, payload: { pageNum: 1, pageSize: 100, type: 'order' } })).data.list;
    expect(told.filter((m: any) => m.businessId === o.id)).toHaveLength(1);
  });

  it('refuses a tampered amount, a bad signature, another app or seller, an unknown order: failure and nothing changes', async () => {
    const before = [await count('charge_records'), await count('comp_power_buckets')];
    const o = await placed('sz-a100-10h', 3);
    await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'alipay' });
    const tampered = { ...signed(notifyOf(o)), total_amount: '0.01' };
    expect(await notify(tampered)).toBe('failure');
    // Even correctly signed, an amount that is not the order's is refused.
    expect(await notify(signed(notifyOf(o, { total_amount: '384.01' })))).toBe('failure');
    expect(await notify(signed(notifyOf(o, { total_amount: '384' })))).toBe('failure');
    expect(await notify(signed(notifyOf(o), stranger.privateKey))).toBe('failure');
    expect(await notify({ ...notifyOf(o), sign_type: 'RSA2', sign: 'AAAA' })).toBe('failure');
    expect(await notify(notifyOf(o))).toBe('failure');
    expect(await notify(signed(notifyOf(o, { app_id: '2021000000000999' })))).toBe('failure');
    expect(await notify(signed(notifyOf(o, { seller_id: '2088000000000999' })))).toBe('failure');
    expect(await notify(signed(notifyOf({ orderNo: 'DD200001010001', amount: o.amount })))).toBe('failure');
    // A trade not paid yet is acknowledged and credits nothing.
    expect(await notify(signed(notifyOf(o, { trade_status: 'WAIT_BUYER_PAY' })))).toBe('success');
    expect((await send('GET', `/orders/${o.id}`, owner.token)).data.status).toBe('UNPAID');
    expect([await count('charge_records'), await count('comp_power_buckets')]).toEqual(before);
    // The genuine notify still credits.
    expect(await notify(signed(notifyOf(o)))).toBe('success');
    expect((await send('GET', `/orders/${o.id}`, owner.token)).data).toMatchObject({ status: 'PAID', payChannel: 'alipay' });
  });
});
