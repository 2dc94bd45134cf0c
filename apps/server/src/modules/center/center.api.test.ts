import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ErrorCode, FOUNDATION_BASE, ORDER_BASE, RESOURCE_BASE, SLURM_BASE, SYNC_BASE, TRAINING_BASE, type AdminCenter, type AuditEntry, type WsEvent } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit } from '../../../test/metering';

const DAY = 24 * 3600_000;
const NOTICE = '11 月 30 日 02:00–06:00 存储扩容，暂停服务';

/**
 * 运营管理 › 分中心 (issue 20, acceptance 3): status with a notice, packages and prices in the database (the
 * centers file only their first value), every change one audit entry; 维护/下线 refuse submits and sales
 * naming the notice, leave running tasks running, and hide the packages until the center is 正常 again.
 */
describe.each(engines)('运营管理 › 分中心 (%s)', (engine) => {
  let t: TestApp;
  let op: { id: string; token: string };
  const k = meteringKit(() => t);

  beforeAll(async () => {
    // A real clock: the running task below is driven by the poller as in production.
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 600_000 } });
    op = await k.user('u-center-op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  const admin = async (method: 'GET' | 'POST', path: string, token: string | undefined, payload?: object) =>
    body(await t.app.inject({ method, url: `${ADMIN_BASE}${path}`, headers: token ? { token } : {}, payload: payload ?? (method === 'POST' ? {} : undefined) }));
  const centers = async (): Promise<AdminCenter[]> => (await admin('GET', '/centers', op.token)).data;
  const center = async (id: string) => (await centers()).find((c) => c.id === id)!;
  const auditOf = async (id: string): Promise<AuditEntry[]> =>
    (await admin('POST', '/audit-logs/action/page', op.token, { target: id, pageSize: 100 })).data.list.reverse();
  const setStatus = (status: string, notice = '', token = op.token, id = 'sz-a100') => admin('POST', `/centers/${id}/status`, token, { status, notice });
  const products = async (token: string, id = 'sz-a100') => (await k.call(token, 'GET', `${ORDER_BASE}/sub-center-card/${id}/card-type`)).data;
  const userCenters = async (token: string) => (await k.call(token, 'GET', `${FOUNDATION_BASE}/sub-centers/action/list`)).data;

  it('refuses every route to a normal user with 1020 (10133 without a token), and nothing changes', async () => {
    const u = await k.user('u-center-plain');
    const before = await centers();
    const routes: ['GET' | 'POST', string, object?][] = [
      ['GET', '/centers'],
      ['POST', '/centers/sz-a100/status', { status: 'maintenance', notice: 'x' }],
      ['POST', '/centers/sz-a100/status', { status: 'bogus' }],
      ['POST', '/centers/sz-a100/packages', { packages: [] }],
      ['POST', '/centers/nowhere/packages', { packages: 'none' }],
    ];
    for (const [method, path, payload] of routes) {
      expect(await admin(method, path, u.token, payload), `${method} ${path}`).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });
      expect((await admin(method, path, undefined, payload)).message.code).toBe(10133);
    }
    expect(await centers()).toEqual(before);
    expect(await auditOf('sz-a100')).toEqual([]);
  });

  it('starts from the centers file: status and packages with their prices, nothing changed yet', async () => {
    const sz = await center('sz-a100');
    expect(sz).toMatchObject({ id: 'sz-a100', name: '深圳算力分中心', status: 'online', notice: '', updateTime: null });
    expect(sz.cardTypes.map((c) => c.id)).toEqual(['a100-80g', 'cpu-std']);
    expect(sz.packages.slice(0, 2)).toEqual([
      { id: 'sz-a100-10h', cardTypeId: 'a100-80g', name: 'A100 体验卡 10 卡时', cardHours: 10, price: '128.00', validDays: 30 },
      { id: 'sz-a100-100h', cardTypeId: 'a100-80g', name: 'A100 标准卡 100 卡时', cardHours: 100, price: '1180.00', validDays: 90 },
    ]);
    expect(sz.packages).toHaveLength(5);
  });

  it('maintenance: submits and sales refused naming the notice, a running task untouched, packages hidden and back; one entry per change', async () => {
    const u = await k.user('u-center-buyer');
    await k.bucket(u.id, 100 * 3600, DAY);
    const running = await k.submit(u.token, { command: 'sleep 30' });
    expect(running.message.code, running.message.message).toBe(0);
    await k.until(u.token, running.data.id, ['RUNNING']);
    const order = await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: 'sz-a100-10h', quantity: 1 });
    expect(order.message.code).toBe(0);

    // 维护 needs a notice; a refused change writes nothing.
    expect((await setStatus('maintenance', '  ')).message).toEqual({ code: 1005, message: '参数校验失败：notice 设置为维护或下线时须填写公告' });
    expect(await auditOf('sz-a100')).toEqual([]);

    const events: [string, WsEvent][] = [];
    const off = t.app.ctx.bus.subscribe((uid, e) => {
      if (e.businessType === 'center.changed') events.push([uid, e]);
    });
    try {
      const set = await setStatus('maintenance', NOTICE);
      expect(set.message.code).toBe(0);
      expect(set.data).toMatchObject({ id: 'sz-a100', status: 'maintenance', notice: NOTICE });
      expect(set.data.updateTime).toEqual(expect.any(Number));
      expect(events).toEqual([['*', { businessType: 'center.changed', data: { id: 'sz-a100', status: 'maintenance', notice: NOTICE } }]]);
    } finally {
      off();
    }
    const [entry] = await auditOf('sz-a100');
    expect(entry).toMatchObject({
      actorId: op.id,
      action: 'center.status',
      targetType: 'center',
      targetName: '深圳算力分中心',
      before: JSON.stringify({ status: 'online', notice: '' }),
      after: JSON.stringify({ status: 'maintenance', notice: NOTICE }),
    });

    // The same status and notice again: 2803, no entry.
    expect((await setStatus('maintenance', NOTICE)).message.code).toBe(ErrorCode.ADMIN_CENTER_STATE);
    expect(await auditOf('sz-a100')).toHaveLength(1);

    // Users see it; every kind of new work is refused with the notice.
    expect((await userCenters(u.token)).find((c: any) => c.id === 'sz-a100')).toMatchObject({ status: 'maintenance', notice: NOTICE });
    const refused = await k.submit(u.token, { command: 'sleep 1' });
    expect(refused.message).toEqual({ code: 2012, message: `深圳算力分中心维护中，暂停提交任务和购买算力。公告：${NOTICE}` });
    expect((await k.submit(u.token, { type: 'develop' })).message.code).toBe(2012);
    expect(await products(u.token)).toEqual([]);
    expect((await products(u.token, 'gz-ascend')).length).toBeGreaterThan(0);
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: 'sz-a100-100h', quantity: 1 })).message.code).toBe(2012);
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/${order.data.id}/pay`, { channel: 'offline' })).message.code).toBe(2012);
    // 智能调度 no longer picks it, a sync to or from it is refused, and 资源 shows it in maintenance.
    const placed = await k.call(u.token, 'POST', `${TRAINING_BASE}/placement`, { cardTypeId: 'a100-80g', cardNum: 1 });
    expect(placed.message.code).toBe(ErrorCode.NO_CENTER_FOR_CARD);
    const sync = await k.call(u.token, 'POST', `${SYNC_BASE}/syncs`, { sourceCenterId: 'gz-ascend', sourcePath: '/a', targetCenterId: 'sz-a100', targetDir: '/' });
    expect(sync.message.code).toBe(2012);
    const overview = await k.call(u.token, 'GET', `${RESOURCE_BASE}/overview`);
    expect(overview.data.centers.find((c: any) => c.subCenterId === 'sz-a100').state).toBe('maintenance');
    // Nothing was stored by the refusals: one task, one order.
    expect((await k.call(u.token, 'POST', `${TRAINING_BASE}/tasks/action/page`, { pageNum: 1, pageSize: 10 })).data.total).toBe(1);
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/action/page`, { pageNum: 1, pageSize: 10 })).data.total).toBe(1);

    // The running task goes on through polls.
    await t.app.tasks.service.poll('sz-a100');
    expect((await k.detail(u.token, running.data.id)).state).toBe('RUNNING');

    // 正常 again: the packages are back, the order can be paid, submits pass.
    expect((await setStatus('online')).data).toMatchObject({ status: 'online', notice: '' });
    expect((await products(u.token)).map((p: any) => p.id)).toContain('sz-a100-10h');
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/${order.data.id}/pay`, { channel: 'offline' })).message.code).toBe(0);
    const again = await k.submit(u.token, { command: 'sleep 1' });
    expect(again.message.code, again.message.message).toBe(0);
    expect((await auditOf('sz-a100')).map((e) => e.action)).toEqual(['center.status', 'center.status']);
    await k.call(u.token, 'POST', `${TRAINING_BASE}/tasks/${running.data.id}/stop`);
  });

  it('下线: refused like maintenance (2013) and shown as offline in the users\' lists', async () => {
    const u = await k.user('u-center-off');
    await k.bucket(u.id, 100 * 3600, DAY, 'ascend-910b', 'gz-ascend');
    expect((await setStatus('offline', '该分中心已停止运营', op.token, 'gz-ascend')).message.code).toBe(0);
    expect((await userCenters(u.token)).find((c: any) => c.id === 'gz-ascend')).toMatchObject({ status: 'offline', notice: '该分中心已停止运营' });
    // A Slurm task this time: every kind passes the one check.
    const script = { name: '脚本', type: 'custom', script: '#!/bin/bash\necho hi\n', subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', cardNum: 1, nodeNum: 1, workDir: '/work', env: [], maxDurationMinutes: 5 };
    expect((await k.call(u.token, 'POST', `${SLURM_BASE}/tasks`, script)).message).toEqual({
      code: 2013,
      message: '广州算力分中心已下线，暂停提交任务和购买算力。公告：该分中心已停止运营',
    });
    expect(await products(u.token, 'gz-ascend')).toEqual([]);
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: 'gz-910b-10h', quantity: 1 })).message.code).toBe(2013);
    expect((await setStatus('online', '', op.token, 'gz-ascend')).message.code).toBe(0);
  });

  it('packages and prices: one audited change of the whole list; orders are priced from it; the database wins over the file', async () => {
    const u = await k.user('u-center-price');
    const sz = await center('sz-a100');
    const [first, ...rest] = sz.packages;
    const edited = [
      { ...first, price: '99.00', name: 'A100 体验卡（优惠）' },
      ...rest.slice(1),
      { cardTypeId: 'a100-80g', name: 'A100 周卡 50 卡时', cardHours: 50, price: '560.50', validDays: 7 },
    ];
    const res = await admin('POST', '/centers/sz-a100/packages', op.token, { packages: edited, reason: '双十一' });
    expect(res.message.code, res.message.message).toBe(0);
    const after: AdminCenter = res.data;
    expect(after.packages.map((p) => p.name)).toEqual(['A100 体验卡（优惠）', ...rest.slice(1).map((p) => p.name), 'A100 周卡 50 卡时']);
    const added = after.packages.at(-1)!;
    const entries = (await auditOf('sz-a100')).filter((e) => e.action === 'center.packages');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ reason: '双十一', before: JSON.stringify({ packages: sz.packages }), after: JSON.stringify({ packages: after.packages }) });

    // 购买算力 shows the new list and prices; an order is priced from it; the removed package is gone.
    const list = await products(u.token);
    expect(list.map((p: any) => [p.id, p.price])).toEqual(after.packages.map((p) => [p.id, p.price]));
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: first.id, quantity: 2 })).data).toMatchObject({ amount: '198.00', productName: 'A100 体验卡（优惠）' });
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: added.id, quantity: 1 })).data).toMatchObject({ amount: '560.50', cardHours: '50.00' });
    expect((await k.call(u.token, 'POST', `${ORDER_BASE}/orders/pre`, { productId: rest[0].id, quantity: 1 })).message.code).toBe(1005);

    // Refusals change nothing and write nothing: bad card type, another center's package, zero price, no change.
    const bad: [object, number, string?][] = [
      [{ packages: [{ ...edited[0], cardTypeId: 'ascend-910b' }] }, 1005, 'packages[0].cardTypeId'],
      [{ packages: [{ ...edited[0], id: 'gz-910b-10h' }] }, 1005, 'packages[0].id'],
      [{ packages: [{ ...edited[0], price: '0.00' }] }, 1005, 'packages[0].price'],
      [{ packages: [{ ...edited[0], price: '9.9' }] }, 1005],
      [{ packages: after.packages }, ErrorCode.ADMIN_CENTER_STATE],
    ];
    for (const [payload, code, field] of bad) {
      const r = await admin('POST', '/centers/sz-a100/packages', op.token, payload);
      expect(r.message.code, JSON.stringify(payload)).toBe(code);
      if (field) expect(r.message.message).toContain(field);
    }
    expect((await center('sz-a100')).packages).toEqual(after.packages);
    expect((await auditOf('sz-a100')).filter((e) => e.action === 'center.packages')).toHaveLength(1);

    // A restart copies the file again only for centers the database does not know: the edit stands.
    await t.app.centerAdmin.service.seed();
    expect((await center('sz-a100')).packages).toEqual(after.packages);
  });

  it('writes the entry in the transaction of the change: when the entry cannot be written, nothing changes', async () => {
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await setStatus('maintenance', NOTICE)).message.code).not.toBe(0);
      expect((await admin('POST', '/centers/sz-a100/packages', op.token, { packages: [] })).message.code).not.toBe(0);
    } finally {
      trail.record = record;
    }
    const sz = await center('sz-a100');
    expect(sz.status).toBe('online');
    expect(sz.packages.length).toBeGreaterThan(0);
  });
});
