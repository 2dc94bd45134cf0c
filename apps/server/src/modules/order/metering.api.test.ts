import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BASE, formatCardHours } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit, sleep } from '../../../test/metering';

const DAY = 24 * 3600_000;

/**
 * Metering (ADR 0015) on the local executor, on both engines. The app runs on the real clock (the
 * scheduler's start and end are real) with a period long enough that no background pass interferes: each
 * pass here is called directly, as the poller's hook would.
 */
describe.each(engines)('metering (%s)', (engine) => {
  let t: TestApp;
  const k = meteringKit(() => t);

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 600_000 } });
  });
  afterAll(() => t.close());

  it('a task\'s draws add up to cards × nodes × its accounted runtime in whole seconds, shown as 已消耗 and in 消费记录', async () => {
    const u = await k.user('u-meter-sum');
    const other = await k.user('u-meter-other');
    const bucket = await k.bucket(u.id, 100 * 3600, 30 * DAY);
    const events: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => {
      if (userId === u.id) events.push(e.businessType);
    });
    // 2 cards per node × 2 nodes.
    const res = await k.submit(u.token, { type: 'distributed', cardNum: 2, nodeNum: 2, command: 'sleep 3' });
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id as string;
    await k.until(u.token, id, ['RUNNING']);
    // Interim draws while it runs: each meters up to now.
    await sleep(1200);
    await t.app.metering.pass('sz-a100');
    const interim = await k.meter(id);
    expect(Number(interim!.metered)).toBeGreaterThanOrEqual(1);
    expect(Number(interim!.drawn)).toBe(4 * Number(interim!.metered));
    expect((await k.detail(u.token, id)).consumed).toBe(formatCardHours(Number(interim!.drawn)));
    expect(events).toContain('comp-power.changed');
    await t.app.metering.pass('sz-a100');
    const d = await k.until(u.token, id, ['SUCCEEDED']);
    await t.app.metering.pass('sz-a100');
    const total = k.expected(d, 4);
    expect(total).toBeGreaterThanOrEqual(4 * 3);
    const meter = await k.meter(id);
    expect({ drawn: Number(meter!.drawn), shortfall: Number(meter!.shortfall), settled: Number(meter!.settled) }).toEqual({ drawn: total, shortfall: 0, settled: 1 });
    const records = await k.records(id);
    expect(records.reduce((s, r) => s + Number(r.card_seconds), 0)).toBe(total);
    expect(await k.remaining(bucket)).toBe(100 * 3600 - total);
    // Retried passes after the end change nothing.
    await Promise.all([t.app.metering.pass(), t.app.metering.pass()]);
    expect(Number((await k.meter(id))!.drawn)).toBe(total);
    expect(await k.remaining(bucket)).toBe(100 * 3600 - total);
    expect((await k.detail(u.token, id)).consumed).toBe(formatCardHours(total));

    // 消费记录: the record, its detail, the filters; another user sees nothing of it.
    const page = (await k.records$(u.token, { taskId: id })).data;
    expect(page.total).toBe(records.length);
    const [rec] = page.list;
    expect(rec).toMatchObject({
      taskId: id,
      taskKind: 'training',
      taskName: '计量任务',
      subCenterId: 'sz-a100',
      subCenterName: '深圳算力分中心',
      cardTypeId: 'a100-80g',
      cardTypeName: 'NVIDIA A100 80G',
      cardNum: 2,
      nodeNum: 2,
      billedCards: 4,
      compPowerId: bucket,
      cardSeconds: total,
      cardHours: formatCardHours(total),
    });
    expect(rec.startTime).toBe(d.startTime);
    expect(rec.endTime).toBe(d.startTime! + (total / 4) * 1000);
    expect((await k.call(u.token, 'GET', `${ORDER_BASE}/records/consume/${rec.id}`)).data).toEqual(rec);
    expect((await k.call(other.token, 'GET', `${ORDER_BASE}/records/consume/${rec.id}`)).message).toEqual({ code: 1205, message: '消费记录不存在' });
    expect((await k.records$(other.token, {})).data.total).toBe(0);
    expect((await k.records$(u.token, { subCenterId: 'gz-ascend' })).data.total).toBe(0);
    expect((await k.records$(u.token, { cardTypeId: 'cpu-std' })).data.total).toBe(0);
    expect((await k.records$(u.token, { cardTypeId: 'a100-80g', startTime: d.startTime!, endTime: d.startTime! + 1 })).data.total).toBe(records.length);
    expect((await k.records$(u.token, { startTime: d.startTime! + 1 })).data.total).toBe(0);
    const stats = (await k.call(u.token, 'POST', `${ORDER_BASE}/records/consume/action/stats`, {})).data;
    expect(stats).toMatchObject({ totalSeconds: total, total: formatCardHours(total), byCenter: [{ subCenterId: 'sz-a100', cardSeconds: total }], byCardType: [{ cardTypeId: 'a100-80g', cardSeconds: total }], byTask: [{ taskId: id, taskKind: 'training', taskName: '计量任务', cardSeconds: total, cardHours: formatCardHours(total) }] });
    expect(stats.byDay.reduce((s: number, x: { cardSeconds: number }) => s + x.cardSeconds, 0)).toBe(total);
    // The per-day chart of 消费记录: one task on each day it drew, the day's 卡时 as the totals say.
    const daily = async (token: string, q: object) => (await k.call(token, 'POST', `${ORDER_BASE}/records/action/daily`, { type: 'consume', ...q })).data;
    expect(await daily(u.token, {})).toEqual(stats.byDay.map((x: { day: string; cardHours: string }) => ({ day: x.day, count: 1, cardHours: x.cardHours })));
    expect(await daily(u.token, { taskId: id })).toEqual(await daily(u.token, {}));
    expect(await daily(u.token, { subCenterId: 'gz-ascend' })).toEqual([]);
    expect(await daily(other.token, {})).toEqual([]);
    off();
  }, 40_000);

  it('buckets empty earliest expiry first, split across them; an expired bucket is never drawn', async () => {
    const u = await k.user('u-meter-order');
    const expired = await k.bucket(u.id, 1000 * 3600, -1000);
    const soon = await k.bucket(u.id, 1, 2 * DAY);
    const later = await k.bucket(u.id, 10 * 3600, 20 * DAY);
    const elsewhere = await k.bucket(u.id, 10 * 3600, 1 * DAY, 'cpu-std');
    const res = await k.submit(u.token, { command: 'sleep 2' });
    expect(res.message.code, res.message.message).toBe(0);
    const d = await k.until(u.token, res.data.id, ['SUCCEEDED']);
    await t.app.metering.pass('sz-a100');
    const total = k.expected(d, 1);
    expect(total).toBeGreaterThanOrEqual(2);
    expect([await k.remaining(expired), await k.remaining(soon), await k.remaining(later), await k.remaining(elsewhere)]).toEqual([1000 * 3600, 0, 10 * 3600 - (total - 1), 10 * 3600]);
    const records = await k.records(res.data.id);
    expect(records.map((r) => [r.comp_power_id, Number(r.card_seconds), Number(r.elapsed_from)])).toEqual([
      [soon, 1, 0],
      [later, total - 1, 1],
    ]);
  }, 30_000);

  it('a pass while the poller lags draws up to now; the final draw gives the excess back, to the second', async () => {
    const u = await k.user('u-meter-lag');
    const bucket = await k.bucket(u.id, 10 * 3600, 30 * DAY);
    const res = await k.submit(u.token, { command: 'sleep 1' });
    const id = res.data.id as string;
    await k.until(u.token, id, ['RUNNING']);
    // The gateway stops hearing from the scheduler (the poller is behind: a gateway that was down, a slow
    // scheduler) while the job ends; passes keep metering the task as running.
    await t.app.tasks.poller.stop();
    try {
      await sleep(3500);
      await t.app.metering.pass('sz-a100');
      expect(Number((await k.meter(id))!.metered)).toBeGreaterThanOrEqual(3);
    } finally {
      t.app.tasks.poller.start();
    }
    const d = await k.until(u.token, id, ['SUCCEEDED']);
    await t.app.metering.pass('sz-a100');
    const total = k.expected(d, 1);
    expect(total).toBeLessThan(3);
    const meter = await k.meter(id);
    expect([Number(meter!.metered), Number(meter!.drawn), Number(meter!.settled)]).toEqual([total, total, 1]);
    expect(await k.remaining(bucket)).toBe(10 * 3600 - total);
    expect((await k.records(id)).reduce((s, r) => s + Number(r.card_seconds), 0)).toBe(total);
  }, 30_000);

  it('concurrent and retried passes of one running task count every second once', async () => {
    const u = await k.user('u-meter-race');
    const bucket = await k.bucket(u.id, 10 * 3600, 30 * DAY);
    const res = await k.submit(u.token, { cardNum: 3, command: 'sleep 3' });
    const id = res.data.id as string;
    await k.until(u.token, id, ['RUNNING']);
    for (let i = 0; i < 4; i++) {
      await Promise.all([t.app.metering.pass(), t.app.metering.pass('sz-a100'), t.app.metering.pass('sz-a100')]);
      const m = await k.meter(id);
      expect(Number(m!.drawn)).toBe(3 * Number(m!.metered));
      expect(await k.remaining(bucket)).toBe(10 * 3600 - Number(m!.drawn));
      await sleep(700);
    }
    const d = await k.until(u.token, id, ['SUCCEEDED']);
    await Promise.all([t.app.metering.pass(), t.app.metering.pass(), t.app.metering.pass('sz-a100')]);
    expect(Number((await k.meter(id))!.drawn)).toBe(k.expected(d, 3));
    expect(await k.remaining(bucket)).toBe(10 * 3600 - k.expected(d, 3));
  }, 30_000);

  it('a task deleted before the next pass is still paid for (the delete settles it first)', async () => {
    const u = await k.user('u-meter-delete');
    const bucket = await k.bucket(u.id, 10 * 3600, 30 * DAY);
    const res = await k.submit(u.token, { command: 'sleep 1' });
    const d = await k.until(u.token, res.data.id, ['SUCCEEDED']);
    expect(await k.meter(res.data.id)).toBeUndefined();
    expect((await k.call(u.token, 'DELETE', `/gateway/training/api/v1/tasks/${res.data.id}`)).message.code).toBe(0);
    const total = k.expected(d, 1);
    expect(total).toBeGreaterThanOrEqual(1);
    expect(await k.remaining(bucket)).toBe(10 * 3600 - total);
    // The record keeps the task's name after the task is gone.
    expect((await k.records$(u.token, { taskId: res.data.id })).data.list).toMatchObject([{ taskName: '计量任务', cardSeconds: total }]);
  }, 30_000);
});

/** Two gateways on one PostgreSQL metering the same task at once: it is drawn once. */
describe('metering on two gateways (postgres)', () => {
  let a: TestApp;
  let b: TestApp;
  const k = meteringKit(() => a);
  beforeAll(async () => {
    a = await createTestApp('postgres', { clock: Date.now, metering: { periodMs: 600_000 } });
    b = await createTestApp('postgres', { clock: Date.now, metering: { periodMs: 600_000 }, databaseUrl: a.config.databaseUrl });
    // B only meters: its executor does not know A's jobs, so it must not lead the centers' polls.
    await b.app.tasks.poller.stop();
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('passes racing on both count each second once, during the run and at the end', async () => {
    const u = await k.user('u-meter-two');
    const bucket = await k.bucket(u.id, 10 * 3600, 30 * DAY);
    const res = await k.submit(u.token, { cardNum: 2, command: 'sleep 3' });
    const id = res.data.id as string;
    await k.until(u.token, id, ['RUNNING']);
    for (let i = 0; i < 3; i++) {
      await Promise.all([a.app.metering.pass('sz-a100'), b.app.metering.pass('sz-a100'), b.app.metering.pass('sz-a100')]);
      const m = await k.meter(id);
      expect(Number(m!.drawn)).toBe(2 * Number(m!.metered));
      await sleep(800);
    }
    const d = await k.until(u.token, id, ['SUCCEEDED']);
    await Promise.all([a.app.metering.pass(), b.app.metering.pass(), a.app.metering.pass(), b.app.metering.pass()]);
    const total = k.expected(d, 2);
    expect(Number((await k.meter(id))!.drawn)).toBe(total);
    expect(await k.remaining(bucket)).toBe(10 * 3600 - total);
    expect((await k.records(id)).reduce((s, r) => s + Number(r.card_seconds), 0)).toBe(total);
  }, 40_000);
});
