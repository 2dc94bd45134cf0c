import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, MESSAGE_BASE, TEAM_BASE, type AdminTeam, TEAM_INVITATION_BUSINESS_TYPE, TEAM_INVITATION_TTL_MS, type Team, type TeamDetail, type TeamInvitation, type WsEvent } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

interface User {
  id: string;
  username: string;
  token: string;
}

describe.each(engines)('team api (%s)', (engine) => {
  let t: TestApp;
  let seq = 0;

  const user = async (tag: string): Promise<User> => {
    const username = `tm_${tag}_${seq++}_${randomBytes(2).toString('hex')}`;
    const created = await t.app.users.createAccount({ username, password: 'Passw0rd-test', nickname: `昵称${tag}` });
    const { token } = await t.app.ctx.sessions.create(created!.id);
    return { id: created!.id, username, token };
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const send = async (method: 'GET' | 'POST' | 'DELETE', path: string, u: User | null, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${TEAM_BASE}${path}`, headers: u ? { token: u.token } : {}, payload: payload as object }));
  const create = (u: User, name: string, description?: string) => send('POST', '/teams', u, { name, description });
  const detail = (u: User, id: string) => send('GET', `/teams/${id}`, u);
  const invite = (u: User, id: string, username: string) => send('POST', `/teams/${id}/invitations`, u, { username });
  const accept = (u: User, invitationId: string) => send('POST', `/invitations/${invitationId}/accept`, u);
  const messages = async (u: User) =>
    body(await t.app.inject({ method: 'POST', url: `${MESSAGE_BASE}/query`, headers: { token: u.token }, payload: { pageNum: 1, pageSize: 20 } })).data.list;

  /** A team owned by `owner` with an admin and a member, through invitations. */
  const teamOf = async () => {
    const [owner, admin, member, stranger] = [await user('own'), await user('adm'), await user('mem'), await user('str')];
    const team = (await create(owner, `课题组${seq}`, '一起算')).data as Team;
    for (const u of [admin, member]) {
      const inv = (await invite(owner, team.id, u.username)).data as TeamInvitation;
      expect((await accept(u, inv.id)).message.code).toBe(0);
    }
    expect((await send('POST', `/teams/${team.id}/members/${admin.id}/role`, owner, { role: 'admin' })).data.role).toBe('admin');
    return { team, owner, admin, member, stranger };
  };

  /** team.changed events per user while `run` runs. */
  const events = async (run: () => Promise<unknown>) => {
    const seen: string[] = [];
    const off = t.app.ctx.bus.subscribe((uid: string, e: WsEvent) => {
      if (e.businessType === 'team.changed') seen.push(uid);
    });
    try {
      await run();
    } finally {
      off();
    }
    return seen;
  };

  it('creates a team whose creator is its owner; names are unique per owner, not across owners', async () => {
    const [a, b] = [await user('a'), await user('b')];
    const res = await create(a, '  蛋白质组  ', '结构预测');
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data).toMatchObject({ name: '蛋白质组', description: '结构预测', ownerId: a.id, ownerName: a.username, myRole: 'owner', memberCount: 1 });
    expect((await create(a, '蛋白质组')).message).toEqual({ code: 2601, message: '您已有同名团队，请换一个名称' });
    expect((await create(b, '蛋白质组')).message.code).toBe(0);
    expect(((await send('GET', '/teams', a)).data as Team[]).map((x) => x.name)).toEqual(['蛋白质组']);
    const d = (await detail(a, res.data.id)).data as TeamDetail;
    expect(d.members).toEqual([{ userId: a.id, username: a.username, nickname: '昵称a', role: 'owner', joinTime: expect.any(Number), limitCardHours: null }]);
  });

  it('refuses bad input with 1005 naming the field, and requests without a token with 10133', async () => {
    const a = await user('bad');
    expect((await create(a, '   ')).message.message).toContain('name');
    expect((await create(a, 'x'.repeat(65))).message.code).toBe(1005);
    expect((await send('POST', '/teams', a, { name: '组', description: 'y'.repeat(501) })).message.code).toBe(1005);
    const team = (await create(a, '输入检查')).data as Team;
    expect((await invite(a, team.id, '')).message.code).toBe(1005);
    expect((await invite(a, team.id, 'no_such_user_here')).message.message).toContain('username');
    expect((await send('POST', `/teams/${team.id}/members/${a.id}/role`, a, { role: 'owner' })).message.code).toBe(1005);
    expect((await send('GET', '/teams', null)).message.code).toBe(10133);
    expect(((await send('GET', '/teams', a)).data as Team[]).map((x) => x.name)).toEqual(['输入检查']);
  });

  it('permission matrix: each role × each action, allowed or refused (1020 beyond the role, 1205 for non-members)', async () => {
    const { team, owner, admin, member, stranger } = await teamOf();
    const id = team.id;
    const who = { owner, admin, member, stranger };
    type Who = keyof typeof who;
    const code = async (w: Who, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: unknown) => (await send(method, path, who[w], payload)).message.code;

    // Reading: members; a stranger learns nothing (the same answer as a team that does not exist).
    for (const w of ['owner', 'admin', 'member'] as Who[]) expect(await code(w, 'GET', `/teams/${id}`), w).toBe(0);
    const hidden = await detail(stranger, id);
    expect(hidden).toEqual({ message: { code: 1205, message: '团队不存在' }, data: null });
    expect(await detail(stranger, 'no-such-team')).toEqual(hidden);
    // Pending invitations: owners and admins see them, members see none.
    const extra = await user('extra');
    const inv = (await invite(admin, id, extra.username)).data as TeamInvitation;
    expect(((await detail(owner, id)).data as TeamDetail).invitations.map((i) => i.id)).toEqual([inv.id]);
    expect(((await detail(admin, id)).data as TeamDetail).invitations.map((i) => i.id)).toEqual([inv.id]);
    expect(((await detail(member, id)).data as TeamDetail).invitations).toEqual([]);

    // Every action on the team: who is allowed (0), who is refused and how.
    const matrix: [string, 'POST' | 'DELETE', string, unknown, Record<Who, number>][] = [
      ['rename', 'POST', `/teams/${id}/update`, { name: '改名', description: '' }, { owner: 0, admin: 0, member: 1020, stranger: 1205 }],
      ['invite', 'POST', `/teams/${id}/invitations`, () => ({ username: '' }), { owner: 0, admin: 0, member: 1020, stranger: 1205 }],
      ['setRole', 'POST', `/teams/${id}/members/${member.id}/role`, { role: 'member' }, { owner: 0, admin: 1020, member: 1020, stranger: 1205 }],
      ['transfer', 'POST', `/teams/${id}/transfer`, { userId: 'nobody' }, { owner: 2606, admin: 1020, member: 1020, stranger: 1205 }],
      ['dissolve', 'DELETE', `/teams/${id}`, undefined, { owner: -1, admin: 1020, member: 1020, stranger: 1205 }],
      ['cancel invitation', 'POST', `/invitations/${inv.id}/cancel`, undefined, { owner: -1, admin: -1, member: 1205, stranger: 1205 }],
      ['remove the owner', 'DELETE', `/teams/${id}/members/${owner.id}`, undefined, { owner: 1005, admin: 1020, member: 1020, stranger: 1205 }],
      ['remove an admin', 'DELETE', `/teams/${id}/members/${admin.id}`, undefined, { owner: -1, admin: 1005, member: 1020, stranger: 1205 }],
      ['remove a member', 'DELETE', `/teams/${id}/members/${member.id}`, undefined, { owner: -1, admin: -1, member: 1020, stranger: 1205 }],
      ['leave', 'POST', `/teams/${id}/leave`, undefined, { owner: 2605, admin: -1, member: -1, stranger: 1205 }],
    ];
    for (const [name, method, path, payload, expected] of matrix) {
      for (const w of Object.keys(who) as Who[]) {
        if (expected[w] < 0) continue; // allowed; done once below, since it changes the team
        const p = typeof payload === 'function' ? { username: w === 'stranger' ? extra.username : (await user(`inv${w}`)).username } : payload;
        expect(await code(w, method, path, p), `${name} as ${w}`).toBe(expected[w]);
      }
    }
    // Nothing a refusal touched changed: the roles are as they were, the invitation still waits.
    const after = (await detail(owner, id)).data as TeamDetail;
    expect(after.name).toBe('改名');
    expect(Object.fromEntries(after.members.map((m) => [m.userId, m.role]))).toEqual({ [owner.id]: 'owner', [admin.id]: 'admin', [member.id]: 'member' });
    expect(after.invitations.map((i) => i.inviteeId)).toContain(extra.id);

    // The allowed actions that change the team: an admin withdraws, removes a member; the owner removes an admin.
    expect(await code('admin', 'POST', `/invitations/${inv.id}/cancel`)).toBe(0);
    expect(await code('owner', 'POST', `/invitations/${inv.id}/cancel`)).toBe(2604);
    expect(await code('admin', 'DELETE', `/teams/${id}/members/${member.id}`)).toBe(0);
    expect(await code('member', 'GET', `/teams/${id}`)).toBe(1205);
    expect(await code('owner', 'DELETE', `/teams/${id}/members/${admin.id}`)).toBe(0);
    expect(((await detail(owner, id)).data as TeamDetail).members.map((m) => m.userId)).toEqual([owner.id]);
    expect((await messages(member))[0]).toMatchObject({ type: 'team', title: `您已被移出团队「改名」` });
    // An admin may not remove another admin; the owner may.
    const { team: t2, owner: o2, admin: a2 } = await teamOf();
    const a3 = await user('adm3');
    await accept(a3, ((await invite(o2, t2.id, a3.username)).data as TeamInvitation).id);
    await send('POST', `/teams/${t2.id}/members/${a3.id}/role`, o2, { role: 'admin' });
    expect((await send('DELETE', `/teams/${t2.id}/members/${a3.id}`, a2)).message.code).toBe(1020);
    // Dissolving: the owner only; afterwards nobody sees it.
    expect(await code('owner', 'DELETE', `/teams/${id}`)).toBe(0);
    expect(await code('owner', 'GET', `/teams/${id}`)).toBe(1205);
    expect(((await send('GET', '/teams', owner)).data as Team[]).map((x) => x.id)).not.toContain(id);
  });

  it('members and admins leave; the owner must transfer first', async () => {
    const { team, owner, admin, member } = await teamOf();
    expect((await send('POST', `/teams/${team.id}/leave`, owner)).message).toEqual({ code: 2605, message: '团队所有者需先转让团队才能退出' });
    const seen = await events(() => send('POST', `/teams/${team.id}/leave`, member));
    expect(new Set(seen)).toEqual(new Set([owner.id, admin.id, member.id]));
    expect((await send('GET', '/teams', member)).data).toEqual([]);
    expect((await detail(member, team.id)).message.code).toBe(1205);
    expect((await send('POST', `/teams/${team.id}/leave`, admin)).message.code).toBe(0);
    expect(((await detail(owner, team.id)).data as TeamDetail).memberCount).toBe(1);
  });

  it('transfers ownership to a member: the old owner becomes admin, the new owner is told', async () => {
    const { team, owner, admin, member, stranger } = await teamOf();
    expect((await send('POST', `/teams/${team.id}/transfer`, owner, { userId: stranger.id })).message.code).toBe(2606);
    expect((await send('POST', `/teams/${team.id}/transfer`, owner, { userId: owner.id })).message.code).toBe(1005);
    const res = await send('POST', `/teams/${team.id}/transfer`, owner, { userId: member.id });
    expect(res.message.code, res.message.message).toBe(0);
    expect(res.data).toMatchObject({ ownerId: member.id, ownerName: member.username, myRole: 'admin' });
    const d = (await detail(member, team.id)).data as TeamDetail;
    expect(Object.fromEntries(d.members.map((m) => [m.userId, m.role]))).toEqual({ [owner.id]: 'admin', [admin.id]: 'admin', [member.id]: 'owner' });
    expect((await messages(member))[0]).toMatchObject({ type: 'team', title: `您已成为团队「${team.name}」的所有者` });
    // The old owner now acts as an admin: no more owner-only actions; and may leave.
    expect((await send('POST', `/teams/${team.id}/transfer`, owner, { userId: admin.id })).message.code).toBe(1020);
    expect((await send('DELETE', `/teams/${team.id}`, owner)).message.code).toBe(1020);
    expect((await send('POST', `/teams/${team.id}/leave`, owner)).message.code).toBe(0);
    expect((await send('POST', `/teams/${team.id}/leave`, member)).message.code).toBe(2605);
    // To someone who already owns a team of that name: refused, nothing moved.
    const other = (await create(admin, team.name)).data as Team;
    expect(other.name).toBe(team.name);
    const clash = await send('POST', `/teams/${team.id}/transfer`, member, { userId: admin.id });
    expect(clash.message).toEqual({ code: 2601, message: '对方已有同名团队，请先修改团队名称再转让' });
    expect(((await detail(member, team.id)).data as TeamDetail).ownerId).toBe(member.id);
  });

  it('an invitation arrives as a team message; only the invitee answers it; others see nothing or are refused', async () => {
    const owner = await user('io');
    const [invitee, other] = [await user('iv'), await user('ot')];
    const team = (await create(owner, '邀请测试')).data as Team;
    let inv!: TeamInvitation;
    const seen = await events(async () => {
      inv = (await invite(owner, team.id, invitee.username.toUpperCase())).data as TeamInvitation;
    });
    expect(new Set(seen)).toEqual(new Set([owner.id, invitee.id]));
    expect(inv).toMatchObject({ teamId: team.id, teamName: '邀请测试', inviteeId: invitee.id, inviteeName: invitee.username, inviterName: owner.username, state: 'pending' });
    expect(inv.expireTime - inv.createTime).toBe(TEAM_INVITATION_TTL_MS);
    const [msg] = await messages(invitee);
    expect(msg).toMatchObject({ type: 'team', title: `${owner.username} 邀请您加入团队「邀请测试」`, businessType: TEAM_INVITATION_BUSINESS_TYPE, businessId: inv.id });
    expect((await send('GET', '/invitations', invitee)).data.map((i: TeamInvitation) => i.id)).toEqual([inv.id]);
    expect((await send('GET', `/invitations/${inv.id}`, invitee)).data.state).toBe('pending');
    // Twice to the same user while it waits: refused; to a member: refused.
    expect((await invite(owner, team.id, invitee.username)).message.code).toBe(2603);
    expect((await invite(owner, team.id, owner.username)).message.code).toBe(2602);
    // Someone else: the invitation does not exist for them. The inviting owner reads it but may not answer it.
    expect((await accept(other, inv.id)).message).toEqual({ code: 1205, message: '邀请不存在' });
    expect((await send('POST', `/invitations/${inv.id}/decline`, other)).message.code).toBe(1205);
    expect((await send('GET', `/invitations/${inv.id}`, other)).message.code).toBe(1205);
    expect((await accept(owner, inv.id)).message.code).toBe(1020);
    // The invitee reads it but may not withdraw it.
    expect((await send('POST', `/invitations/${inv.id}/cancel`, invitee)).message.code).toBe(1020);
    expect((await send('POST', `/invitations/${inv.id}/decline`, invitee)).message.code).toBe(0);
    expect((await accept(invitee, inv.id)).message.code).toBe(2604);
    expect((await send('GET', `/invitations/${inv.id}`, invitee)).data.state).toBe('declined');
    expect((await detail(invitee, team.id)).message.code).toBe(1205);
    // Declined: the team may invite again.
    expect((await invite(owner, team.id, invitee.username)).message.code).toBe(0);
  });

  it('an invitation expires after 7 days: it can no longer be accepted, and a new one can be sent', async () => {
    const owner = await user('eo');
    const invitee = await user('ei');
    const team = (await create(owner, '过期测试')).data as Team;
    const inv = (await invite(owner, team.id, invitee.username)).data as TeamInvitation;
    // Sessions end long before a week passes: sign in again after moving the clock.
    const later = async (ms: number) => {
      t.clock.advance(ms);
      for (const u of [owner, invitee]) u.token = (await t.app.ctx.sessions.create(u.id)).token;
    };
    await later(TEAM_INVITATION_TTL_MS - 1000);
    expect((await send('GET', '/invitations', invitee)).data).toHaveLength(1);
    await later(1000);
    expect((await send('GET', '/invitations', invitee)).data).toEqual([]);
    expect((await send('GET', `/invitations/${inv.id}`, invitee)).data.state).toBe('expired');
    expect(((await detail(owner, team.id)).data as TeamDetail).invitations).toEqual([]);
    expect((await accept(invitee, inv.id)).message.code).toBe(2604);
    expect((await detail(invitee, team.id)).message.code).toBe(1205);
    const again = await invite(owner, team.id, invitee.username);
    expect(again.message.code, again.message.message).toBe(0);
    expect((await send('GET', `/invitations/${inv.id}`, invitee)).data.state).toBe('expired');
    expect((await accept(invitee, again.data.id)).message.code).toBe(0);
  });

  it('accepting twice, or twice at once, makes one membership', async () => {
    const owner = await user('co');
    const invitee = await user('ci');
    const team = (await create(owner, '并发测试')).data as Team;
    const inv = (await invite(owner, team.id, invitee.username)).data as TeamInvitation;
    const answers = await Promise.all([accept(invitee, inv.id), accept(invitee, inv.id), accept(invitee, inv.id)]);
    expect(answers.map((a) => a.message.code).sort()).toEqual([0, 2604, 2604]);
    expect((await accept(invitee, inv.id)).message.code).toBe(2604);
    const d = (await detail(owner, team.id)).data as TeamDetail;
    expect(d.members.filter((m) => m.userId === invitee.id)).toHaveLength(1);
    expect(d.memberCount).toBe(2);
    expect(((await send('GET', '/teams', invitee)).data as Team[]).map((x) => [x.id, x.myRole])).toEqual([[team.id, 'member']]);
    // Two admins inviting the same user at once: one invitation.
    const other = await user('cx');
    const both = await Promise.all([invite(owner, team.id, other.username), invite(owner, team.id, other.username)]);
    expect(both.map((b) => b.message.code).sort()).toEqual([0, 2603]);
  });

  it('运营管理 › 团队: operators list every team by name fragment or owner username; anyone else gets 1020 and nothing', async () => {
    const { team, owner, stranger } = await teamOf();
    const op = await user('op');
    await t.app.ctx.access.grant(op.id, 'operator');
    const page = async (u: User, payload: object) => body(await t.app.inject({ method: 'POST', url: `${ADMIN_BASE}/teams/action/page`, headers: { token: u.token }, payload }));
    for (const u of [owner, stranger]) expect(await page(u, { keyword: team.name })).toEqual({ message: { code: 1020, message: '没有权限' }, data: null });

    const byName = await page(op, { keyword: team.name.slice(1).toUpperCase() });
    expect(byName.message.code).toBe(0);
    expect(byName.data.list.map((x: AdminTeam) => x.id)).toContain(team.id);
    expect(byName.data.list.find((x: AdminTeam) => x.id === team.id)).toEqual({
      id: team.id,
      name: team.name,
      description: '一起算',
      ownerId: owner.id,
      ownerUsername: owner.username,
      ownerNickname: '昵称own',
      memberCount: 3,
      createTime: expect.any(Number),
    });
    // The owner's exact username finds their teams; a fragment of it does not (names only match as fragments).
    expect((await page(op, { keyword: owner.username })).data.list.map((x: AdminTeam) => x.id)).toEqual([team.id]);
    expect((await page(op, { keyword: owner.username.slice(0, -1) })).data.total).toBe(0);
    // A LIKE wildcard is a character; newest first over all teams.
    expect((await page(op, { keyword: '%' })).data.total).toBe(0);
    const all = await page(op, { pageNum: 1, pageSize: 100 });
    expect(all.data.total).toBeGreaterThanOrEqual(1);
    const times = all.data.list.map((x: AdminTeam) => x.createTime);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await page(op, { pageSize: 'many' })).message.code).toBe(1005);
  });
});
