import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ORDER_BASE, TRAINING_BASE, type AdminOverview, type Order } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit, sleep } from '../../../test/metering';

const DAY = 24 * 3600_000;
const CST = 8 * 3600_000;
/** A day (UTC+8) as the records API names it, `offset` days from today. */
const dayOf = (now: number, offset = 0) => new Date(now + CST + offset * DAY).toISOString().slice(0, 10);

/**
 * 运营管理 › 平台概览 (issue 20): the figures are what happened — accounts by state, the cards a running task
 * holds at its center, card-hours sold (paid orders only), granted and consumed on the day (UTC+8) they
 * happened. Operators only.
 */
describe.each(engines)('运营管理 › 平台概览 (%s)', (engine) => {
  let t: TestApp;
  let op: { id: string; token: string };
  const k = meteringKit(() => t);

  /** A real account (the overview counts rows of `users`), signed in, with `/work` on the A100 center. */
  const account = async (username: string) => {
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: username });
    return { ...(await k.user(created!.id)), username };
  };
  const overview = async (token: string | undefined, query = '') =>
    body<AdminOverview>(await t.app.inject({ method: 'GET', url: `${ADMIN_BASE}/overview${query}`, headers: token ? { token } : {} }));

  beforeAll(async () => {
    // A real clock (the running task is driven by the poller); no welcome grant, so grants are the test's own.
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 600_000 } });
    op = await account('ov_op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  it('refuses a normal user with 1020 (10133 without a token) before validation', async () => {
    const u = await account('ov_plain');
    for (const q of ['', '?days=7', '?days=abc']) {
      expect(await overview(u.token, q)).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
      expect((await overview(undefined, q)).message.code).toBe(10133);
    }
  });

  it('validates the range: 7 to 90 days, 30 by default, every day present, today last', async () => {
    const def = await overview(op.token);
    expect(def.message.code).toBe(0);
    expect(def.data.days).toHaveLength(30);
    expect(def.data.days.at(-1)!.day).toBe(dayOf(Date.now()));
    expect(def.data.days[0].day).toBe(dayOf(Date.now(), -29));
    expect((await overview(op.token, '?days=7')).data.days).toHaveLength(7);
    expect((await overview(op.token, '?days=90')).data.days).toHaveLength(90);
    for (const bad of ['6', '91', 'abc']) expect((await overview(op.token, `?days=${bad}`)).message.code, bad).toBe(1005);
  });

  it('counts what happened: users, a paid order, a grant, a running task\'s cards and its consumption on its day', async () => {
    const before = (await overview(op.token)).data;
    const buyer = await account('ov_buyer');
    const victim = await account('ov_victim');
    await account('ov_third');

    // A disabled account.
    const dis = body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/users/${victim.id}/disable`, headers: { token: op.token }, payload: { reason: '测试' } }));
    expect(dis.message.code, dis.message.message).toBe(0);

    // A paid order (transfer confirmed by the operator): 10 卡时 sold on the A100 center.
    const o = body<Order>(await t.app.inject({ method: 'POST', url: `${ORDER_BASE}/orders/pre`, headers: { token: buyer.token }, payload: { productId: 'sz-a100-10h', quantity: 1 } })).data;
    await k.call(buyer.token, 'POST', `${ORDER_BASE}/orders/${o.id}/pay`, { channel: 'offline' });
    // An unpaid order sells nothing.
    await k.call(buyer.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: 'sz-a100-100h', quantity: 1 });
    expect((await k.call(op.token, 'POST', `${ORDER_BASE}/orders/${o.id}/confirm`)).message.code).toBe(0);

    // A grant of 12 卡时 (granted, not sold).
    const g = await k.call(op.token, 'POST', `${ORDER_BASE}/comp-powers/grant`, { username: 'ov_third', subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', cardHours: 12, validDays: 7, reason: '比赛奖励' });
    expect(g.message.code, g.message.message).toBe(0);

    // A running task holding 2 cards per node on 2 nodes of the A100 center.
    const res = await k.submit(buyer.token, { type: 'distributed', cardNum: 2, nodeNum: 2, command: 'sleep 60' });
    expect(res.message.code, res.message.message).toBe(0);
    await k.until(buyer.token, res.data.id, ['RUNNING']);
    await sleep(1200);
    await t.app.metering.pass('sz-a100');
    const drawn = (await k.records(res.data.id)).reduce((s, r) => s + Number(r.card_seconds), 0);
    expect(drawn).toBeGreaterThanOrEqual(4);

    const now = (await overview(op.token, '?days=7')).data;
    expect(now.users).toEqual({
      total: before.users.total + 3,
      active: before.users.active + 2,
      disabled: before.users.disabled + 1,
      newLast7Days: before.users.newLast7Days + 3,
    });
    const sz = now.centers.find((c) => c.id === 'sz-a100')!;
    expect(sz).toMatchObject({ name: '深圳算力分中心', status: 'online', runningTasks: 1 });
    const a100 = sz.cardTypes.find((c) => c.id === 'a100-80g')!;
    expect(a100).toMatchObject({ name: 'NVIDIA A100 80G', accelerator: true, runningTasks: 1, cardsInUse: 4 });
    expect(a100.totalCards).toBeGreaterThanOrEqual(4);
    expect(sz.cardTypes.find((c) => c.id === 'cpu-std')).toMatchObject({ accelerator: false, runningTasks: 0, cardsInUse: 0 });
    const gz = now.centers.find((c) => c.id === 'gz-ascend')!;
    expect(gz.runningTasks).toBe(0);
    expect(gz.cardTypes.every((c) => c.cardsInUse === 0)).toBe(true);

    // Today: the order's 10 卡时 sold, the 12 卡时 granted, the task's draw consumed; nothing before today.
    expect(now.days.at(-1)).toEqual({ day: dayOf(Date.now()), soldCardSeconds: 10 * 3600, grantedCardSeconds: 12 * 3600, consumedCardSeconds: drawn });
    expect(now.days.slice(0, -1).every((d) => d.soldCardSeconds + d.grantedCardSeconds + d.consumedCardSeconds === 0)).toBe(true);

    // A grant written one millisecond before 00:00 (UTC+8) three days ago counts on the day before that.
    const midnight = Math.floor((Date.now() + CST) / DAY) * DAY - CST - 3 * DAY;
    await t.app.ctx.db.updateTable('charge_records').set({ create_time: midnight - 1 }).where('id', '=', g.data.id).execute();
    const moved = (await overview(op.token, '?days=7')).data.days;
    expect(moved.find((d) => d.day === dayOf(midnight, -1))!.grantedCardSeconds).toBe(12 * 3600);
    expect(moved.find((d) => d.day === dayOf(midnight))!.grantedCardSeconds).toBe(0);
    expect(moved.at(-1)!.grantedCardSeconds).toBe(0);
    // Beyond the range it is not counted at all.
    await t.app.ctx.db.updateTable('charge_records').set({ create_time: midnight - 5 * DAY }).where('id', '=', g.data.id).execute();
    expect((await overview(op.token, '?days=7')).data.days.reduce((s, d) => s + d.grantedCardSeconds, 0)).toBe(0);
    expect((await overview(op.token, '?days=30')).data.days.find((d) => d.day === dayOf(midnight - 5 * DAY))!.grantedCardSeconds).toBe(12 * 3600);

    // The task ends: its cards are free again.
    expect((await k.call(buyer.token, 'POST', `${TRAINING_BASE}/tasks/${res.data.id}/stop`)).message.code).toBe(0);
    await k.until(buyer.token, res.data.id, ['STOPPED']);
    const after = (await overview(op.token, '?days=7')).data.centers.find((c) => c.id === 'sz-a100')!;
    expect(after.runningTasks).toBe(0);
    expect(after.cardTypes.find((c) => c.id === 'a100-80g')!.cardsInUse).toBe(0);
  });
});
