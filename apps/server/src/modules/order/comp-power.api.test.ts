import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/id';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

const url = (userId: string) => `/gateway/order/api/v1/comp-powers/${encodeURIComponent(userId)}`;
const HOUR = 3600;
const DAY_MS = 24 * 3600_000;

describe.each(engines)('comp-powers api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  const userA = 'u-cp-a';
  const userB = 'u-cp-b';

  const bucket = (ownerId: string, b: { center: string; card: string; granted: number; remaining: number; expireIn: number; source?: string }) =>
    t.app.ctx.db
      .insertInto('comp_power_buckets')
      .values({
        id: newId(),
        owner_id: ownerId,
        sub_center_id: b.center,
        card_type_id: b.card,
        granted: b.granted,
        remaining: b.remaining,
        expire_time: t.clock.now + b.expireIn,
        source: b.source ?? 'order',
        create_time: t.clock.now,
      })
      .execute();

  beforeAll(async () => {
    t = await createTestApp(engine, { metering: {} });
    tokenA = (await t.app.ctx.sessions.create(userA)).token;
    // A: 10.25 卡时 A100 expiring in 30 days, 2.5 卡时 (+1 s, rounds down) 910B granted, expiring sooner,
    // plus an expired bucket and an exhausted one that must not count.
    await bucket(userA, { center: 'sz-a100', card: 'a100-80g', granted: 20 * HOUR, remaining: 10 * HOUR + 900, expireIn: 30 * DAY_MS });
    await bucket(userA, { center: 'gz-ascend', card: 'ascend-910b', granted: 5 * HOUR, remaining: 2.5 * HOUR + 1, expireIn: 7 * DAY_MS, source: 'grant' });
    await bucket(userA, { center: 'sz-a100', card: 'a100-80g', granted: 8 * HOUR, remaining: 8 * HOUR, expireIn: -1 });
    await bucket(userA, { center: 'gz-ascend', card: 'dcu-z100', granted: 3 * HOUR, remaining: 0, expireIn: 30 * DAY_MS });
    await bucket(userB, { center: 'sz-a100', card: 'cpu-std', granted: 99 * HOUR, remaining: 99 * HOUR, expireIn: 30 * DAY_MS });
  });
  afterAll(() => t.close());

  const get = (userId: string, token: string | null = tokenA) =>
    t.app.inject({ method: 'GET', url: url(userId), headers: token ? { token } : {} });

  it('answers the caller\'s usable buckets in 卡时, earliest expiry first, with center and card names', async () => {
    const res = body(await get(userA));
    expect(res.message).toEqual({ code: 0, message: '操作成功' });
    expect(res.data.userId).toBe(userA);
    // 10.25 + 2.5002… summed in card-seconds, then rounded down.
    expect(res.data.total).toBe('12.75');
    // 标准卡时: A100 × 1 (36,900 s) + 910B × 0.8 (9,001 s → 7,200.8 s) = 44,100.8 standard seconds, rounded down.
    expect(res.data.standardTotal).toBe('12.25');
    expect(res.data.items.map((i: any) => [i.cardTypeId, i.remaining, i.standardFactor, i.standardRemaining])).toEqual([
      ['ascend-910b', '2.50', 0.8, '2.00'],
      ['a100-80g', '10.25', 1, '10.25'],
    ]);
    expect(res.data.items[0]).toMatchObject({
      subCenterId: 'gz-ascend',
      subCenterName: '广州算力分中心',
      cardTypeId: 'ascend-910b',
      cardTypeName: '昇腾 910B',
      granted: '5.00',
      remaining: '2.50',
      expireTime: t.clock.now + 7 * DAY_MS,
      source: 'grant',
    });
    expect(res.data.items[1]).toMatchObject({
      subCenterName: '深圳算力分中心',
      cardTypeName: 'NVIDIA A100 80G',
      granted: '20.00',
      remaining: '10.25',
      source: 'order',
    });
    expect(typeof res.data.items[0].id).toBe('string');
  });

  it('drops a bucket once it expires', async () => {
    t.clock.advance(8 * DAY_MS);
    try {
      // A session started now: the long-lived one would have expired with the jump.
      const { token } = await t.app.ctx.sessions.create(userA);
      const { data } = body(await get(userA, token));
      expect(data.items.map((i: any) => i.cardTypeId)).toEqual(['a100-80g']);
      expect(data.total).toBe('10.25');
      expect(data.standardTotal).toBe('10.25');
    } finally {
      t.clock.advance(-8 * DAY_MS);
    }
  });

  it('answers zero and no items for a user without compute power', async () => {
    const { token } = await t.app.ctx.sessions.create('u-cp-new');
    expect(body(await get('u-cp-new', token))).toEqual({
      message: { code: 0, message: '操作成功' },
      data: { userId: 'u-cp-new', total: '0.00', standardTotal: '0.00', items: [], held: [] },
    });
  });

  it('normalises a CPU bucket by its factor: 99 卡时 × 0.02 = 1.98 标准卡时', async () => {
    const { token } = await t.app.ctx.sessions.create(userB);
    const { data } = body(await get(userB, token));
    expect([data.total, data.standardTotal, data.items[0].standardFactor, data.items[0].standardRemaining]).toEqual(['99.00', '1.98', 0.02, '1.98']);
  });

  it('refuses another user\'s id with 1020 and leaks nothing', async () => {
    const res = body(await get(userB));
    expect(res).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
  });

  it('answers 1005 naming the field for an invalid id', async () => {
    const { message } = body(await get('x'.repeat(65)));
    expect(message.code).toBe(1005);
    expect(message.message).toContain('userId');
  });

  it('refuses missing (10133), expired (10157) and revoked (10307) sessions', async () => {
    expect(body(await get(userA, null)).message.code).toBe(10133);
    expect(body(await get(userA, 'forged')).message.code).toBe(10133);
    const idle = await t.app.ctx.sessions.create(userA);
    t.clock.advance(31 * 60_000);
    try {
      expect(body(await get(userA, idle.token)).message.code).toBe(10157);
    } finally {
      t.clock.advance(-31 * 60_000);
    }
    const revoked = await t.app.ctx.sessions.create(userA);
    await t.app.ctx.sessions.revoke(revoked.sessionId, 'logout');
    expect(body(await get(userA, revoked.token)).message.code).toBe(10307);
  });
});
