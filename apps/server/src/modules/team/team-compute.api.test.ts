import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, ORDER_BASE, formatCardHours, teamPayer, type Team, type TeamInvitation } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { meteringKit, sleep } from '../../../test/metering';
import { teamKit, type TeamUser as User } from '../../../test/teams';
import { TEAM_STOP_PREFIX } from '../task/task-compute';

const DAY = 24 * 3600_000;

/**
 * Team compute power (issue 21 item 3, ADR 0017) on both engines: the team buys (owner/admin), a member's task
 * paid by the team draws the team's buckets once, the member's monthly limit refuses a submit and stops a
 * running task, a member who left can no longer charge the team, and no one outside reads anything of it.
 * Real clock; metering passes are called directly (a period long enough that none runs on its own).
 */
describe.each(engines)('team compute power (%s)', (engine) => {
  let t: TestApp;
  let op: User;
  let seq = 0;
  const k = meteringKit(() => t);

  const { user, team, teamOf } = teamKit(() => t, 'tc');
  const order = async (method: 'GET' | 'POST', path: string, u: User, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${ORDER_BASE}${path}`, headers: { token: u.token }, payload: payload as object }));


  beforeAll(async () => {
    t = await createTestApp(engine, { clock: Date.now, metering: { periodMs: 600_000 } });
    op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
  });
  afterAll(() => t.close());

  it('owners and admins buy for the team (the buyer pays, the bucket is the team\'s); members 1020, strangers 1205, nothing written', async () => {
    const g = await teamOf();
    const pre = (u: User) => order('POST', '/orders/pre', u, { productId: 'sz-a100-10h', quantity: 1, teamId: g.id });
    expect((await pre(g.member)).message.code).toBe(ErrorCode.NO_PERMISSION);
    expect((await pre(g.stranger)).message.code).toBe(ErrorCode.NOT_FOUND);
    const bought = await pre(g.admin);
    expect(bought.message.code, bought.message.message).toBe(0);
    expect(bought.data.teamId).toBe(g.id);
    const told: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => void (e.businessType === 'comp-power.changed' && told.push(userId)));
    expect((await order('POST', `/orders/${bought.data.id}/confirm`, op)).message.code).toBe(0);
    off();
    // Every member sees the team's balance, so every member is told it moved (the buyer once).
    expect(told.sort()).toEqual([g.owner.id, g.admin.id, g.member.id].sort());
    // The team's balance, read by any member; the admin's own balance is untouched.
    for (const u of [g.owner, g.admin, g.member]) {
      const b = await order('GET', `/comp-powers/team/${g.id}`, u);
      expect(b.message.code).toBe(0);
      expect(b.data.total).toBe('10.00');
    }
    expect((await order('GET', `/comp-powers/${g.admin.id}`, g.admin)).data.total).toBe('0.00');
    const strangerRead = await order('GET', `/comp-powers/team/${g.id}`, g.stranger);
    expect(strangerRead).toEqual({ message: { code: ErrorCode.NOT_FOUND, message: expect.any(String) }, data: null });
    // The charge record is the team's: members see it under the team, the stranger gets 1205.
    const charges = await order('POST', '/records/action/page', g.member, { type: 'charge', teamId: g.id, pageNum: 1, pageSize: 10 });
    expect(charges.data.total).toBe(1);
    expect((await order('POST', '/records/action/page', g.stranger, { type: 'charge', teamId: g.id, pageNum: 1, pageSize: 10 })).message.code).toBe(ErrorCode.NOT_FOUND);
    const rows = await t.app.ctx.db.selectFrom('comp_power_buckets').select('owner_id').where('owner_id', 'in', [teamPayer(g.id), g.admin.id]).execute();
    expect(rows.map((r) => r.owner_id)).toEqual([teamPayer(g.id)]);
  });

  it('an operator grants a team compute power by its name (owner\'s username when names repeat): the team\'s bucket, audited, members told', async () => {
    const g = await teamOf();
    const grant = (payload: object) => order('POST', '/comp-powers/grant', op, { subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardHours: 6, validDays: 30, reason: '课题支持', ...payload });
    // Exactly one recipient: a user or a team.
    expect((await grant({})).message.code).toBe(ErrorCode.PARAM_INVALID);
    expect((await grant({ username: g.member.username, teamName: g.name })).message.code).toBe(ErrorCode.PARAM_INVALID);
    expect((await grant({ teamName: `${g.name}-无此团队` })).message.code).toBe(ErrorCode.NOT_FOUND);
    // Not an operator: refused.
    expect((await order('POST', '/comp-powers/grant', g.owner, { teamName: g.name, subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardHours: 6, validDays: 30, reason: 'x' })).message.code).toBe(ErrorCode.NO_PERMISSION);

    const told: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => void (e.businessType === 'comp-power.changed' && told.push(userId)));
    const res = await grant({ teamName: g.name });
    off();
    expect(res.message.code, res.message.message).toBe(0);
    expect(told.sort()).toEqual([g.owner.id, g.admin.id, g.member.id].sort());
    const balance = await order('GET', `/comp-powers/team/${g.id}`, g.member);
    expect(balance.data.total).toBe('6.00');
    expect(balance.data.items).toMatchObject([{ id: res.data.compPowerId, source: 'grant', remaining: '6.00' }]);
    expect((await order('GET', `/comp-powers/${g.owner.id}`, g.owner)).data.total).toBe('0.00');
    // The owner is told; the audit entry names the team (and its owner), what was given and why.
    const msgs = await t.app.ctx.db.selectFrom('messages').select(['title', 'content']).where('user_id', '=', g.owner.id).where('title', 'like', '%赠送%').execute();
    expect(msgs).toEqual([{ title: `团队「${g.name}」获得赠送算力`, content: `团队「${g.name}」获得赠送算力：深圳算力分中心 NVIDIA A100 80G 6.00 卡时，有效期 30 天（课题支持）。` }]);
    const audit = await t.app.ctx.db.selectFrom('audit_log').selectAll().where('target_id', '=', g.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'compPower.grant', target_type: 'team', target_name: `${g.name}（${g.owner.username}）`, actor_id: op.id, reason: '课题支持' });
    // 算力发放's list names the team.
    const list = await order('POST', '/comp-powers/grants/action/page', op, { pageNum: 1, pageSize: 5 });
    expect(list.data.list[0]).toMatchObject({ id: res.data.id, userId: teamPayer(g.id), teamId: g.id, teamName: g.name, username: '', grantedByName: op.username });

    // Another owner's team of the same name: the name alone is ambiguous (1001 naming teamOwner); with the owner it is not.
    const other = await user('own2');
    const twin = (await team('POST', '/teams', other, { name: g.name })).data as Team;
    const ambiguous = await grant({ teamName: g.name });
    expect(ambiguous.message.code).toBe(ErrorCode.PARAM_INVALID);
    expect(ambiguous.message.message).toContain('teamOwner');
    expect((await grant({ teamName: g.name, teamOwner: other.username, cardHours: 2 })).message.code).toBe(0);
    expect((await order('GET', `/comp-powers/team/${twin.id}`, other)).data.total).toBe('2.00');
    expect((await order('GET', `/comp-powers/team/${g.id}`, g.owner)).data.total).toBe('6.00');
  });

  it('a member\'s task paid by the team draws the team\'s buckets once, never the member\'s own; a stranger cannot charge it', async () => {
    const g = await teamOf();
    const teamBucket = await k.bucket(teamPayer(g.id), 100 * 3600, 30 * DAY);
    const ownBucket = await k.bucket(g.member.id, 100 * 3600, 30 * DAY);
    expect((await k.submit(g.stranger.token, { payerTeamId: g.id })).message.code).toBe(ErrorCode.NOT_FOUND);
    const res = await k.submit(g.member.token, { payerTeamId: g.id, command: 'sleep 2' });
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data.payerTeamId).toBe(g.id);
    const id = res.data.id as string;
    const d = await k.until(g.member.token, id, ['SUCCEEDED']);
    // Who is told the balance moved: every member of the team (any member reads its balance), the member who
    // ran it among them; not the stranger.
    const told: string[] = [];
    const off = t.app.ctx.bus.subscribe((userId, e) => void (e.businessType === 'comp-power.changed' && told.push(userId)));
    await Promise.all([t.app.metering.pass('sz-a100'), t.app.metering.pass('sz-a100')]);
    await t.app.metering.pass('sz-a100');
    off();
    expect([...new Set(told)].sort()).toEqual([g.owner.id, g.admin.id, g.member.id].sort());
    const total = k.expected(d, 1);
    expect(total).toBeGreaterThanOrEqual(2);
    expect(await k.remaining(teamBucket)).toBe(100 * 3600 - total);
    expect(await k.remaining(ownBucket)).toBe(100 * 3600);
    const records = await k.records(id);
    expect(records.every((r) => r.owner_id === teamPayer(g.id) && r.user_id === g.member.id)).toBe(true);
    expect(records.reduce((s, r) => s + Number(r.card_seconds), 0)).toBe(total);
    // The member's own 消费记录 do not show it; the team's do, naming who ran it.
    expect((await k.records$(g.member.token, { taskId: id })).data.total).toBe(0);
    const teamRecords = (await k.records$(g.owner.token, { taskId: id, teamId: g.id })).data;
    expect(teamRecords.list.map((r: { userId?: string }) => r.userId)).toEqual(records.map(() => g.member.id));
    // 团队详情's usage: this month, per card type, for every member; strangers 1205.
    const usage = await order('POST', '/records/consume/action/team-usage', g.owner, { teamId: g.id });
    expect(usage.message.code).toBe(0);
    const mine = usage.data.members.find((m: { userId: string }) => m.userId === g.member.id);
    expect(mine).toMatchObject({ username: g.member.username, total: formatCardHours(total), limitCardHours: null });
    expect(mine.byCardType).toEqual([{ cardTypeId: 'a100-80g', cardTypeName: 'NVIDIA A100 80G', cardHours: formatCardHours(total), cardSeconds: total }]);
    expect(usage.data.members.find((m: { userId: string }) => m.userId === g.owner.id).total).toBe('0.00');
    expect((await order('POST', '/records/consume/action/team-usage', g.stranger, { teamId: g.id })).message.code).toBe(ErrorCode.NOT_FOUND);
    // Without the team's compute power the gate names the team.
    const empty = await teamOf();
    const refused = await k.submit(empty.member.token, { payerTeamId: empty.id });
    expect(refused.message.code).toBe(ErrorCode.COMP_POWER_INSUFFICIENT);
    expect(refused.message.message).toContain(`团队「${empty.name}」`);
  }, 30_000);

  it('the member limit: set by owners/admins only; a submit past it is refused (2607 naming it); a running task reaching it is stopped', async () => {
    const g = await teamOf();
    await k.bucket(teamPayer(g.id), 100 * 3600, 30 * DAY);
    const setLimit = (u: User, who: User, cardHours: number | null) => team('POST', `/teams/${g.id}/members/${who.id}/limit`, u, cardHours === null ? {} : { cardHours });
    expect((await setLimit(g.member, g.member, 5)).message.code).toBe(ErrorCode.NO_PERMISSION);
    expect((await setLimit(g.stranger, g.member, 5)).message.code).toBe(ErrorCode.NOT_FOUND);
    expect((await setLimit(g.admin, g.stranger, 5)).message.code).toBe(ErrorCode.TEAM_NOT_MEMBER);
    expect((await setLimit(g.admin, g.member, 0)).message.code).toBe(0);
    const detail = (await team('GET', `/teams/${g.id}`, g.member)).data;
    expect(detail.members.find((m: { userId: string }) => m.userId === g.member.id).limitCardHours).toBe(0);
    const refused = await k.submit(g.member.token, { payerTeamId: g.id });
    expect(refused.message.code).toBe(ErrorCode.TEAM_MEMBER_LIMIT);
    expect(refused.message.message).toBe(`已达到团队「${g.name}」为您设置的每月限额 0.00 卡时（本月已用 0.00 卡时），无法以团队付费提交，请联系团队所有者或管理员`);
    // The admin's own tasks paid by the team are not limited.
    const adminTask = await k.submit(g.admin.token, { payerTeamId: g.id, command: 'true' });
    expect(adminTask.message.code, adminTask.message.message).toBe(0);

    // A limit of 1 卡时, with the month's usage just under it: the submit passes, the pass after it stops the task.
    expect((await setLimit(g.owner, g.member, 1)).message.code).toBe(0);
    const res = await k.submit(g.member.token, { payerTeamId: g.id, command: 'exec sleep 60' });
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id as string;
    await k.until(g.member.token, id, ['RUNNING']);
    await sleep(1100);
    // Earlier usage this month (another of the member's team-paid tasks) brings them to the limit.
    const now = t.app.ctx.clock();
    await t.app.ctx.db
      .insertInto('consume_records')
      .values({
        id: `rec-${seq++}`,
        owner_id: teamPayer(g.id),
        user_id: g.member.id,
        task_id: `earlier-${seq}`,
        task_kind: 'training',
        task_name: '更早的任务',
        sub_center_id: 'sz-a100',
        card_type_id: 'a100-80g',
        card_num: 1,
        node_num: 1,
        comp_power_id: 'b-earlier',
        day: new Date(now + 8 * 3600_000).toISOString().slice(0, 10),
        card_seconds: 3600,
        elapsed_from: 0,
        elapsed_to: 3600,
        start_time: now - 3600_000,
        end_time: now,
        create_time: now,
        update_time: now,
      })
      .execute();
    const pass = await t.app.metering.pass('sz-a100');
    expect(pass.stopped).toContain(id);
    const d = await k.until(g.member.token, id, ['UNDERPOWERED'], 15_000);
    expect(d.reason.startsWith(TEAM_STOP_PREFIX)).toBe(true);
    expect(d.reason).toContain(`达到团队「${g.name}」为您设置的每月限额 1.00 卡时`);
    // Cleared: the member submits again.
    expect((await setLimit(g.admin, g.member, null)).message.code).toBe(0);
    const again = await k.submit(g.member.token, { payerTeamId: g.id, command: 'true' });
    expect(again.message.code, again.message.message).toBe(0);
  }, 40_000);

  it('a member\'s limit row goes when they leave or are removed (and with a dissolved team); rejoining starts without one', async () => {
    const g = await teamOf();
    const limitRows = async (teamId: string) =>
      (await t.app.ctx.db.selectFrom('team_member_limits').select(['user_id', 'card_seconds']).where('team_id', '=', teamId).orderBy('user_id').execute()).map((r) => ({ user_id: r.user_id, card_seconds: Number(r.card_seconds) }));
    for (const u of [g.admin, g.member]) expect((await team('POST', `/teams/${g.id}/members/${u.id}/limit`, g.owner, { cardHours: 7 })).message.code).toBe(0);
    expect((await limitRows(g.id)).map((r) => r.user_id).sort()).toEqual([g.admin.id, g.member.id].sort());
    // Leaving: the member's row goes, the admin's stays.
    expect((await team('POST', `/teams/${g.id}/leave`, g.member)).message.code).toBe(0);
    expect(await limitRows(g.id)).toEqual([{ user_id: g.admin.id, card_seconds: 7 * 3600 }]);
    // Rejoining: no limit (the usage read says 不限).
    const inv = (await team('POST', `/teams/${g.id}/invitations`, g.owner, { username: g.member.username })).data as TeamInvitation;
    expect((await team('POST', `/invitations/${inv.id}/accept`, g.member)).message.code).toBe(0);
    const usage = await order('POST', '/records/consume/action/team-usage', g.owner, { teamId: g.id });
    expect(usage.data.members.find((m: { userId: string }) => m.userId === g.member.id).limitCardHours).toBeNull();
    // Removed by the owner: the admin's row goes with them.
    expect((await team('DELETE', `/teams/${g.id}/members/${g.admin.id}`, g.owner)).message.code).toBe(0);
    expect(await limitRows(g.id)).toEqual([]);
    // A refused removal (the owner, 1020) leaves the rows alone; dissolving the team removes the rest.
    expect((await team('POST', `/teams/${g.id}/members/${g.owner.id}/limit`, g.owner, { cardHours: 3 })).message.code).toBe(0);
    expect((await team('DELETE', `/teams/${g.id}/members/${g.owner.id}`, g.member)).message.code).toBe(ErrorCode.NO_PERMISSION);
    expect((await limitRows(g.id)).map((r) => r.user_id)).toEqual([g.owner.id]);
    expect((await team('DELETE', `/teams/${g.id}`, g.owner)).message.code).toBe(0);
    expect(await limitRows(g.id)).toEqual([]);
  });

  it('a member who leaves (or is removed) can no longer charge the team: refused at submit, their running team-paid task stopped', async () => {
    const g = await teamOf();
    await k.bucket(teamPayer(g.id), 100 * 3600, 30 * DAY);
    const res = await k.submit(g.member.token, { payerTeamId: g.id, command: 'exec sleep 60' });
    expect(res.message.code, res.message.message).toBe(0);
    const id = res.data.id as string;
    await k.until(g.member.token, id, ['RUNNING']);
    expect((await team('POST', `/teams/${g.id}/leave`, g.member)).message.code).toBe(0);
    expect((await k.submit(g.member.token, { payerTeamId: g.id })).message.code).toBe(ErrorCode.NOT_FOUND);
    expect((await order('GET', `/comp-powers/team/${g.id}`, g.member)).message.code).toBe(ErrorCode.NOT_FOUND);
    await sleep(1100);
    const pass = await t.app.metering.pass('sz-a100');
    expect(pass.stopped).toContain(id);
    const d = await k.until(g.member.token, id, ['UNDERPOWERED'], 15_000);
    expect(d.reason).toBe(`${TEAM_STOP_PREFIX}您已不是团队「${g.name}」的成员，团队不再为此任务付费`);
    // What it ran while a member is paid by the team, once.
    const drawn = Number((await k.meter(id))!.drawn);
    expect(drawn).toBeGreaterThanOrEqual(1);
    // Removed by an admin: the same.
    const h = await teamOf();
    await k.bucket(teamPayer(h.id), 100 * 3600, 30 * DAY);
    expect((await team('DELETE', `/teams/${h.id}/members/${h.member.id}`, h.admin)).message.code).toBe(0);
    expect((await k.submit(h.member.token, { payerTeamId: h.id })).message.code).toBe(ErrorCode.NOT_FOUND);
  }, 40_000);
});
