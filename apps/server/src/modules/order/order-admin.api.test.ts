import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ORDER_BASE, type AuditEntry, type Order } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

interface User {
  id: string;
  username: string;
  token: string;
}

/**
 * 运营管理 › 订单 (issue 20): every user's orders with the buyer's username and contact, filtered by buyer,
 * center, status and channel; 确认到账 is an audited operator action (`order.confirm`) in the credit's
 * transaction — one entry for the one credit, none for a refused or repeated confirm, none without the credit.
 */
describe.each(engines)('运营管理 › 订单 (%s)', (engine) => {
  let t: TestApp;
  let op: User;
  let seq = 0;

  const user = async (tag: string): Promise<User> => {
    const username = `oa_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: tag });
    const { token } = await t.app.ctx.sessions.create(created!.id);
    return { id: created!.id, username, token };
  };
  const send = async (method: 'GET' | 'POST', url: string, token: string | null, payload?: object) =>
    body(await t.app.inject({ method, url, headers: token ? { token } : {}, payload }));
  const pre = (u: User, productId: string) => send('POST', `${ORDER_BASE}/orders/pre`, u.token, { productId, quantity: 1 });
  const all = (u: User, q: object = {}) => send('POST', `${ORDER_BASE}/orders/action/page`, u.token, { pageNum: 1, pageSize: 100, scope: 'all', ...q });
  const confirm = (u: User, id: string) => send('POST', `${ORDER_BASE}/orders/${id}/confirm`, u.token);
  const auditOf = async (id: string): Promise<AuditEntry[]> =>
    (await send('POST', `${ADMIN_BASE}/audit-logs/action/page`, op.token, { target: id, pageSize: 100 })).data.list;
  const buckets = async (ownerId: string) =>
    Number((await t.app.ctx.db.selectFrom('comp_power_buckets').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    t = await createTestApp(engine, { metering: {} });
    op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  it('lists everyone\'s orders with buyer and contact, filtered by username, center, status and channel; users get 1020', async () => {
    const [a, b] = [await user('alice'), await user('bob')];
    const oa = (await pre(a, 'sz-a100-10h')).data as Order;
    const ob = (await pre(b, 'gz-910b-10h')).data as Order;
    await send('POST', `${ORDER_BASE}/orders/${ob.id}/pay`, b.token, { channel: 'offline' });

    const byA = await all(op, { username: a.username.toUpperCase() });
    expect(byA.data.list.map((o: Order) => o.id)).toEqual([oa.id]);
    expect(byA.data.list[0].buyer).toEqual({ username: a.username, nickname: 'alice', phone: null, email: null });
    expect((await all(op, { username: 'nobody-by-that-name' })).data).toMatchObject({ list: [], total: 0 });
    const ids = (q: object) => all(op, q).then((r) => r.data.list.map((o: Order) => o.id));
    expect(await ids({ subCenterId: 'gz-ascend' })).toContain(ob.id);
    expect(await ids({ subCenterId: 'gz-ascend' })).not.toContain(oa.id);
    expect(await ids({ payChannel: 'offline' })).toEqual(expect.arrayContaining([ob.id]));
    expect(await ids({ payChannel: 'offline' })).not.toContain(oa.id);
    expect(await ids({ status: 'UNPAID', keyword: ob.orderNo })).toEqual([ob.id]);
    // The filters for everyone's orders mean nothing on one's own list: a user's page is theirs alone.
    expect((await send('POST', `${ORDER_BASE}/orders/action/page`, a.token, { pageNum: 1, pageSize: 100, username: b.username })).data.list.map((o: Order) => o.id)).toEqual([oa.id]);
    expect((await all(a)).message).toEqual({ code: 1020, message: '没有权限' });
  });

  it('确认到账 writes one audit entry with before/after in the credit\'s transaction; a repeat writes none', async () => {
    const buyer = await user('buyer');
    const o = (await pre(buyer, 'gz-910b-10h')).data as Order;
    await send('POST', `${ORDER_BASE}/orders/${o.id}/pay`, buyer.token, { channel: 'offline' });
    expect((await confirm(buyer, o.id)).message.code).toBe(1020);
    expect(await auditOf(o.id)).toEqual([]);

    const res = await t.app.inject({ method: 'POST', url: `${ORDER_BASE}/orders/${o.id}/confirm`, headers: { token: op.token }, remoteAddress: '10.1.2.3' });
    expect(body(res).data).toMatchObject({ status: 'PAID', buyer: { username: buyer.username } });
    const [entry, ...more] = await auditOf(o.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actorKind: 'operator',
      actorId: op.id,
      actorName: op.username,
      action: 'order.confirm',
      targetType: 'order',
      targetId: o.id,
      targetName: o.orderNo,
      before: JSON.stringify({ status: 'UNPAID' }),
      ip: '10.1.2.3',
    });
    expect(JSON.parse(entry.after!)).toEqual({ status: 'PAID', payChannel: 'offline', amount: '98.00', cardHours: '10.00', buyer: buyer.username });

    expect((await confirm(op, o.id)).message.code).toBe(2502);
    expect(await auditOf(o.id)).toHaveLength(1);
    expect((await confirm(op, 'no-such-order')).message.code).toBe(1205);
  });

  it('when the entry cannot be written the credit rolls back: the order stays unpaid and no compute power is added', async () => {
    const buyer = await user('rollback');
    const o = (await pre(buyer, 'sz-a100-10h')).data as Order;
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await confirm(op, o.id)).message.code).not.toBe(0);
    } finally {
      trail.record = record;
    }
    expect((await send('GET', `${ORDER_BASE}/orders/${o.id}`, buyer.token)).data.status).toBe('UNPAID');
    expect(await buckets(buyer.id)).toBe(0);
    expect(await auditOf(o.id)).toEqual([]);
    // And a confirm afterwards goes through once.
    expect((await confirm(op, o.id)).data.status).toBe('PAID');
    expect(await buckets(buyer.id)).toBe(1);
  });
});
