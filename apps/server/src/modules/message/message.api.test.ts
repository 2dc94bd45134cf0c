import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WsEvent } from '@suanli/contracts';
import { createMessageModule } from './message.module';
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
    await createMessageModule(t.app.ctx).service.notifyMany(u.userId, [
      { type: 'system', title: '一', content: 'a' },
      { type: 'order', title: '二', content: 'b' },
      { type: 'team', title: '三', content: 'c' },
    ]);
    off();
    expect(events).toEqual([{ businessType: 'notice.unread.increment', data: { count: 3 } }]);
    expect(await unread(u.token)).toBe(3);
  });

  it('notifyEach stores one message per user (duplicates once) across transaction batches and pushes count 1 to each', async () => {
    // 4,001 users: three transactions (1,000, 3,000, then the last user), so the users of every batch — the
    // first and last of each — are stored and pushed.
    const run = Math.random().toString(36).slice(2, 8);
    const ids = Array.from({ length: 4_001 }, (_, i) => `each${i}-${run}`);
    const events = new Map<string, WsEvent[]>();
    const off = t.app.ctx.bus.subscribe((uid, e) => events.set(uid, [...(events.get(uid) ?? []), e]));
    await t.app.ctx.notifyEach([...ids, ids[0]], { type: 'system', title: '系统公告', content: '维护' });
    off();
    for (const id of ids) expect(events.get(id)).toEqual([{ businessType: 'notice.unread.increment', data: { count: 1 } }]);
    for (const i of [0, 999, 1_000, 3_999, 4_000]) {
      const { token } = await t.app.ctx.sessions.create(ids[i]);
      expect(await unread(token)).toBe(1);
      expect((await list(token)).list).toMatchObject([{ type: 'system', title: '系统公告', content: '维护', viewed: false }]);
    }
    expect((await list(tokenB)).list.some((m: any) => m.title === '系统公告')).toBe(false);
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

  /** Every page of the filter walked with pageSize, one past the end included (it must be empty). */
  const walk = async (token: string, filter: object, pageSize: number) => {
    const seen: any[] = [];
    let total = -1;
    for (let pageNum = 1; ; pageNum++) {
      const page = body(await post('/query', { pageNum, pageSize, ...filter }, token)).data;
      total = page.total;
      if (!page.list.length) break;
      expect(page.list.length, `page ${pageNum} of ${JSON.stringify(filter)} by ${pageSize}`).toBe(Math.min(pageSize, total - (pageNum - 1) * pageSize));
      seen.push(...page.list);
    }
    return { seen, total };
  };

  it('every page of every filter, the deepest included, is the right slice of the full list', async () => {
    const u = await freshUser('deep');
    const types = ['system', 'task', 'order'] as const;
    // Several batches (each batch shares one createTime) so ids order within and across milliseconds.
    for (let b = 0; b < 3; b++) {
      await createMessageModule(t.app.ctx).service.notifyMany(
        u.userId,
        Array.from({ length: 9 }, (_, i) => ({ type: types[(b * 9 + i) % 3], title: `m${b * 9 + i}`, content: '' })),
      );
      t.clock.advance(1000);
    }
    const all = (await walk(u.token, {}, 100)).seen;
    expect(all.map((m) => m.title)).toEqual(Array.from({ length: 27 }, (_, i) => `m${26 - i}`));
    await post('/view', { ids: all.filter((_, i) => i % 4 === 1).map((m) => m.id) }, u.token);
    const fresh = (await walk(u.token, {}, 100)).seen;

    const filters = [{}, { viewed: false }, { viewed: true }, { type: 'task' }, { type: 'task', viewed: false }, { type: 'team' }];
    for (const filter of filters) {
      const want = fresh.filter((m) => Object.entries(filter).every(([k, v]) => m[k] === v));
      // Sizes that end on a full and on a partial last page; pages past the middle are read from the oldest end.
      for (const pageSize of [1, 4, 9]) {
        const { seen, total } = await walk(u.token, filter, pageSize);
        expect(total, JSON.stringify(filter)).toBe(want.length);
        expect(seen.map((m) => m.id), `${JSON.stringify(filter)} by ${pageSize}`).toEqual(want.map((m) => m.id));
      }
    }
    const beyond = body(await post('/query', { pageNum: 1000, pageSize: 10 }, u.token)).data;
    expect(beyond).toEqual({ list: [], total: 27, pageNum: 1000, pageSize: 10 });
  });

  it('totals stay exact through concurrent notify, repeated and overlapping view, and view/all', async () => {
    const u = await freshUser('totals');
    const other = await freshUser('totals-other');
    const service = createMessageModule(t.app.ctx).service;
    await service.notifyMany(u.userId, Array.from({ length: 20 }, (_, i) => ({ type: i % 2 ? 'task' : 'order', title: `${i}`, content: '' })));
    await t.app.ctx.notify(other.userId, { type: 'task', title: '别人的', content: '' });
    const ids = (await list(u.token)).list.map((m: any) => m.id);

    const totals = async () => {
      const out: Record<string, number> = {};
      for (const [name, filter] of Object.entries({ all: {}, unread: { viewed: false }, read: { viewed: true }, task: { type: 'task' }, unreadTask: { viewed: false, type: 'task' } })) {
        out[name] = (await list(u.token, filter)).total;
      }
      return out;
    };
    /** The same numbers counted from the rows themselves. */
    const counted = async () => {
      const rows = (await walk(u.token, {}, 100)).seen;
      const n = (p: (m: any) => boolean) => rows.filter(p).length;
      return { all: rows.length, unread: n((m) => !m.viewed), read: n((m) => m.viewed), task: n((m) => m.type === 'task'), unreadTask: n((m) => !m.viewed && m.type === 'task') };
    };

    // Overlapping marks race each other (and a new message) for the same rows: each row may flip once only.
    await Promise.all([
      post('/view', { ids: ids.slice(0, 8) }, u.token),
      post('/view', { ids: ids.slice(4, 12) }, u.token),
      post('/view', { ids: [ids[0], ids[0], ids[5]] }, u.token),
      post('/view', { ids: ids.slice(0, 12) }, other.token),
      service.notifyMany(u.userId, [{ type: 'task', title: 'late', content: '' }]),
    ]);
    expect(await totals()).toEqual({ all: 21, unread: 9, read: 12, task: 11, unreadTask: 5 });
    expect(await totals()).toEqual(await counted());

    await Promise.all([post('/view/all', {}, u.token), post('/view/all', {}, u.token), post('/view', { ids: ids.slice(12) }, u.token)]);
    expect(await totals()).toEqual({ all: 21, unread: 0, read: 21, task: 11, unreadTask: 0 });
    expect(await totals()).toEqual(await counted());
    expect(await list(other.token, { viewed: false })).toMatchObject({ total: 1 });
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
    // Without a startTime (or 0) the count comes from message_counts, not a COUNT of the rows: both agree
    // through reads and marks, and another user's messages never count.
    expect(await unread(u.token)).toBe(2);
    expect(await unread(u.token, 0)).toBe(2);
    await t.app.ctx.notify(u.userId, { type: 'task', title: '任务', content: '' });
    await t.app.ctx.notify('someone-else', { type: 'system', title: '别人的', content: '' });
    expect(await unread(u.token)).toBe(3);
    expect(await unread(u.token, t0)).toBe(3);
    await post('/view/all', {}, u.token);
    expect(await unread(u.token)).toBe(0);
    expect(await unread(u.token, t0)).toBe(0);
    expect(await unread((await freshUser('none')).token)).toBe(0);
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
