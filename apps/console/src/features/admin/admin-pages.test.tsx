import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AdminTeam, AdminUser, AdminUserDetail, AdminUserTask, AuditEntry } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, input } from '../../test/ui';
import { changeLines } from './admin-view';
import { AdminAuditPage, AdminGrantsPage, AdminTeamsPage, AdminUserDetailPage, AdminUsersPage } from './routes';

const user = (id: string, over: Partial<AdminUser> = {}): AdminUser => ({
  id,
  username: id,
  nickname: `${id}-昵称`,
  phone: '13800000000',
  email: `${id}@example.com`,
  headImage: null,
  status: 'active',
  roles: ['user'],
  createTime: 1_700_000_000_000,
  ...over,
});

/** An in-memory operator console behind a stubbed fetch (the server's rules are in the api tests). */
function fakeBackend() {
  const users = [user('bob'), user('carol', { roles: ['user', 'operator'] })];
  const audit: AuditEntry[] = [];
  const team = (id: string, name: string, owner: string, over: Partial<AdminTeam> = {}): AdminTeam => ({
    id,
    name,
    description: '',
    ownerId: owner,
    ownerUsername: owner,
    ownerNickname: `${owner}-昵称`,
    memberCount: 3,
    createTime: 1_700_000_000_000,
    ...over,
  });
  const teams = [team('t1', '蛋白质组', 'bob', { description: '结构预测' }), team('t2', '气象模拟', 'carol', { memberCount: 1 })];
  const calls: { method: string; path: string; body: any }[] = [];
  // bob's tasks holding cards: one running, one its owner is stopping already.
  const tasks: AdminUserTask[] = [
    { id: 't1', kind: 'training', type: 'train', name: 'resnet-训练', state: 'RUNNING', subCenterId: 'sz', cardTypeId: 'a100', cardNum: 2, nodeNum: 1, startTime: 1_700_000_000_000 },
    { id: 't2', kind: 'slurm', type: 'custom', name: 'wrf-模拟', state: 'STOPPING', subCenterId: 'sz', cardTypeId: 'a100', cardNum: 1, nodeNum: 1, startTime: 1_700_000_000_000 },
  ];
  let roles = ['user', 'operator'];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const p = url.pathname;
    calls.push({ method, path: p, body });
    if (p.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (p.endsWith('/sub-centers/action/list')) return ok([{ id: 'sz', name: '深圳算力分中心', cardTypes: [{ id: 'a100', name: 'NVIDIA A100' }] }]);
    if (!roles.includes('operator') && p.includes('/admin/api/v1/')) return ok(null, 1020, '没有权限');
    if (p.endsWith('/users/action/page')) {
      const k = (body.keyword ?? '').toLowerCase();
      const rows = users.filter((u) => (!k || u.username.includes(k)) && (!body.status || u.status === body.status));
      return ok({ list: rows, total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
    }
    if (p.endsWith('/teams/action/page')) {
      const k = (body.keyword ?? '').toLowerCase();
      const rows = teams.filter((t) => !k || t.name.toLowerCase().includes(k) || t.ownerUsername === body.keyword);
      return ok({ list: rows, total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
    }
    const dissolved = /\/teams\/([^/]+)\/dissolve$/.exec(p);
    if (dissolved) {
      const i = teams.findIndex((t) => t.id === dissolved[1]);
      if (i < 0) return ok(null, 1205, '团队不存在');
      teams.splice(i, 1);
      return ok(null);
    }
    if (p.endsWith('/grants/action/page')) return ok({ list: [], total: 0, pageNum: 1, pageSize: 10 });
    if (p.endsWith('/audit-logs/action/page')) {
      const rows = audit.filter((e) => (!body.target || e.targetId === body.target || e.targetName.includes(body.target)) && (!body.action || e.action === body.action));
      return ok({ list: [...rows].reverse(), total: rows.length, pageNum: 1, pageSize: 10 });
    }
    const stopped = /\/tasks\/(training|slurm)\/([^/]+)\/stop$/.exec(p);
    if (stopped) {
      const i = tasks.findIndex((t) => t.id === stopped[2] && t.kind === stopped[1]);
      if (i < 0) return ok(null, 1205, '任务不存在');
      const [t] = tasks.splice(i, 1);
      return ok({ ...t, state: 'STOPPING', reason: `运营人员停止：${body.reason}` });
    }
    const m = /\/users\/([^/]+)(?:\/(disable|enable))?$/.exec(p);
    const u = m && users.find((x) => x.id === m[1]);
    if (!u) return ok(null, 1205, '用户不存在');
    if (m[2]) {
      const to = m[2] === 'disable' ? 'disabled' : 'active';
      audit.push({
        id: `e${audit.length + 1}`,
        actorKind: 'operator',
        actorId: 'u1',
        actorName: 'alice',
        action: `user.${m[2]}`,
        targetType: 'user',
        targetId: u.id,
        targetName: u.username,
        before: JSON.stringify({ status: u.status }),
        after: JSON.stringify({ status: to }),
        reason: body.reason ?? '',
        ip: '127.0.0.1',
        createTime: 1_700_000_100_000,
      });
      u.status = to;
      return ok(u);
    }
    const detail: AdminUserDetail = {
      ...u,
      clusterAccounts: [{ subCenterId: 'sz', subCenterName: '深圳算力分中心', account: 'acct01', uid: 2001, homeDir: '/home/acct01', status: 'active' }],
      runningTasks: u.id === 'bob' ? [...tasks] : [],
    };
    return ok(detail);
  };
  return {
    fetch,
    calls,
    users,
    audit,
    setRoles: (r: string[]) => (roles = r),
  };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));

const rows = () => screen.queryAllByTestId('admin-user-row');

describe('运营管理 › 用户', () => {
  it('lists and finds users, then disables one after a confirmation with a reason', async () => {
    renderRoutes({ '/admin/users': <AdminUsersPage />, '/admin/users/:id': <AdminUserDetailPage /> }, '/admin/users');
    await waitFor(() => expect(rows().map((r) => r.dataset.username)).toEqual(['bob', 'carol']));
    expect(within(rows()[1]).getByText('运营人员')).toBeTruthy();

    const search = input('admin-user-search');
    fireEvent.change(search, { target: { value: 'bo' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(rows().map((r) => r.dataset.username)).toEqual(['bob']));
    expect(backend.calls.at(-1)!.body).toMatchObject({ keyword: 'bo', pageNum: 1 });

    fireEvent.click(within(rows()[0]).getByTestId('admin-user-toggle'));
    const dialog = await screen.findByTestId('admin-status-modal');
    expect(dialog.textContent).toContain('确定要禁用账号 bob 吗？');
    expect(dialog.textContent).toContain('所有登录会话（包括打开的终端）会立即结束');
    // Nothing happens before the confirmation.
    expect(backend.calls.some((c) => c.path.endsWith('/disable'))).toBe(false);
    fireEvent.change(input('admin-status-reason'), { target: { value: '  冒用他人身份 ' } });
    fireEvent.click(screen.getByTestId('admin-status-confirm'));
    await waitFor(() => expect(rows()[0].dataset.status).toBe('disabled'));
    expect(backend.calls.find((c) => c.path.endsWith('/users/bob/disable'))!.body).toEqual({ reason: '冒用他人身份' });
    expect(within(rows()[0]).getByTestId('admin-user-toggle').textContent).toBe('启 用');

    await choose('admin-user-status-filter', '已禁用');
    await waitFor(() => expect(backend.calls.at(-1)!.body).toMatchObject({ status: 'disabled' }));
  });

  it('shows the detail: contacts, roles, cluster accounts, running tasks and the account\'s audit entries; enables it', async () => {
    backend.users[0].status = 'disabled';
    renderRoutes({ '/admin/users/:id': <AdminUserDetailPage /> }, '/admin/users/bob');
    expect((await screen.findByTestId('admin-user-title')).textContent).toBe('bob');
    const info = screen.getByTestId('admin-user-info');
    for (const text of ['bob-昵称', '13800000000', 'bob@example.com', '普通用户', '已禁用']) expect(info.textContent).toContain(text);
    expect(screen.getByTestId('admin-cluster-account').textContent).toContain('acct01');
    await waitFor(() => expect(document.body.textContent).toContain('NVIDIA A100 × 2'));
    expect(document.body.textContent).toContain('resnet-训练');

    fireEvent.click(screen.getByTestId('admin-user-toggle'));
    expect((await screen.findByTestId('admin-status-modal')).textContent).toContain('确定要启用账号 bob 吗？');
    fireEvent.click(screen.getByTestId('admin-status-confirm'));
    await waitFor(() => expect(screen.getByTestId('admin-user-info').textContent).toContain('正常'));
    // The history re-reads: the enable shows there with its change in words.
    await waitFor(() => expect(screen.getAllByTestId('admin-user-history-row').map((r) => r.dataset.action)).toEqual(['user.enable']));
    expect(screen.getByTestId('admin-user-history-row').textContent).toContain('状态：已禁用 → 正常');
  });

  it('停止 a running task asks for a reason in a confirmation, then the task leaves the list', async () => {
    renderRoutes({ '/admin/users/:id': <AdminUserDetailPage /> }, '/admin/users/bob');
    const taskRows = () => screen.queryAllByTestId('admin-running-task');
    await waitFor(() => expect(taskRows().map((r) => r.dataset.id)).toEqual(['t1', 't2']));
    // One already 停止中 has nothing left to stop.
    expect((within(taskRows()[1]).getByTestId('admin-task-stop') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(taskRows()[0]).getByTestId('admin-task-stop'));
    const modal = await screen.findByTestId('admin-task-stop-modal');
    expect(modal.textContent).toContain('确定要停止 bob 的训练任务「resnet-训练」吗？');
    expect(modal.textContent).toContain('任务所有者会收到消息');
    const confirm = screen.getByTestId('admin-task-stop-confirm') as HTMLButtonElement;
    // No reason, no stop: the button stays disabled, and whitespace is called out.
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input('admin-task-stop-reason'), { target: { value: '   ' } });
    expect(confirm.disabled).toBe(true);
    expect(screen.getByTestId('admin-task-stop-error').textContent).toBe('请填写停止原因');
    fireEvent.change(input('admin-task-stop-reason'), { target: { value: ' 占用资源影响他人 ' } });
    expect(confirm.disabled).toBe(false);
    expect(screen.queryByTestId('admin-task-stop-error')).toBeNull();
    fireEvent.click(confirm);
    await waitFor(() => expect(taskRows().map((r) => r.dataset.id)).toEqual(['t2']));
    const call = backend.calls.find((c) => c.path.endsWith('/stop'))!;
    expect(call).toMatchObject({ method: 'POST', path: '/gateway/admin/api/v1/tasks/training/t1/stop', body: { reason: '占用资源影响他人' } });
    expect(await screen.findByText('正在停止任务「resnet-训练」，调度系统确认后结束')).toBeTruthy();
  });

  it('says 没有权限 to a non-operator who opens the page, and asks nothing of the operator routes', async () => {
    backend.setRoles(['user']);
    renderRoutes({ '/admin/users': <AdminUsersPage />, '/admin/audit-logs': <AdminAuditPage /> }, '/admin/users');
    const denied = await screen.findByTestId('no-permission');
    expect(denied.textContent).toContain('没有权限');
    expect(denied.textContent).toContain('仅对平台运营人员开放');
    expect(backend.calls.some((c) => c.path.includes('/admin/api/v1/'))).toBe(false);
  });

  it('answers an unknown user id with a clear message', async () => {
    renderRoutes({ '/admin/users/:id': <AdminUserDetailPage /> }, '/admin/users/nobody');
    expect(await screen.findByText('无法打开此用户')).toBeTruthy();
    expect(document.body.textContent).toContain('用户不存在');
  });
});

describe('运营管理 › 团队', () => {
  const teamRows = () => screen.queryAllByTestId('admin-team-row');

  it('lists every team with its owner and size, finds one by name, and opens 算力发放 for it', async () => {
    renderRoutes({ '/admin/teams': <AdminTeamsPage />, '/admin/grants': <AdminGrantsPage />, '/admin/users/:id': <AdminUserDetailPage /> }, '/admin/teams');
    await waitFor(() => expect(teamRows().map((r) => r.dataset.id)).toEqual(['t1', 't2']));
    const first = within(teamRows()[0]);
    expect(first.getByTestId('admin-team-name').textContent).toBe('蛋白质组');
    expect(first.getByText('结构预测')).toBeTruthy();
    expect(first.getByTestId('admin-team-owner').textContent).toBe('bob（bob-昵称）');
    expect(first.getByTestId('admin-team-owner').getAttribute('href')).toBe('/admin/users/bob');

    const search = input('admin-team-search');
    fireEvent.change(search, { target: { value: '气象' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(teamRows().map((r) => r.dataset.id)).toEqual(['t2']));
    expect(backend.calls.at(-1)!.body).toMatchObject({ keyword: '气象', pageNum: 1 });

    // 发放算力 opens the grant form for that team: 团队, its name and its owner filled in.
    fireEvent.click(within(teamRows()[0]).getByTestId('admin-team-grant'));
    await screen.findByTestId('grant-form');
    expect(input('grant-team-name').value).toBe('气象模拟');
    expect(input('grant-team-owner').value).toBe('carol');
    expect(screen.queryByTestId('grant-username')).toBeNull();
  });

  it('解散 asks for a reason in a confirmation that says what happens, then the team leaves the list', async () => {
    renderRoutes({ '/admin/teams': <AdminTeamsPage /> }, '/admin/teams');
    await waitFor(() => expect(teamRows().map((r) => r.dataset.id)).toEqual(['t1', 't2']));
    fireEvent.click(within(teamRows()[1]).getByTestId('admin-team-dissolve'));
    const modal = await screen.findByTestId('admin-team-dissolve-modal');
    expect(modal.textContent).toContain('确定要解散 carol 的团队 「气象模拟」（1 名成员）吗？');
    expect(modal.textContent).toContain('团队剩余算力不再可用');
    const confirm = screen.getByTestId('admin-team-dissolve-confirm') as HTMLButtonElement;
    // No reason, no dissolve: the button stays disabled (whitespace does not count).
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input('admin-team-dissolve-reason'), { target: { value: '   ' } });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input('admin-team-dissolve-reason'), { target: { value: ' 长期闲置 ' } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() => expect(teamRows().map((r) => r.dataset.id)).toEqual(['t1']));
    const call = backend.calls.find((c) => c.path.endsWith('/dissolve'))!;
    expect(call).toMatchObject({ method: 'POST', path: '/gateway/admin/api/v1/teams/t2/dissolve', body: { reason: '长期闲置' } });
    expect(await screen.findByText('已解散团队「气象模拟」')).toBeTruthy();
  });

  it('says 没有权限 to a non-operator and asks nothing of the operator routes', async () => {
    backend.setRoles(['user']);
    renderRoutes({ '/admin/teams': <AdminTeamsPage /> }, '/admin/teams');
    expect((await screen.findByTestId('no-permission')).textContent).toContain('仅对平台运营人员开放');
    expect(backend.calls.some((c) => c.path.includes('/admin/api/v1/'))).toBe(false);
  });
});

describe('运营管理 › 审计日志', () => {
  it('lists entries with the change in words, filters by action and target, opened narrowed by ?target=', async () => {
    backend.audit.push(
      { id: 'e1', actorKind: 'command', actorId: null, actorName: 'root@host', action: 'role.grant', targetType: 'user', targetId: 'carol', targetName: 'carol', before: '{"roles":["user"]}', after: '{"roles":["user","operator"]}', reason: '', ip: null, createTime: 1 },
      { id: 'e2', actorKind: 'operator', actorId: 'u1', actorName: 'alice', action: 'user.disable', targetType: 'user', targetId: 'bob', targetName: 'bob', before: '{"status":"active"}', after: '{"status":"disabled"}', reason: '', ip: '10.0.0.1', createTime: 2 },
    );
    renderRoutes({ '/admin/audit-logs': <AdminAuditPage /> }, '/admin/audit-logs?target=carol');
    await waitFor(() => expect(screen.getAllByTestId('audit-row').map((r) => r.dataset.id)).toEqual(['e1']));
    const row = screen.getByTestId('audit-row');
    expect(row.textContent).toContain('服务器命令');
    expect(row.textContent).toContain('授予角色');
    expect(row.textContent).toContain('角色：普通用户 → 普通用户、运营人员');

    const target = input('audit-target');
    fireEvent.change(target, { target: { value: '' } });
    fireEvent.keyDown(target, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(screen.getAllByTestId('audit-row').map((r) => r.dataset.id)).toEqual(['e2', 'e1']));
    await choose('audit-action-filter', '禁用账号');
    await waitFor(() => expect(screen.getAllByTestId('audit-row').map((r) => r.dataset.id)).toEqual(['e2']));
    expect(backend.calls.at(-1)!.body).toMatchObject({ action: 'user.disable', pageNum: 1 });
    // Read-only: the page offers no way to change an entry.
    expect(screen.queryByRole('button', { name: /删除|编辑|修改/ })).toBeNull();
  });

  it('describes changes field by field', () => {
    expect(changeLines({ before: '{"status":"active"}', after: '{"status":"disabled"}' })).toEqual(['状态：正常 → 已禁用']);
    expect(changeLines({ before: null, after: '{"remaining":"10.00"}' })).toEqual(['remaining：— → 10.00']);
    expect(changeLines({ before: '{"a":1}', after: '{"a":1}' })).toEqual([]);
    // An operator's stop: the task's state by its Chinese name; the unchanged owner and kind are left out.
    expect(changeLines({ before: '{"taskState":"RUNNING","kind":"training","ownerId":"bob"}', after: '{"taskState":"STOPPING","kind":"training","ownerId":"bob"}' })).toEqual(['任务状态：运行中 → 停止中']);
    // The server command's RSA key rotation and retirement (rsaKey.rotate / rsaKey.retire).
    expect(changeLines({ before: '{"servedKey":"k1"}', after: '{"servedKey":"k2"}' })).toEqual(['下发的密钥：k1 → k2']);
    expect(changeLines({ before: '{"servedKey":null}', after: '{"servedKey":"k2"}' })).toEqual(['下发的密钥：（无） → k2']);
    expect(changeLines({ before: '{"keyState":"active"}', after: '{"keyState":"retired"}' })).toEqual(['密钥状态：未下发，仍可解密 → 已停用']);
  });
});
