import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ORDER_BASE, type AuditEntry } from '@suanli/contracts';
import { body, createTestApp, engines, TEST_WELCOME_GRANT, type TestApp } from '../../../test/harness';

/** Grants (赠送, ADR 0015): an operator's, by username; the welcome grant, once per account. */
describe.each(engines)('grants (%s)', (engine) => {
  let t: TestApp;
  let op: { id: string; token: string };
  let user: { id: string; token: string };
  let other: { id: string; token: string };

  const account = async (username: string) => {
    const created = await t.app.users.createAccount({ username, password: 'Grant@123456', nickname: username, email: `${username}@example.com` });
    return { id: created!.id, token: (await t.app.ctx.sessions.create(created!.id)).token };
  };
  const send = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${ORDER_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const auditOf = async (targetId: string): Promise<AuditEntry[]> => {
    const r = await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/audit-logs/action/page`, payload: { target: targetId, pageSize: 100 }, headers: { token: op.token } });
    return body(r).data.list;
  };
  const grants = (token: string, q: object = {}) => send(token, 'POST', '/comp-powers/grants/action/page', { pageNum: 1, pageSize: 20, ...q });
  const grantBody = { username: 'grantee', subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', cardHours: 12, validDays: 7, reason: '比赛奖励' };

  beforeAll(async () => {
    // No welcome grant here: the balances below are the operator's grants alone.
    t = await createTestApp(engine, { metering: {} });
    op = await account('grant_op');
    await t.app.ctx.access.grant(op.id, 'operator');
    op.token = (await t.app.ctx.sessions.create(op.id)).token;
    user = await account('grantee');
    other = await account('bystander');
  });
  afterAll(() => t.close());

  it('an operator grants a user compute power by username: a bucket (source grant), a grant record, a message and a push', async () => {
    const pushed: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => void (userId === user.id && pushed.push(e.businessType)));
    const res = await send(op.token, 'POST', '/comp-powers/grant', grantBody);
    off();
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data).toMatchObject({ cardHours: '12.00', subCenterId: 'gz-ascend', subCenterName: '广州算力分中心', cardTypeId: 'ascend-910b', cardTypeName: '昇腾 910B', reason: '比赛奖励' });
    const balance = (await send(user.token, 'GET', `/comp-powers/${user.id}`)).data;
    expect(balance.total).toBe('12.00');
    expect(balance.items).toMatchObject([{ id: res.data.compPowerId, source: 'grant', granted: '12.00', remaining: '12.00' }]);
    expect(balance.items[0].expireTime).toBe(res.data.createTime + 7 * 24 * 3600_000);
    expect(pushed).toEqual(['notice.unread.increment', 'comp-power.changed']);
    const msgs = await t.app.ctx.db.selectFrom('messages').selectAll().where('user_id', '=', user.id).execute();
    expect(msgs.map((m) => [m.type, m.title, m.content])).toEqual([['order', '获得赠送算力', '您获得赠送算力：广州算力分中心 昇腾 910B 12.00 卡时，有效期 7 天（比赛奖励）。']]);
    // 赠送记录 lists it; 充值记录 (payments) does not; nobody else sees it.
    const page = (token: string, type: string) => send(token, 'POST', '/records/action/page', { type, pageNum: 1, pageSize: 10 });
    expect((await page(user.token, 'grant')).data).toMatchObject({ total: 1, list: [res.data] });
    expect((await page(user.token, 'charge')).data.total).toBe(0);
    expect((await page(other.token, 'grant')).data.total).toBe(0);
    expect((await send(user.token, 'GET', `/records/charge/${res.data.id}`)).message.code).toBe(1205);

    // 审计日志: exactly one entry, naming the operator, the user, what was given and why.
    const entries = await auditOf(user.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorKind: 'operator', actorId: op.id, actorName: 'grant_op', action: 'compPower.grant', targetType: 'user', targetId: user.id, targetName: 'grantee', reason: '比赛奖励' });
    expect(entries[0].before).toBeNull();
    expect(JSON.parse(entries[0].after!)).toEqual({ grant: '广州算力分中心 昇腾 910B 12.00 卡时，有效期 7 天' });

    // 算力发放's list: the grant with its recipient, giver and expiry; filtered by username.
    const list = (await grants(op.token)).data;
    expect(list.list[0]).toEqual({ ...res.data, userId: user.id, username: 'grantee', nickname: 'grantee', grantedByName: 'grant_op', expireTime: res.data.createTime + 7 * 24 * 3600_000 });
    expect((await grants(op.token, { username: 'GRANTEE' })).data.total).toBe(1);
    expect((await grants(op.token, { username: 'bystander' })).data).toMatchObject({ total: 0, list: [] });
    expect((await grants(op.token, { username: 'nobody_here' })).data.total).toBe(0);
  });

  it('lists operators\' grants only, newest first, paged; users are refused (1020)', async () => {
    await send(op.token, 'POST', '/comp-powers/grant', { ...grantBody, username: 'bystander', cardHours: 3 });
    // A platform grant (welcome, demo) is not an operator's and is not listed.
    await t.app.orders.grants.grant({ ownerId: other.id, subCenterId: 'gz-ascend', cardTypeId: 'ascend-910b', cardSeconds: 3600, validDays: 1, reason: '新用户赠送', key: 'welcome:test' });
    const all = (await grants(op.token)).data;
    expect(all.list.map((g: { username: string; cardHours: string }) => [g.username, g.cardHours])).toEqual([
      ['bystander', '3.00'],
      ['grantee', '12.00'],
    ]);
    expect((await grants(op.token, { pageSize: 1, pageNum: 2 })).data).toMatchObject({ total: 2, list: [{ username: 'grantee' }] });
    expect((await grants(user.token)).message.code).toBe(1020);
  });

  it('writes the audit entry in the grant\'s transaction: when the entry cannot be written, nothing is granted', async () => {
    const before = (await grants(op.token)).data.total;
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await t.app.inject({ method: 'POST', url: `${ORDER_BASE}/comp-powers/grant`, payload: { ...grantBody, username: 'bystander', cardHours: 99 }, headers: { token: op.token } })).statusCode).toBe(500);
    } finally {
      trail.record = record;
    }
    expect((await grants(op.token)).data.total).toBe(before);
    const buckets = await t.app.ctx.db.selectFrom('comp_power_buckets').selectAll().where('owner_id', '=', other.id).where('granted', '=', 99 * 3600).execute();
    expect(buckets).toEqual([]);
  });

  it('refuses a non-operator (1020), an unknown user or card type (1205) and bad amounts (1005), writing nothing', async () => {
    const count = async () => (await t.app.ctx.db.selectFrom('charge_records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const before = Number(await count());
    const audited = (await auditOf(other.id)).length;
    expect((await send(user.token, 'POST', '/comp-powers/grant', grantBody)).message.code).toBe(1020);
    expect((await send(op.token, 'POST', '/comp-powers/grant', { ...grantBody, username: 'nobody_here' })).message).toEqual({ code: 1205, message: '用户不存在' });
    expect((await send(op.token, 'POST', '/comp-powers/grant', { ...grantBody, cardTypeId: 'a100-80g' })).message.code).toBe(1205);
    const zero = await send(op.token, 'POST', '/comp-powers/grant', { ...grantBody, cardHours: 0 });
    expect(zero.message.code).toBe(1005);
    expect(zero.message.message).toContain('cardHours');
    expect((await send(op.token, 'POST', '/comp-powers/grant', { ...grantBody, reason: '' })).message.code).toBe(1005);
    expect(Number(await count())).toBe(before);
    expect(await auditOf(other.id)).toHaveLength(audited);
    expect(await auditOf(user.id)).toHaveLength(1);
  });
});

describe.each(engines)('the welcome grant (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('every account gets it once, on every card type, however many first reads race', async () => {
    const id = 'u-welcome';
    const token = (await t.app.ctx.sessions.create(id)).token;
    const read = () => t.app.inject({ method: 'GET', url: `${ORDER_BASE}/comp-powers/${id}`, headers: { token } }).then((r) => body(r));
    const answers = await Promise.all([read(), read(), read(), read(), read()]);
    const cardTypes = t.app.ctx.centers.flatMap((c) => c.cardTypes.map((ct) => `${c.id}/${ct.id}`)).sort();
    const grants = await t.app.ctx.db.selectFrom('charge_records').selectAll().where('owner_id', '=', id).execute();
    expect(grants.map((g) => `${g.sub_center_id}/${g.card_type_id}`).sort()).toEqual(cardTypes);
    expect(grants.every((g) => g.kind === 'grant' && g.reason === '新用户赠送' && Number(g.card_seconds) === TEST_WELCOME_GRANT.cardHours * 3600)).toBe(true);
    const buckets = await t.app.ctx.db.selectFrom('comp_power_buckets').selectAll().where('owner_id', '=', id).execute();
    expect(buckets).toHaveLength(cardTypes.length);
    // Each answer came after its own welcome attempt: the full balance.
    expect((await read()).data.total).toBe(`${TEST_WELCOME_GRANT.cardHours * cardTypes.length}.00`);
    expect(answers.every((a) => a.message.code === 0)).toBe(true);
  });
});
