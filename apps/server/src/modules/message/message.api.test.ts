import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WsEvent } from '@suanli/contracts';
import { createMessageService } from './message.service';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

const BASE = '/gateway/foundation/api/v1/message';

describe.each(engines)('message api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  const userA = 'u-msg-a';
  const userB = 'u-msg-b';

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create(userA)).token;
    tokenB = (await t.app.ctx.sessions.create(userB)).token;
  });
  afterAll(() => t.close());

  const post = (path: string, payload: unknown, token: string | null = tokenA) =>
    t.app.inject({ method: 'POST', url: `${BASE}${path}`, payload: payload as object, headers: token ? { token } : {} });
  const list = async (token: string, filter: object = {}) => body((await post('/query', { pageNum: 1, pageSize: 100, ...filter }, token))).data;
  const unread = async (token: string, startTime?: number) => body(await post('/unview/count', { startTime }, token)).data as number;

  /** Each test starts from a user without messages, so counts mean exactly what the test created. */
  const freshUser = async (name: string) => {
    const userId = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    const { token } = await t.app.ctx.sessions.create(userId);
    return { userId, token };
  };

  it('notify stores the message and pushes notice.unread.increment to that user only', async () => {
    const events: [string, WsEvent][] = [];
    const off = t.app.ctx.bus.subscribe((u, e) => events.push([u, e]));
    await t.app.ctx.notify(userA, { type: 'task', title: '任务运行成功', content: '训练任务 demo 已完成', businessType: 'task', businessId: 't-1' });
    off();
    expect(events).toEqual([[userA, { businessType: 'notice.unread.increment', data: { count: 1 } }]]);
    const { list: msgs } = await list(tokenA);
    expect(msgs[0]).toMatchObject({ type: 'task', title: '任务运行成功', content: '训练任务 demo 已完成', businessType: 'task', businessId: 't-1', viewed: false });
    expect(typeof msgs[0].id).toBe('string');
    expect(msgs[0].createTime).toBe(t.clock.now);
    expect((await list(tokenB)).list).toEqual([]);
  });

  it('notifyMany stores n messages in one go and pushes count n', async () => {
    const u = await freshUser('many');
    const events: WsEvent[] = [];
    const off = t.app.ctx.bus.subscribe((uid, e) => uid === u.userId && events.push(e));
    await createMessageService(t.app.ctx).notifyMany(u.userId, [
      { type: 'system', title: '一', content: 'a' },
      { type: 'order', title: '二', content: 'b' },
      { type: 'team', title: '三', content: 'c' },
    ]);
    off();
    expect(events).toEqual([{ businessType: 'notice.unread.increment', data: { count: 3 } }]);
    expect(await unread(u.token)).toBe(3);
  });

  it('pages newest first with total, and filters by viewed and type', async () => {
    const u = await freshUser('page');
    for (let i = 1; i <= 5; i++) {
      await t.app.ctx.notify(u.userId, { type: i % 2 ? 'system' : 'order', title: `消息${i}`, content: `内容${i}` });
      t.clock.advance(1000);
    }
    const p1 = body(await post('/query', { pageNum: 1, pageSize: 2 }, u.token));
    expect(p1.message.code).toBe(0);
    expect(p1.data).toMatchObject({ total: 5, pageNum: 1, pageSize: 2 });
    expect(p1.data.list.map((m: any) => m.title)).toEqual(['消息5', '消息4']);
    const p3 = body(await post('/query', { pageNum: 3, pageSize: 2 }, u.token)).data;
    expect(p3.list.map((m: any) => m.title)).toEqual(['消息1']);
    // Defaults from the contract: pageNum 1, pageSize 10.
    const def = body(await post('/query', {}, u.token)).data;
    expect(def).toMatchObject({ pageNum: 1, pageSize: 10, total: 5 });

    const orders = await list(u.token, { type: 'order' });
    expect(orders.list.map((m: any) => m.title)).toEqual(['消息4', '消息2']);
    expect(orders.total).toBe(2);

    await post('/view', { ids: [orders.list[0].id] }, u.token);
    expect((await list(u.token, { viewed: true })).list.map((m: any) => m.title)).toEqual(['消息4']);
    const unviewed = await list(u.token, { viewed: false });
    expect(unviewed.total).toBe(4);
    expect(unviewed.list.every((m: any) => m.viewed === false)).toBe(true);
    expect((await list(u.token, { viewed: false, type: 'order' })).list.map((m: any) => m.title)).toEqual(['消息2']);
  });

  it('counts unviewed messages created at or after startTime', async () => {
    const u = await freshUser('count');
    const t0 = t.clock.now;
    await t.app.ctx.notify(u.userId, { type: 'system', title: '早', content: '' });
    t.clock.advance(5000);
    const t1 = t.clock.now;
    await t.app.ctx.notify(u.userId, { type: 'system', title: '晚1', content: '' });
    await t.app.ctx.notify(u.userId, { type: 'system', title: '晚2', content: '' });

    const res = body(await post('/unview/count', { startTime: t1 }, u.token));
    expect(res).toEqual({ message: { code: 0, message: '操作成功' }, data: 2 });
    expect(await unread(u.token, t0)).toBe(3);
    expect(await unread(u.token, t1 + 1)).toBe(0);
    expect(await unread(u.token)).toBe(3);
    const late = (await list(u.token)).list.find((m: any) => m.title === '晚1');
    await post('/view', { ids: [late.id] }, u.token);
    expect(await unread(u.token, t1)).toBe(1);
  });

  it('view marks only the caller\'s own messages; other users\' ids are ignored and untouched', async () => {
    const a = await freshUser('own-a');
    const b = await freshUser('own-b');
    await t.app.ctx.notify(a.userId, { type: 'system', title: 'A 的消息', content: '' });
    await t.app.ctx.notify(b.userId, { type: 'system', title: 'B 的消息', content: '' });
    const aId = (await list(a.token)).list[0].id;
    const bId = (await list(b.token)).list[0].id;

    // B can neither see A's message nor mark it.
    expect((await list(b.token)).list.map((m: any) => m.title)).toEqual(['B 的消息']);
    const res = body(await post('/view', { ids: [aId] }, b.token));
    expect(res.message.code).toBe(0);
    expect((await list(a.token)).list[0].viewed).toBe(false);
    expect(await unread(a.token)).toBe(1);

    // A marks its own and B's in one call: only A's changes.
    expect(body(await post('/view', { ids: [aId, bId, 'no-such-id'] }, a.token))).toEqual({ message: { code: 0, message: '操作成功' }, data: null });
    expect((await list(a.token)).list[0].viewed).toBe(true);
    expect((await list(b.token)).list[0].viewed).toBe(false);
    expect(await unread(b.token)).toBe(1);
  });

  it('view/all marks all of the caller\'s messages and nobody else\'s', async () => {
    const a = await freshUser('all-a');
    const b = await freshUser('all-b');
    for (const u of [a, a, b]) await t.app.ctx.notify(u.userId, { type: 'team', title: '邀请', content: '' });
    expect(body(await post('/view/all', {}, a.token))).toEqual({ message: { code: 0, message: '操作成功' }, data: null });
    expect(await unread(a.token)).toBe(0);
    expect((await list(a.token)).list.map((m: any) => m.viewed)).toEqual([true, true]);
    expect(await unread(b.token)).toBe(1);
  });

  it('answers 1005 naming the field for invalid input', async () => {
    const cases: [string, unknown, string][] = [
      ['/query', { pageNum: 1, pageSize: 1000 }, 'pageSize'],
      ['/query', { pageNum: 0, pageSize: 10 }, 'pageNum'],
      ['/query', { pageNum: 1, pageSize: 10, type: 'spam' }, 'type'],
      ['/query', { pageNum: 1, pageSize: 10, viewed: 'maybe' }, 'viewed'],
      ['/unview/count', { startTime: 'yesterday' }, 'startTime'],
      ['/view', { ids: { a: 1 } }, 'ids'],
      ['/view', {}, 'ids'],
      ['/view', { ids: [] }, 'ids'],
      ['/view', { ids: Array.from({ length: 101 }, (_, i) => `id${i}`) }, 'ids'],
    ];
    for (const [path, payload, field] of cases) {
      const { message } = body(await post(path, payload));
      expect(message.code, `${path} ${JSON.stringify(payload).slice(0, 60)}`).toBe(1005);
      expect(message.message).toContain(field);
    }
  });

  describe('sessions', () => {
    const calls: [string, unknown][] = [
      ['/query', { pageNum: 1, pageSize: 10 }],
      ['/unview/count', { startTime: 0 }],
      ['/view', { ids: ['x'] }],
      ['/view/all', {}],
    ];

    it.each(calls)('%s refuses a missing (10133) or forged token', async (path, payload) => {
      expect(body(await post(path, payload, null)).message.code).toBe(10133);
      expect(body(await post(path, payload, 'forged-token')).message.code).toBe(10133);
    });

    it.each(calls)('%s refuses an expired session (10157)', async (path, payload) => {
      const { token } = await t.app.ctx.sessions.create(userA);
      t.clock.advance(31 * 60_000);
      try {
        expect(body(await post(path, payload, token)).message.code).toBe(10157);
      } finally {
        t.clock.advance(-31 * 60_000);
      }
    });

    it.each(calls)('%s refuses a revoked session (10307) and changes nothing', async (path, payload) => {
      const u = await freshUser('revoked');
      await t.app.ctx.notify(u.userId, { type: 'system', title: '未读', content: '' });
      const s = await t.app.ctx.sessions.create(u.userId);
      await t.app.ctx.sessions.revoke(s.sessionId, 'logout');
      expect(body(await post(path, payload, s.token)).message.code).toBe(10307);
      expect(await unread(u.token)).toBe(1);
    });
  });
});
