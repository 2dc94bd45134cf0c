import { createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_BASE, ORDER_BASE } from '@suanli/contracts';
import { LeaseRepository } from '../../db/lease.repository';
import { FakeAlipayGateway } from '../../../test/alipay-gateway';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { AlipayReconciler, RECONCILE_MIN_GAP_MS } from './alipay-reconciler';

interface User {
  id: string;
  token: string;
}

const APP_ID = '2021000000000001';
const SELLER = '2088000000000002';
/** Past the per-order gap between two queries. */
const NEXT_ROUND = RECONCILE_MIN_GAP_MS + 1000;

/**
 * Alipay's trade query settles an order whose notify never came (ADR 0012, "Reconciliation"), against a
 * local HTTP server answering as Alipay's gateway does, its replies signed with a key made here and verified
 * by the real alipay-sdk inside the gateway under test.
 */
describe.each(engines)('alipay reconciliation (%s)', (engine) => {
  const appKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipayKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipay = new FakeAlipayGateway(appKeys.publicKey, alipayKeys.privateKey);
  let t: TestApp;
  let owner: User;
  let op: User;

  beforeAll(async () => {
    await alipay.up();
    t = await createTestApp(engine, {
      alipay: {
        appId: APP_ID,
        privateKey: appKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        alipayPublicKey: alipayKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string,
        gateway: alipay.url,
        notifyUrl: `http://127.0.0.1${ORDER_BASE}/pay/alipay/notify`,
        returnUrl: 'http://127.0.0.1/console/order',
        sellerId: SELLER,
      },
    });
    const mk = async (tag: string) => {
      const created = await t.app.users.createAccount({ username: `rc_${tag}_${randomBytes(3).toString('hex')}`, password: 'Passw0rd-test', nickname: tag });
      return { id: created!.id, token: (await t.app.ctx.sessions.create(created!.id)).token };
    };
    [owner, op] = [await mk('owner'), await mk('op')];
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(async () => {
    await t?.close();
    await alipay.down();
  });

  const send = async (method: 'GET' | 'POST', path: string, token: string, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${ORDER_BASE}${path}`, headers: { token }, payload: payload as object }));
  const count = async (table: 'charge_records' | 'comp_power_buckets') =>
    Number((await t.app.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', owner.id).executeTakeFirstOrThrow()).n);
  const stored = async (id: string) => t.app.ctx.db.selectFrom('orders').select(['status', 'pay_channel', 'trade_no']).where('id', '=', id).executeTakeFirstOrThrow();
  /** An order the owner chose to pay with Alipay (its notify will never come). */
  const alipayOrder = async (productId = 'sz-a100-10h', quantity = 1) => {
    const o = (await send('POST', '/orders/pre', owner.token, { productId, quantity })).data;
    expect((await send('POST', `/orders/${o.id}/pay`, owner.token, { channel: 'alipay' })).message.code).toBe(0);
    return o as { id: string; orderNo: string; amount: string };
  };
  const paidAt = (o: { orderNo: string; amount: string }, over: Partial<{ totalAmount: string; outTradeNo: string; status: 'TRADE_SUCCESS' | 'TRADE_FINISHED' | 'WAIT_BUYER_PAY' }> = {}) => {
    const tradeNo = `2026${randomBytes(6).toString('hex')}`;
    alipay.trades.set(o.orderNo, { status: 'TRADE_SUCCESS', totalAmount: o.amount, tradeNo, ...over });
    return tradeNo;
  };
  const orderMessages = async (orderId: string) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: owner.token }, payload: { pageNum: 1, pageSize: 100, type: 'order' } })).data.list.filter(
      (m: any) => m.businessId === orderId,
    );
  /** Moves the clock past the per-order gap (sessions stay alive: they idle out after 30 min). */
  const later = () => t.clock.advance(NEXT_ROUND);

  it('tells the console Alipay is offered here (and the offline transfer)', async () => {
    expect((await send('GET', '/pay/channels', owner.token)).data).toEqual({ alipay: true, offline: true });
  });

  it('TRADE_SUCCESS: reading the order credits it once with Alipay\'s trade number; reading again asks no more', async () => {
    const before = [await count('charge_records'), await count('comp_power_buckets')];
    const o = await alipayOrder();
    const tradeNo = paidAt(o);
    const d = (await send('GET', `/orders/${o.id}`, owner.token)).data;
    expect(d).toMatchObject({ status: 'PAID', payChannel: 'alipay' });
    expect(d.chargeRecordId).toEqual(expect.any(String));
    expect(await stored(o.id)).toEqual({ status: 'PAID', pay_channel: 'alipay', trade_no: tradeNo });
    expect([await count('charge_records'), await count('comp_power_buckets')]).toEqual([before[0] + 1, before[1] + 1]);
    const asked = alipay.queries.filter((n) => n === o.orderNo).length;
    expect(asked).toBe(1);
    later();
    await send('GET', `/orders/${o.id}`, owner.token);
    await send('POST', '/orders/action/page', owner.token, { pageNum: 1, pageSize: 10 });
    expect(await t.app.orders.reconciler!.sweep()).toBe(0);
    expect(alipay.queries.filter((n) => n === o.orderNo)).toHaveLength(asked);
    expect(await orderMessages(o.id)).toHaveLength(1);
  });

  it('races a late notify and an operator confirm: one bucket, one record, one message', async () => {
    const before = [await count('charge_records'), await count('comp_power_buckets')];
    const o = await alipayOrder('sz-a100-100h', 1);
    const tradeNo = paidAt(o);
    const form = notifyForm(o, tradeNo);
    const [read, notified, confirmed, swept] = await Promise.all([
      send('GET', `/orders/${o.id}`, owner.token),
      t.app.inject({ method: 'POST', url: `${ORDER_BASE}/pay/alipay/notify`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() }),
      send('POST', `/orders/${o.id}/confirm`, op.token),
      t.app.orders.reconciler!.sweep(),
    ]);
    expect(read.message.code).toBe(0);
    expect(notified.body).toBe('success');
    expect([0, 2502]).toContain(confirmed.message.code);
    expect(swept).toBeLessThanOrEqual(1);
    expect([await count('charge_records'), await count('comp_power_buckets')]).toEqual([before[0] + 1, before[1] + 1]);
    expect((await stored(o.id)).status).toBe('PAID');
    expect(await orderMessages(o.id)).toHaveLength(1);
    expect((await send('GET', `/comp-powers/${owner.id}`, owner.token)).data.items.filter((b: any) => b.granted === '100.00')).toHaveLength(1);

    function notifyForm(order: { orderNo: string; amount: string }, trade: string) {
      const params: Record<string, string> = {
        notify_time: '2026-11-27 10:00:00',
        notify_type: 'trade_status_sync',
        notify_id: randomBytes(8).toString('hex'),
        charset: 'utf-8',
        version: '1.0',
        app_id: APP_ID,
        seller_id: SELLER,
        trade_no: trade,
        out_trade_no: order.orderNo,
        total_amount: order.amount,
        trade_status: 'TRADE_SUCCESS',
      };
      const content = Object.keys(params)
        .sort()
        .map((k) => `${k}=${params[k]}`)
        .join('&');
      return { ...params, sign_type: 'RSA2', sign: createSign('RSA-SHA256').update(content, 'utf8').sign(alipayKeys.privateKey, 'base64') };
    }
  });

  it('WAIT_BUYER_PAY and TRADE_NOT_EXIST change nothing, on read and in the sweep', async () => {
    const before = [await count('charge_records'), await count('comp_power_buckets')];
    const waiting = await alipayOrder();
    paidAt(waiting, { status: 'WAIT_BUYER_PAY' });
    const never = await alipayOrder();
    expect((await send('GET', `/orders/${waiting.id}`, owner.token)).data.status).toBe('UNPAID');
    expect((await send('GET', `/orders/${never.id}`, owner.token)).data.status).toBe('UNPAID');
    later();
    expect(await t.app.orders.reconciler!.sweep()).toBe(0);
    expect(alipay.queries).toEqual(expect.arrayContaining([waiting.orderNo, never.orderNo]));
    expect([(await stored(waiting.id)).status, (await stored(never.id)).status]).toEqual(['UNPAID', 'UNPAID']);
    expect([await count('charge_records'), await count('comp_power_buckets')]).toEqual(before);
    // Paid later: the next round settles it.
    paidAt(waiting);
    later();
    expect((await send('POST', '/orders/action/page', owner.token, { pageNum: 1, pageSize: 100 })).data.list.find((x: any) => x.id === waiting.id).status).toBe('PAID');
    alipay.trades.delete(waiting.orderNo);
  });

  it('a reply whose signature does not verify, or about another amount or order, changes nothing', async () => {
    const before = [await count('charge_records'), await count('comp_power_buckets')];
    const o = await alipayOrder('gz-910b-10h', 2);
    paidAt(o);
    alipay.signKey = stranger.privateKey;
    try {
      expect((await send('GET', `/orders/${o.id}`, owner.token)).data.status).toBe('UNPAID');
    } finally {
      alipay.signKey = alipayKeys.privateKey;
    }
    for (const over of [{ totalAmount: '0.01' }, { totalAmount: '196' }, { totalAmount: '196.01' }, { outTradeNo: 'DD200001010001' }]) {
      paidAt(o, over);
      later();
      expect(await t.app.orders.reconciler!.sweep()).toBe(0);
      expect((await stored(o.id)).status).toBe('UNPAID');
    }
    expect([await count('charge_records'), await count('comp_power_buckets')]).toEqual(before);
    expect(alipay.queries.filter((n) => n === o.orderNo).length).toBeGreaterThanOrEqual(5);
    // The genuine reply still settles it.
    paidAt(o);
    later();
    expect(await t.app.orders.reconciler!.sweep()).toBe(1);
    expect((await stored(o.id)).status).toBe('PAID');
  });

  it('gateway down: the read answers UNPAID at once, and a later round credits the order', async () => {
    const o = await alipayOrder();
    paidAt(o);
    await alipay.down();
    try {
      const started = Date.now();
      expect((await send('GET', `/orders/${o.id}`, owner.token)).data.status).toBe('UNPAID');
      expect(Date.now() - started).toBeLessThan(4000);
      later();
      expect(await t.app.orders.reconciler!.sweep()).toBe(0);
      expect((await stored(o.id)).status).toBe('UNPAID');
    } finally {
      await alipay.up();
    }
    later();
    expect(await t.app.orders.reconciler!.sweep()).toBe(1);
    expect(await stored(o.id)).toMatchObject({ status: 'PAID', pay_channel: 'alipay' });
  });

  it('the leader settles an order nobody reads, also after its window closed; another replica does not sweep', async () => {
    const o = await alipayOrder();
    paidAt(o);
    // Paid at the last minute, notify lost; the window then closes on the next read of anyone's orders.
    t.clock.advance(31 * 60_000);
    try {
      await t.app.ctx.db.updateTable('orders').set({ status: 'CLOSED' }).where('id', '=', o.id).execute();
      const other = new AlipayReconciler(
        {
          alipayOpen: async () => {
            throw new Error('a replica that does not hold the lease must not look for orders');
          },
        } as never,
        null as never,
        async () => false,
        new LeaseRepository(t.app.ctx.db),
        t.clock.fn,
        t.app.log,
        { holder: 'other-replica' },
      );
      const leader = t.app.orders.reconciler!;
      await leader.tick();
      expect(leader.isLeading()).toBe(true);
      await other.tick();
      expect(other.isLeading()).toBe(false);
      expect(await stored(o.id)).toMatchObject({ status: 'PAID', pay_channel: 'alipay' });
      await other.stop();
    } finally {
      t.clock.advance(-31 * 60_000);
    }
  });
});

describe.each(engines)('pay channels without Alipay (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('offers only the offline transfer; there is no reconciliation loop', async () => {
    const { token } = await t.app.ctx.sessions.create('u-pc-1');
    expect(body(await t.app.inject({ method: 'GET', url: `${ORDER_BASE}/pay/channels`, headers: { token } })).data).toEqual({ alipay: false, offline: true });
    expect(t.app.orders.reconciler).toBeUndefined();
  });
});
