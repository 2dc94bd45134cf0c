import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, ErrorCode, MESSAGE_BASE, ORDER_BASE, teamPayer, type AuditEntry } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit, sleep } from '../../../test/metering';
import { teamKit, type TeamUser as User } from '../../../test/teams';
import { TEAM_STOP_PREFIX } from '../task/task-compute';

const DAY = 24 * 3600_000;

/**
 * 运营管理 › 团队 › 解散 (issue 21, ADR 0017 "Dissolving a team") on both engines: an operator dissolves any team
 * with a reason — one audit entry, every member told with the reason, `team.changed`; the owner (or anyone
 * else) through the operators' route gets 1020 and nothing changes; the team's buckets stay on the books but
 * nobody reads or draws them; a running team-paid task is stopped at the next pass, saying the team is gone.
 */
describe.each(engines)('operators dissolve a team (%s)', (engine) => {
  let t: TestApp;
  let op: User;
  const k = meteringKit(() => t);

  const { user, team, teamOf } = teamKit(() => t, 'td');
  const dissolve = async (u: User, id: string, payload: object = { reason: '违反平台使用协议' }) =>
    body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/teams/${id}/dissolve`, headers: { token: u.token }, payload }));
  const auditOf = async (targetId: string): Promise<AuditEntry[]> =>
    body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/audit-logs/action/page`, payload: { target: targetId, pageSize: 100 }, headers: { token: op.token } })).data.list;
  const messages = async (u: User) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 20 } })).data.list as { title: string; content: string }[];


  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 600_000 } });
    op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  it('refuses the owner and anyone else on the operators\' route (1020), a missing reason (1005) and an unknown team (1205)', async () => {
    const g = await teamOf();
    for (const u of [g.owner, g.admin, g.stranger]) expect(await dissolve(u, g.id)).toEqual({ message: { code: ErrorCode.NO_PERMISSION, message: '没有权限' }, data: null });
    expect((await dissolve(op, g.id, {})).message.code).toBe(ErrorCode.PARAM_INVALID);
    expect((await dissolve(op, g.id, { reason: '   ' })).message.code).toBe(ErrorCode.PARAM_INVALID);
    expect((await dissolve(op, 'no-such-team')).message.code).toBe(ErrorCode.NOT_FOUND);
    // Nothing happened: the team is there with its three members, no entry written.
    expect((await team('GET', `/teams/${g.id}`, g.member)).data.members).toHaveLength(3);
    expect(await auditOf(g.id)).toEqual([]);
  });

  it('an operator dissolves any team: one audit entry with the reason, every member told why, team.changed, the team gone', async () => {
    const g = await teamOf();
    const changed: string[] = [];
    const off = t.app.ctx.bus.subscribe((uid, e) => void (e.businessType === 'team.changed' && changed.push(uid)));
    const r = await dissolve(op, g.id);
    off();
    expect(r).toEqual({ message: { code: 0, message: '操作成功' }, data: null });
    expect(new Set(changed)).toEqual(new Set([g.owner.id, g.admin.id, g.member.id]));

    const entries = await auditOf(g.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorKind: 'operator',
      actorId: op.id,
      actorName: op.username,
      action: 'team.dissolve',
      targetType: 'team',
      targetId: g.id,
      targetName: `${g.name}（${g.owner.username}）`,
      after: null,
      reason: '违反平台使用协议',
    });
    expect(JSON.parse(entries[0].before!)).toEqual({ name: g.name, ownerId: g.owner.id, memberCount: 3 });

    // The owner is told too (it was not their doing), with the reason.
    for (const u of [g.owner, g.admin, g.member]) {
      const m = (await messages(u)).find((x) => x.title === `团队「${g.name}」已解散`);
      expect(m?.content).toContain('平台运营人员已解散团队');
      expect(m?.content).toContain('原因：违反平台使用协议');
      expect(m?.content).toContain('团队剩余算力不再可用');
    }
    expect((await messages(g.stranger)).some((x) => x.title.includes(g.name))).toBe(false);
    for (const u of [g.owner, g.member]) expect((await team('GET', `/teams/${g.id}`, u)).message.code).toBe(ErrorCode.NOT_FOUND);
    // Dissolving it again: it is gone.
    expect((await dissolve(op, g.id)).message.code).toBe(ErrorCode.NOT_FOUND);
    expect(await auditOf(g.id)).toHaveLength(1);
    // The owner's own dissolve of another team writes no audit entry (only operators' actions are audited).
    const h = await teamOf();
    expect((await team('DELETE', `/teams/${h.id}`, h.owner)).message.code).toBe(0);
    expect(await auditOf(h.id)).toEqual([]);
  });

  it('keeps the team\'s buckets on the books unusable, and stops its running team-paid task at the next pass', async () => {
    const g = await teamOf();
    const bucket = await k.bucket(teamPayer(g.id), 100 * 3600, 30 * DAY);
    const res = await k.submit(g.member.token, { payerTeamId: g.id, command: 'exec sleep 60' });
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id as string;
    await k.until(g.member.token, id, ['RUNNING']);
    expect((await dissolve(op, g.id)).message.code).toBe(0);
    expect((await k.submit(g.member.token, { payerTeamId: g.id })).message.code).toBe(ErrorCode.NOT_FOUND);
    const read = body(await t.app.inject({ method: 'GET', url: `${ORDER_BASE}/comp-powers/team/${g.id}`, headers: { token: g.owner.token } }));
    expect(read.message.code).toBe(ErrorCode.NOT_FOUND);
    await sleep(1100);
    const pass = await t.app.metering.pass('sz-a100');
    expect(pass.stopped).toContain(id);
    const d = await k.until(g.member.token, id, ['UNDERPOWERED'], 15_000);
    expect(d.reason).toBe(`${TEAM_STOP_PREFIX}付费团队已解散，团队不再为此任务付费`);
    // What it ran until the stop was drawn from the team's bucket, which stays (ledger whole, nobody can use it).
    expect(Number((await k.meter(id))!.drawn)).toBeGreaterThanOrEqual(1);
    expect(await k.remaining(bucket)).toBeLessThan(100 * 3600);
  }, 40_000);
});
