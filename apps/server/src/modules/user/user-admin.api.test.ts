import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, type AdminUser, type AdminUserDetail, type AuditEntry } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { openShell, shellUrl } from '../../../test/shell-client';
import { call, encryptPassword, login, registerAndLogin } from '../../../test/users';
import { closedWithin, connect, wsUrl } from '../../../test/ws-client';

describe.each(engines)('运营管理 › 用户 (%s)', (engine) => {
  let t: TestApp;
  let port: number;
  let op: { token: string; id: string; username: string };

  const admin = <T = any>(method: 'GET' | 'POST', path: string, token: string | undefined, payload?: unknown) =>
    call<T>(t.app, method, `${ADMIN_BASE}${path}`, { token, payload: payload ?? (method === 'POST' ? {} : undefined) });
  /** Every audit entry about one target, oldest first (read through the operators' route). */
  const auditOf = async (targetId: string): Promise<AuditEntry[]> =>
    (await admin<{ list: AuditEntry[] }>('POST', '/audit-logs/action/page', op.token, { target: targetId, pageSize: 100 })).data.list.reverse();

  beforeAll(async () => {
    t = await createTestApp(engine, { shell: { local: true } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
    const o = await registerAndLogin(t.app);
    await t.app.ctx.access.grant(o.user.id, 'operator');
    op = { token: o.token, id: o.user.id, username: o.user.username };
  });
  afterAll(() => t.close());

  it('refuses every operator route to a normal user with 1020 and nothing else, and to no token with 10133', async () => {
    const u = await registerAndLogin(t.app);
    const routes: ['GET' | 'POST', string, unknown?][] = [
      ['POST', '/users/action/page', { keyword: u.user.username }],
      ['GET', `/users/${u.user.id}`],
      ['GET', '/users/no-such-user'],
      ['POST', `/users/${op.id}/disable`, { reason: 'x' }],
      ['POST', `/users/${u.user.id}/enable`, { reason: 'x' }],
      // A body the schema refuses: the caller learns nothing about the route's shape.
      ['POST', '/users/action/page', { pageSize: 'many' }],
      ['POST', '/audit-logs/action/page', {}],
      ['POST', '/audit-logs/action/page', { startTime: 'yesterday' }],
    ];
    for (const [method, path, payload] of routes) {
      const res = await admin(method, path, u.token, payload);
      expect(res, `${method} ${path}`).toEqual({ status: 200, message: { code: 1020, message: '没有权限' }, data: null });
      expect((await admin(method, path, undefined, payload)).message.code, `${method} ${path}`).toBe(10133);
    }
    // Nothing happened: the operator is still active, and no entry was written.
    expect((await admin<AdminUserDetail>('GET', `/users/${op.id}`, op.token)).data.status).toBe('active');
    expect(await auditOf(op.id)).toEqual([]);
  });

  it('finds accounts by username, nickname, phone or e-mail, newest first, with roles and unmasked contacts', async () => {
    const tag = `s${Date.now() % 1_000_000}`;
    const a = await registerAndLogin(t.app, { username: `${tag}_alpha` });
    const b = await registerAndLogin(t.app, { username: `${tag}_beta` });
    await t.app.ctx.access.grant(b.user.id, 'operator');
    const page = await admin<{ list: AdminUser[]; total: number }>('POST', '/users/action/page', op.token, { keyword: tag.toUpperCase() });
    expect(page.message.code).toBe(0);
    expect(page.data.total).toBe(2);
    expect(page.data.list.map((x) => [x.username, x.roles, x.status])).toEqual([
      [`${tag}_beta`, ['user', 'operator'], 'active'],
      [`${tag}_alpha`, ['user'], 'active'],
    ]);
    // The e-mail registered with, unmasked (operators answer the phone), and searchable.
    const email = page.data.list[1].email!;
    expect(email).toMatch(new RegExp(`^${tag}_alpha\\..*@test\\.local$`));
    const byMail = await admin<{ list: AdminUser[] }>('POST', '/users/action/page', op.token, { keyword: email });
    expect(byMail.data.list.map((x) => x.id)).toEqual([a.user.id]);
    // A LIKE wildcard in the keyword is a character, not a pattern.
    expect((await admin<{ total: number }>('POST', '/users/action/page', op.token, { keyword: '%' })).data.total).toBe(0);
    // Paging and the status filter.
    const second = await admin<{ list: AdminUser[]; total: number }>('POST', '/users/action/page', op.token, { keyword: tag, pageNum: 2, pageSize: 1 });
    expect([second.data.total, second.data.list.map((x) => x.username)]).toEqual([2, [`${tag}_alpha`]]);
    expect((await admin<{ total: number }>('POST', '/users/action/page', op.token, { keyword: tag, status: 'disabled' })).data.total).toBe(0);
    // Never the password hash.
    expect(JSON.stringify(page.data)).not.toMatch(/argon2|password/i);
  });

  it('shows the detail: roles, cluster accounts per center and tasks running now; 1205 for an unknown id', async () => {
    const u = await registerAndLogin(t.app);
    // Using a center makes the cluster account there (as the file manager's first call does).
    expect((await call(t.app, 'GET', 'agent/user/get', { token: u.token, query: { subCenterId: 'sz-a100' } })).message.code).toBe(0);
    const d = await admin<AdminUserDetail>('GET', `/users/${u.user.id}`, op.token);
    expect(d.message.code).toBe(0);
    expect(d.data).toMatchObject({ id: u.user.id, username: u.user.username, roles: ['user'], status: 'active', runningTasks: [] });
    expect(d.data.clusterAccounts.map((c) => [c.subCenterId, c.subCenterName])).toEqual([['sz-a100', '深圳算力分中心']]);
    expect(d.data.clusterAccounts[0].homeDir).toMatch(/^\/.+\/\w+$/);
    expect((await admin('GET', '/users/no-such-user', op.token)).message).toEqual({ code: 1205, message: '用户不存在' });
  });

  it('disables an account: one audit entry with before/after, every session refused at once, its socket and shell closed, login refused (1027)', async () => {
    const victim = await registerAndLogin(t.app);
    const second = await login(t.app, victim.user.username, victim.password);
    const socket = await connect(wsUrl(port, victim.token));
    const shell = await openShell(shellUrl(port, { token: second.token, centerId: 'sz-a100' }));
    await shell.waitStatus((f) => f.state === 'connected');
    expect(await closedWithin(socket, 100)).toBeNull();

    const res = await admin<AdminUser>('POST', `/users/${victim.user.id}/disable`, op.token, { reason: '  违规使用\n算力  ' });
    expect(res.message.code).toBe(0);
    expect(res.data).toMatchObject({ id: victim.user.id, status: 'disabled' });

    // No clock moved: the revocation itself ends them, not the session cache running out.
    for (const token of [victim.token, second.token]) expect((await call(t.app, 'GET', 'user', { token })).message.code).toBe(10307);
    expect(await closedWithin(socket, 1_000)).toEqual({ code: 4001, reason: '10307' });
    expect((await shell.closed).code).toBe(4001);
    const again = await call(t.app, 'POST', 'user/login', { payload: { account: victim.user.username, password: await encryptPassword(t.app, victim.password) } });
    expect(again.message).toEqual({ code: 1027, message: '账号已被禁用，如有疑问请联系平台运营人员' });

    const entries = await auditOf(victim.user.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorKind: 'operator',
      actorId: op.id,
      actorName: op.username,
      action: 'user.disable',
      targetType: 'user',
      targetId: victim.user.id,
      targetName: victim.user.username,
      before: JSON.stringify({ status: 'active' }),
      after: JSON.stringify({ status: 'disabled' }),
      reason: '违规使用 算力',
      ip: '127.0.0.1',
    });

    // A second disable changes nothing and writes nothing.
    expect((await admin('POST', `/users/${victim.user.id}/disable`, op.token)).message).toEqual({ code: 2802, message: '该账号已被禁用' });
    expect(await auditOf(victim.user.id)).toHaveLength(1);
    const list = await admin<{ list: AdminUser[] }>('POST', '/users/action/page', op.token, { keyword: victim.user.username, status: 'disabled' });
    expect(list.data.list.map((x) => x.id)).toEqual([victim.user.id]);
  });

  it('enables it again: one more entry, login works, old sessions stay ended', async () => {
    const u = await registerAndLogin(t.app);
    expect((await admin('POST', `/users/${u.user.id}/enable`, op.token)).message).toEqual({ code: 2802, message: '该账号未被禁用' });
    expect((await admin('POST', `/users/${u.user.id}/disable`, op.token)).message.code).toBe(0);
    // A second later (the test clock stands still otherwise; the log is ordered by time).
    t.clock.advance(1000);
    const res = await admin<AdminUser>('POST', `/users/${u.user.id}/enable`, op.token, { reason: '申诉通过' });
    expect(res.data.status).toBe('active');
    expect((await call(t.app, 'GET', 'user', { token: u.token })).message.code).toBe(10307);
    const fresh = await login(t.app, u.user.username, u.password);
    expect((await call(t.app, 'GET', 'user', { token: fresh.token })).message.code).toBe(0);
    const entries = await auditOf(u.user.id);
    expect(entries.map((e) => [e.action, e.before, e.after, e.reason])).toEqual([
      ['user.disable', '{"status":"active"}', '{"status":"disabled"}', ''],
      ['user.enable', '{"status":"disabled"}', '{"status":"active"}', '申诉通过'],
    ]);
  });

  it('refuses an operator acting on their own account (2801), and 1205 for an unknown one; neither writes an entry', async () => {
    expect((await admin('POST', `/users/${op.id}/disable`, op.token)).message.code).toBe(2801);
    expect((await admin('POST', '/users/no-such-user/disable', op.token)).message.code).toBe(1205);
    expect((await admin('POST', `/users/${op.id}/disable`, op.token, { reason: 'x'.repeat(201) })).message.code).toBe(1005);
    expect(await auditOf(op.id)).toEqual([]);
    expect(await auditOf('no-such-user')).toEqual([]);
  });

  it('writes the entry in the transaction of the change: when the entry cannot be written, the account stays active', async () => {
    const u = await registerAndLogin(t.app);
    // A trail whose write fails inside the transaction (as a lost connection would): the status rolls back.
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await admin('POST', `/users/${u.user.id}/disable`, op.token)).status).toBe(500);
    } finally {
      trail.record = record;
    }
    expect((await admin<AdminUserDetail>('GET', `/users/${u.user.id}`, op.token)).data.status).toBe('active');
    expect((await call(t.app, 'GET', 'user', { token: u.token })).message.code).toBe(0);
    expect(await auditOf(u.user.id)).toEqual([]);
  });
});
