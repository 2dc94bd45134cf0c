import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BASE } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

interface User {
  id: string;
  username: string;
  token: string;
}

/** 2026-03-01 23:59 and 2026-03-02 00:01 in China Standard Time (UTC+8): two calendar days two minutes apart. */
const LATE_MAR_1 = Date.UTC(2026, 2, 1, 15, 59);
const EARLY_MAR_2 = Date.UTC(2026, 2, 1, 16, 1);
const MAR_4 = Date.UTC(2026, 2, 4, 2, 0);

/**
 * 费用中心's charge side (issue 19): charge records filtered by center, card type and time, their totals per
 * calendar day for the chart, and the buyer operators see on orders (a name and how to reach them — never
 * only an internal id).
 */
describe.each(engines)('charge records and buyers (%s)', (engine) => {
  let t: TestApp;
  let buyer: User;
  let other: User;
  let op: User;

  const session = async (u: User) => ({ ...u, token: (await t.app.ctx.sessions.create(u.id)).token });
  const send = async (method: 'GET' | 'POST', path: string, u: User | null, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${ORDER_BASE}${path}`, headers: u ? { token: u.token } : {}, payload: payload as object }));
  /** An order of `productId` placed and confirmed at `at` (the charge record's time). */
  const boughtAt = async (at: number, productId: string, quantity = 1) => {
    t.clock.now = at;
    [buyer, op] = [await session(buyer), await session(op)];
    const o = (await send('POST', '/orders/pre', buyer, { productId, quantity })).data;
    expect((await send('POST', `/orders/${o.id}/confirm`, op)).message.code).toBe(0);
    return o;
  };
  const records = async (q: object = {}) => (await send('POST', '/records/action/page', buyer, { type: 'charge', pageNum: 1, pageSize: 100, ...q })).data;
  const days = async (q: object = {}) => send('POST', '/records/action/daily', buyer, { type: 'charge', ...q });

  beforeAll(async () => {
    t = await createTestApp(engine);
    const mk = async (tag: string, contact: { phone?: string; email?: string } = {}) => {
      const username = `rec_${tag}_${randomBytes(3).toString('hex')}`;
      const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: `昵称${tag}`, ...contact });
      return { id: created!.id, username, token: '' };
    };
    buyer = await mk('buyer', { phone: '13800138000', email: 'buyer@example.com' });
    other = await mk('other');
    op = await mk('op');
    await t.app.ctx.access.grant(op.id, 'operator');
    await boughtAt(LATE_MAR_1, 'sz-a100-10h', 1);
    await boughtAt(EARLY_MAR_2, 'sz-a100-10h', 2);
    await boughtAt(EARLY_MAR_2 + 60_000, 'sz-cpu-100h', 1);
    await boughtAt(MAR_4, 'gz-910b-10h', 1);
    other = await session(other);
  });
  afterAll(() => t.close());

  it('filters charge records by center, card type and a time range (from inclusive, to exclusive)', async () => {
    expect((await records()).list.map((r: any) => r.cardTypeId)).toEqual(['ascend-910b', 'cpu-std', 'a100-80g', 'a100-80g']);
    expect((await records({ subCenterId: 'sz-a100' })).total).toBe(3);
    expect((await records({ subCenterId: 'sz-a100', cardTypeId: 'a100-80g' })).list.map((r: any) => r.cardHours)).toEqual(['20.00', '10.00']);
    expect((await records({ cardTypeId: 'ascend-910b' })).list.map((r: any) => [r.subCenterName, r.cardTypeName, r.amount])).toEqual([['广州算力分中心', '昇腾 910B', '98.00']]);
    expect((await records({ startTime: EARLY_MAR_2, endTime: MAR_4 })).list.map((r: any) => r.createTime)).toEqual([EARLY_MAR_2 + 60_000, EARLY_MAR_2]);
    expect((await records({ startTime: LATE_MAR_1, endTime: LATE_MAR_1 })).total).toBe(0);
    // Another user has none of them.
    expect((await send('POST', '/records/action/page', other, { type: 'charge', pageNum: 1, pageSize: 100 })).data.total).toBe(0);
  });

  it('answers the charges per calendar day in UTC+8: 23:59 and 00:01 are two days; days without charges are absent', async () => {
    const res = await days();
    expect(res.message.code).toBe(0);
    expect(res.data).toEqual([
      { day: '2026-03-01', count: 1, cardHours: '10.00', amount: '128.00' },
      { day: '2026-03-02', count: 2, cardHours: '120.00', amount: '276.00' },
      { day: '2026-03-04', count: 1, cardHours: '10.00', amount: '98.00' },
    ]);
    expect((await days({ subCenterId: 'sz-a100', cardTypeId: 'a100-80g', startTime: EARLY_MAR_2 })).data).toEqual([{ day: '2026-03-02', count: 1, cardHours: '20.00', amount: '256.00' }]);
    expect((await send('POST', '/records/action/daily', other, { type: 'charge' })).data).toEqual([]);
    // Consume records come with metering (the metering engine's side): none yet.
    expect((await days({ type: 'consume' })).data).toEqual([]);
  });

  it('refuses a bad filter with 1005 naming the field, and a call without a token with 10133', async () => {
    for (const [q, field] of [
      [{ type: 'refund' }, 'type'],
      [{ startTime: 'yesterday' }, 'startTime'],
      [{ cardTypeId: 'x'.repeat(65) }, 'cardTypeId'],
    ] as const) {
      const { message } = await days(q);
      expect(message.code, JSON.stringify(q)).toBe(1005);
      expect(message.message).toContain(field);
    }
    expect((await send('POST', '/records/action/daily', null, { type: 'charge' })).message.code).toBe(10133);
  });

  it('operators see who bought an order — login name, nickname, phone, e-mail — on 全部订单, the detail and the confirm', async () => {
    const page = (await send('POST', '/orders/action/page', op, { scope: 'all', pageNum: 1, pageSize: 100 })).data;
    const row = page.list.find((o: any) => o.ownerId === buyer.id);
    expect(row.buyer).toEqual({ username: buyer.username, nickname: '昵称buyer', phone: '13800138000', email: 'buyer@example.com' });
    const o = (await send('POST', '/orders/pre', buyer, { productId: 'sz-a100-10h', quantity: 1 })).data;
    expect((await send('GET', `/orders/${o.id}`, op)).data.buyer).toMatchObject({ username: buyer.username });
    expect((await send('POST', `/orders/${o.id}/confirm`, op)).data.buyer).toMatchObject({ username: buyer.username, phone: '13800138000' });
    // Not on one's own orders, nor in one's own list.
    expect((await send('GET', `/orders/${o.id}`, buyer)).data.buyer).toBeUndefined();
    expect((await send('POST', '/orders/action/page', buyer, { pageNum: 1, pageSize: 100 })).data.list.every((x: any) => x.buyer === undefined)).toBe(true);
    // A buyer without contact details: nulls, the name still there.
    const theirs = (await send('POST', '/orders/pre', other, { productId: 'gz-dcu-10h', quantity: 1 })).data;
    expect((await send('GET', `/orders/${theirs.id}`, op)).data.buyer).toEqual({ username: other.username, nickname: '昵称other', phone: null, email: null });
  });
});
