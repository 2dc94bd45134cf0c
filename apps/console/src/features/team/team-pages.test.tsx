import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { TeamDetail, TeamInvitation, TeamMember } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { applyLiveEvent } from '../../app/live-updates';
import { queryClient } from '../../app/query-client';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { TeamDetailPage, TeamListPage } from './routes';

/** An in-memory team service behind a stubbed fetch (the rules themselves are in team.api.test.ts). */
function fakeBackend() {
  const teams: TeamDetail[] = [];
  const invitations: TeamInvitation[] = [];
  const calls: { method: string; path: string; body: unknown }[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname.replace('/gateway/team/api/v1', '');
    calls.push({ method, path: p, body });
    // 团队算力 (order module): the team's balance, members' usage this month, its records.
    if (url.pathname.includes('/comp-powers/team/'))
      return ok({
        userId: 'team:t1',
        total: '12.50',
        standardTotal: '12.50',
        items: [{ id: 'b1', subCenterId: 'sz', subCenterName: '深圳算力分中心', cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', granted: '20.00', remaining: '12.50', expireTime: 1_800_000_000_000, source: 'order', standardFactor: 1, standardRemaining: '12.50' }],
      });
    if (url.pathname.endsWith('/records/consume/action/team-usage'))
      return ok({
        month: '2026-11',
        cardTypes: [{ cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G' }],
        members: [
          { userId: 'u1', username: 'alice', total: '0.00', limitCardHours: null, byCardType: [] },
          { userId: 'u3', username: 'dave', total: '7.50', limitCardHours: 10, byCardType: [{ cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', cardHours: '7.50', cardSeconds: 27000 }] },
        ],
      });
    if (url.pathname.endsWith('/records/action/page'))
      return ok({
        list: [{ id: 'r1', taskId: 'k1', taskKind: 'training', taskName: '蛋白折叠', subCenterId: 'sz', subCenterName: '深圳算力分中心', cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', cardNum: 1, nodeNum: 1, billedCards: 1, day: '2026-11-27', startTime: 1, endTime: 2, cardHours: '7.50', cardSeconds: 27000, compPowerId: 'b1', createTime: 1, updateTime: 2, userId: 'u3' }],
        total: 1,
        pageNum: 1,
        pageSize: 10,
      });
    // 共享给团队 (asset module, ADR 0018): one dataset, no model.
    if (url.pathname.endsWith('/datasets/action/team-shared'))
      return ok([{ id: 'd1', kind: 'dataset', name: '蛋白结构库', description: '共享数据', tags: [], license: '', visibility: 'shared', publishState: 'none', publishReason: '', ownerId: 'u2', ownerName: 'bob', mine: false, framework: '', format: '', metrics: {}, versionCount: 1, latestSizeBytes: 10, createTime: 1, updateTime: 2 }]);
    if (url.pathname.endsWith('/models/action/team-shared')) return ok([]);
    if (url.pathname.endsWith('/user/list')) return ok({ list: [{ id: 'u9', username: 'carol', nickname: '卡罗', headImage: null }], total: 1, pageNum: 1, pageSize: 10 });
    if (p === '/teams' && method === 'GET') return ok(teams.map(({ members: _m, invitations: _i, ...t }) => t));
    if (p === '/teams' && method === 'POST') {
      const t = team(`t${teams.length + 1}`, { name: body.name, description: body.description });
      teams.push(t);
      return ok(t);
    }
    if (p === '/invitations') return ok(invitations);
    const inv = /^\/invitations\/([^/]+)\/(accept|decline)$/.exec(p);
    if (inv) {
      const i = invitations.findIndex((x) => x.id === inv[1]);
      const [found] = invitations.splice(i, 1);
      if (inv[2] === 'decline') return ok(null);
      const t = team(found.teamId, { name: found.teamName, myRole: 'member' });
      teams.push(t);
      return ok(t);
    }
    const m = /^\/teams\/([^/]+)(?:\/(.*))?$/.exec(p);
    const t = m && teams.find((x) => x.id === m[1]);
    if (!t) return ok(null, 1205, '团队不存在');
    if (m[2] === 'invitations') return ok({ id: 'i1', teamId: t.id, teamName: t.name, inviteeId: 'u9', inviteeName: body.username, inviterName: 'alice', state: 'pending', createTime: 1, expireTime: 2 });
    if (m[2] === 'leave') {
      teams.splice(teams.indexOf(t), 1);
      return ok(null);
    }
    return ok(t);
  };
  return { teams, invitations, calls, fetch };
}

const member = (userId: string, username: string, role: TeamMember['role']): TeamMember => ({ userId, username, nickname: '', role, joinTime: 1_700_000_000_000 });

function team(id: string, over: Partial<TeamDetail> = {}): TeamDetail {
  const myRole = over.myRole ?? 'owner';
  return {
    id,
    name: '课题组',
    description: '',
    ownerId: myRole === 'owner' ? 'u1' : 'u2',
    ownerName: myRole === 'owner' ? 'alice' : 'bob',
    myRole,
    memberCount: 3,
    createTime: 1_700_000_000_000,
    members: myRole === 'owner' ? [member('u1', 'alice', 'owner'), member('u2', 'bob', 'admin'), member('u3', 'dave', 'member')] : [member('u2', 'bob', 'owner'), member('u1', 'alice', myRole), member('u3', 'dave', 'member')],
    invitations: [],
    areas: [{ subCenterId: 'sz', subCenterName: '深圳算力分中心', path: `/storage/sz/teams/${id}` }],
    ...over,
  };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

const renderAt = (url: string) => renderRoutes({ '/team': <TeamListPage />, '/team/detail/:id': <TeamDetailPage /> }, url);

describe('team list', () => {
  it('shows my teams with my role and member count, and invitations waiting for me with 接受 / 拒绝; accepting opens the team', async () => {
    backend.teams.push(team('t1', { name: '蛋白质组' }), team('t2', { name: '材料组', myRole: 'member' }));
    backend.invitations.push({ id: 'i1', teamId: 't3', teamName: '气象组', inviteeId: 'u1', inviteeName: 'alice', inviterName: 'erin', state: 'pending', createTime: 1, expireTime: 1_800_000_000_000 });
    const router = renderAt('/team');
    await waitFor(() => expect(screen.getAllByTestId('team-row')).toHaveLength(2));
    const [r1, r2] = screen.getAllByTestId('team-row');
    expect(within(r1).getByTestId('team-link').textContent).toBe('蛋白质组');
    expect(within(r1).getByTestId('team-role').textContent).toBe('所有者');
    expect(within(r1).getByTestId('team-meta').textContent).toContain('3 名成员');
    expect(within(r2).getByTestId('team-role').textContent).toBe('成员');
    const inv = await screen.findByTestId('team-invitation');
    expect(inv.textContent).toContain('气象组');
    expect(inv.textContent).toContain('erin 邀请您加入');
    fireEvent.click(within(inv).getByTestId('team-invitation-accept'));
    await waitFor(() => expect(backend.calls.some((c) => c.path === '/invitations/i1/accept' && c.method === 'POST')).toBe(true));
    await waitFor(() => expect(router.state.location.pathname).toBe('/team/detail/t3'));
  });

  it('creates a team from the dialog and opens it', async () => {
    const router = renderAt('/team');
    expect(await screen.findByText('您还没有加入任何团队')).toBeTruthy();
    fireEvent.click(screen.getByTestId('team-create'));
    fireEvent.change(await screen.findByTestId('team-name'), { target: { value: '  新团队 ' } });
    fireEvent.click(screen.getByTestId('team-create-ok'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/team/detail/t1'));
    expect(backend.calls.find((c) => c.path === '/teams' && c.method === 'POST')?.body).toEqual({ name: '新团队', description: '' });
  });
});

describe('team detail', () => {
  it('gives the owner role, transfer and remove on others, invite and dissolve; no remove on themself', async () => {
    backend.teams.push(team('t1'));
    renderAt('/team/detail/t1');
    await waitFor(() => expect(screen.getAllByTestId('team-member')).toHaveLength(3));
    const [me, admin, plain] = screen.getAllByTestId('team-member');
    expect(within(me).queryByTestId('team-member-remove')).toBeNull();
    expect(within(me).queryByTestId('team-member-transfer')).toBeNull();
    for (const row of [admin, plain]) {
      expect(within(row).getByTestId('team-member-remove')).toBeTruthy();
      expect(within(row).getByTestId('team-member-transfer')).toBeTruthy();
    }
    expect(screen.getByTestId('team-dissolve')).toBeTruthy();
    expect(screen.queryByTestId('team-leave')).toBeNull();
    expect(screen.getByText('待回应的邀请')).toBeTruthy();
  });

  it('gives an admin remove on members only, invite, and leave instead of dissolve', async () => {
    backend.teams.push(team('t1', { myRole: 'admin' }));
    renderAt('/team/detail/t1');
    await waitFor(() => expect(screen.getAllByTestId('team-member')).toHaveLength(3));
    const [owner, me, plain] = screen.getAllByTestId('team-member');
    expect(within(owner).queryByTestId('team-member-remove')).toBeNull();
    expect(within(me).queryByTestId('team-member-remove')).toBeNull();
    expect(within(plain).getByTestId('team-member-remove')).toBeTruthy();
    expect(screen.queryByTestId('team-member-transfer')).toBeNull();
    expect(screen.queryByTestId('team-member-role')).toBeNull();
    expect(screen.getByTestId('team-invite')).toBeTruthy();
    expect(screen.getByTestId('team-leave')).toBeTruthy();
    expect(screen.queryByTestId('team-dissolve')).toBeNull();
  });

  it('a member reads the team and may only leave (with a confirmation), then is back on the list', async () => {
    backend.teams.push(team('t1', { myRole: 'member' }));
    const router = renderAt('/team/detail/t1');
    await waitFor(() => expect(screen.getAllByTestId('team-member')).toHaveLength(3));
    expect(screen.queryByTestId('team-invite')).toBeNull();
    expect(screen.queryByTestId('team-member-remove')).toBeNull();
    expect(screen.queryByText('待回应的邀请')).toBeNull();
    fireEvent.click(screen.getByTestId('team-leave'));
    fireEvent.click(await screen.findByRole('button', { name: /^退\s?出$/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/team'));
    expect(backend.calls.some((c) => c.path === '/teams/t1/leave')).toBe(true);
  });

  it('invites a user found by the search', async () => {
    backend.teams.push(team('t1'));
    renderAt('/team/detail/t1');
    fireEvent.click(await screen.findByTestId('team-invite'));
    const select = (await screen.findByTestId('team-invite-user')).querySelector('input')!;
    fireEvent.change(select, { target: { value: 'car' } });
    fireEvent.click(await screen.findByText('卡罗（carol）', {}, { timeout: 3000 }));
    fireEvent.click(screen.getByTestId('team-invite-ok'));
    await waitFor(() => expect(backend.calls.find((c) => c.path === '/teams/t1/invitations')?.body).toEqual({ username: 'carol' }));
  });

  it('shows the team\'s compute power, members\' usage this month with limits, and records naming who ran them; the owner sets a limit', async () => {
    backend.teams.push(team('t1'));
    renderAt('/team/detail/t1');
    expect((await screen.findByTestId('team-balance')).textContent).toContain('12.50');
    expect(screen.getByText(/剩余 12.50 卡时/)).toBeTruthy();
    expect(screen.getByTestId('team-buy').getAttribute('href')).toBe('/pay?teamId=t1');
    const table = await screen.findByTestId('team-usage-table');
    expect(table.textContent).toContain('7.50');
    expect(await screen.findByTestId('team-usage-chart')).toBeTruthy();
    const record = await screen.findByTestId('team-record');
    expect(record.textContent).toContain('蛋白折叠');
    expect(record.textContent).toContain('dave');
    const inputs = within(table).getAllByTestId('team-limit-input');
    expect(inputs).toHaveLength(2);
    fireEvent.change(inputs[0].querySelector('input') ?? inputs[0], { target: { value: '5' } });
    fireEvent.click(within(table).getAllByTestId('team-limit-save')[0]);
    await waitFor(() => expect(backend.calls.find((c) => c.path === '/teams/t1/members/u1/limit')?.body).toEqual({ cardHours: 5 }));
  });

  it('lists the datasets and models shared with the team (linking to them) and the team folder on each center', async () => {
    backend.teams.push(team('t1', { myRole: 'member' }));
    renderAt('/team/detail/t1');
    const item = await screen.findByTestId('team-shared-dataset');
    expect(item.textContent).toContain('蛋白结构库');
    expect(item.textContent).toContain('所有者 bob');
    expect(within(item).getByRole('link').getAttribute('href')).toBe('/dataset/detail/d1');
    expect(screen.getByText('暂无共享给团队的模型')).toBeTruthy();
    expect(backend.calls.some((c) => c.path.endsWith('/datasets/action/team-shared'))).toBe(true);
    const areas = screen.getByTestId('team-areas');
    expect(areas.textContent).toContain('深圳算力分中心');
    expect(within(areas).getByTestId('team-area-path').textContent).toContain('/storage/sz/teams/t1');
    // 在存储管理中打开: 存储管理 on that center, switched to the team's folder.
    expect(within(areas).getAllByTestId('team-area-open')[0].getAttribute('href')).toBe('/storage?center=sz&space=team%3At1');
  });

  it('a member sees the limits but cannot change them', async () => {
    backend.teams.push(team('t1', { myRole: 'member' }));
    renderAt('/team/detail/t1');
    const table = await screen.findByTestId('team-usage-table');
    expect(table.textContent).toContain('10 卡时');
    expect(table.textContent).toContain('不限');
    expect(within(table).queryByTestId('team-limit-input')).toBeNull();
    expect(screen.queryByTestId('team-buy')).toBeNull();
  });

  it('says so when the team does not exist or the caller is not a member, and a live event re-reads the team', async () => {
    renderAt('/team/detail/nope');
    expect(await screen.findByText('无法打开此团队')).toBeTruthy();
    expect(screen.getAllByText('团队不存在').length).toBeGreaterThan(0);
    // Accepted meanwhile (team.changed reaches the new member): the open page reads the team again.
    backend.teams.push(team('nope', { name: '刚加入', myRole: 'member' }));
    applyLiveEvent(queryClient, { businessType: 'team.changed', data: { teamId: 'nope' } });
    expect(await screen.findByText('刚加入')).toBeTruthy();
  });
});
