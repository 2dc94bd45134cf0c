import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, type AuditEntry, type AuditPage } from '@suanli/contracts';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, registerAndLogin } from '../../../test/users';

/** Between entries: less than the session's 30 min idle timeout, so the operators stay signed in. */
const STEP = 20 * 60_000;

describe.each(engines)('审计日志 (%s)', (engine) => {
  let t: TestApp;
  let op: { token: string; id: string; username: string };
  let other: { token: string; id: string; username: string };
  const targets: { id: string; username: string }[] = [];
  let t0: number;

  const page = (token: string, q: object = {}) => call<AuditPage>(t.app, 'POST', `${ADMIN_BASE}/audit-logs/action/page`, { token, payload: q });
  const act = (token: string, verb: 'disable' | 'enable', id: string) => call(t.app, 'POST', `${ADMIN_BASE}/users/${id}/${verb}`, { token, payload: {} });

  beforeAll(async () => {
    t = await createTestApp(engine);
    const mk = async () => {
      const r = await registerAndLogin(t.app);
      return { token: r.token, id: r.user.id, username: r.user.username };
    };
    op = await mk();
    other = await mk();
    for (const o of [op, other]) await t.app.ctx.access.grant(o.id, 'operator');
    for (let i = 0; i < 3; i++) {
      const u = await mk();
      targets.push({ id: u.id, username: u.username });
    }
    // Entries at known times: op disables the three (t0, +STEP, +2 STEP), the other operator enables the first (+3 STEP).
    t0 = t.clock.now;
    for (const u of targets) {
      expect((await act(op.token, 'disable', u.id)).message.code).toBe(0);
      t.clock.advance(STEP);
    }
    // The other operator signs in now (their first session has been idle since the start).
    other.token = (await t.app.ctx.sessions.create(other.id)).token;
    expect((await act(other.token, 'enable', targets[0].id)).message.code).toBe(0);
  });
  afterAll(() => t.close());

  it('lists every entry newest first, to operators only', async () => {
    const all = await page(op.token);
    expect(all.message.code).toBe(0);
    expect(all.data.total).toBe(4);
    expect(all.data.list.map((e) => [e.actorName, e.action, e.targetName])).toEqual([
      [other.username, 'user.enable', targets[0].username],
      [op.username, 'user.disable', targets[2].username],
      [op.username, 'user.disable', targets[1].username],
      [op.username, 'user.disable', targets[0].username],
    ]);
    const user = await registerAndLogin(t.app);
    expect((await page(user.token)).message.code).toBe(1020);
  });

  it('filters by operator, action, target (id or name) and time range, and pages', async () => {
    const names = (r: { data: AuditPage }) => r.data.list.map((e: AuditEntry) => `${e.action}:${e.targetName}`);
    expect(names(await page(op.token, { actor: other.username.toUpperCase() }))).toEqual([`user.enable:${targets[0].username}`]);
    expect((await page(op.token, { action: 'user.disable' })).data.total).toBe(3);
    expect(names(await page(op.token, { target: targets[0].id }))).toEqual([`user.enable:${targets[0].username}`, `user.disable:${targets[0].username}`]);
    expect(names(await page(op.token, { target: targets[1].username.slice(2) }))).toEqual([`user.disable:${targets[1].username}`]);
    // [t0 + STEP, t0 + 2 STEP): only the second disable.
    expect(names(await page(op.token, { startTime: t0 + STEP, endTime: t0 + 2 * STEP }))).toEqual([`user.disable:${targets[1].username}`]);
    expect((await page(op.token, { startTime: t0 + 2 * STEP })).data.total).toBe(2);
    const p2 = await page(op.token, { pageNum: 2, pageSize: 3 });
    expect([p2.data.total, p2.data.pageNum, names(p2)]).toEqual([4, 2, [`user.disable:${targets[0].username}`]]);
    expect((await page(op.token, { action: 'user.delete' })).data.total).toBe(0);
    expect((await page(op.token, { startTime: t0, endTime: t0 })).message).toEqual({ code: 1005, message: '参数校验失败：endTime 应晚于开始时间' });
  });

  it('has no route that changes or deletes an entry', async () => {
    const [entry] = (await page(op.token)).data.list;
    const attempts: [string, string][] = [
      ['PUT', `/audit-logs/${entry.id}`],
      ['PATCH', `/audit-logs/${entry.id}`],
      ['DELETE', `/audit-logs/${entry.id}`],
      ['DELETE', '/audit-logs'],
      ['POST', `/audit-logs/${entry.id}`],
      ['POST', `/audit-logs/${entry.id}/delete`],
      ['POST', '/audit-logs/action/delete'],
      ['POST', '/audit-logs/action/clear'],
      ['GET', `/audit-logs/${entry.id}/delete`],
    ];
    for (const [method, path] of attempts) {
      const res = await t.app.inject({ method: method as 'PUT', url: `${ADMIN_BASE}${path}`, headers: { token: op.token }, payload: { reason: 'x', after: '{}' } });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    // No route of the whole gateway names the audit log except the one read.
    const auditRoutes = t.app.printRoutes({ commonPrefix: false }).split('\n').filter((l) => l.includes('audit'));
    expect(auditRoutes.join('\n')).toMatch(/audit-logs\/action\/page \(POST\)/);
    expect(auditRoutes).toHaveLength(1);
    const after = (await page(op.token)).data;
    expect(after.total).toBe(4);
    expect(after.list[0]).toEqual(entry);
  });

  it('is append-only in the database itself: UPDATE, DELETE (and on PostgreSQL TRUNCATE) are refused', async () => {
    const db = t.app.ctx.db;
    await expect(db.updateTable('audit_log').set({ reason: 'rewritten' }).execute()).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
    if (engine === 'postgres') await expect(sql`truncate audit_log`.execute(db)).rejects.toThrow(/append-only/);
    const rows = await db.selectFrom('audit_log').select(['reason']).execute();
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.reason === '')).toBe(true);
  });
});
