import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AdminGrant, GrantBody } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, errors, input } from '../../test/ui';
import { AdminGrantsPage } from './routes';

/** 算力发放 behind a stubbed fetch: the server's rules (audit, refusals) are in grant.api.test.ts. */
function fakeBackend() {
  const grants: AdminGrant[] = [];
  const calls: { path: string; body: any }[] = [];
  let roles = ['user', 'operator'];
  const ok = (data: unknown, code = 0, message = '操作成功') => new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const p = new URL(String(input), 'http://localhost').pathname;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ path: p, body });
    if (p.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (p.endsWith('/sub-centers/action/list'))
      return ok([
        { id: 'sz', name: '深圳算力分中心', cardTypes: [{ id: 'a100', name: 'NVIDIA A100 80G' }] },
        { id: 'gz', name: '广州算力分中心', cardTypes: [{ id: '910b', name: '昇腾 910B' }] },
      ]);
    if (p.endsWith('/users/action/page')) {
      const list = ['bob', 'bobby'].filter((u) => u.includes(body.keyword)).map((u) => ({ id: `id-${u}`, username: u, nickname: `${u}昵称`, phone: null, email: null, headImage: null, status: 'active', roles: ['user'], createTime: 1 }));
      return ok({ list, total: list.length, pageNum: 1, pageSize: 8 });
    }
    if (p.endsWith('/comp-powers/grant')) {
      const b = body as GrantBody;
      if (b.teamName && b.teamName !== '蛋白质组') return ok(null, 1205, '团队不存在');
      if (!b.teamName && b.username !== 'bob') return ok(null, 1205, '用户不存在');
      const g: AdminGrant = {
        id: `g${grants.length + 1}`,
        cardHours: `${b.cardHours}.00`,
        compPowerId: 'b1',
        subCenterId: b.subCenterId,
        subCenterName: b.subCenterId === 'gz' ? '广州算力分中心' : '深圳算力分中心',
        cardTypeId: b.cardTypeId,
        cardTypeName: b.cardTypeId === '910b' ? '昇腾 910B' : 'NVIDIA A100 80G',
        reason: b.reason,
        createTime: 1_800_000_000_000,
        userId: 'id-bob',
        username: 'bob',
        nickname: 'bob昵称',
        grantedByName: 'alice',
        expireTime: 1_800_000_000_000 + b.validDays * 86400_000,
        // To a team: the team's payer key and name, no user names.
        ...(b.teamName ? { userId: 'team:tm1', username: '', nickname: '', teamId: 'tm1', teamName: b.teamName } : {}),
      };
      grants.unshift(g);
      return ok(g);
    }
    if (p.endsWith('/comp-powers/grants/action/page')) {
      const rows = grants.filter((g) => !body.username || g.username === body.username);
      return ok({ list: rows, total: rows.length, pageNum: body.pageNum, pageSize: body.pageSize });
    }
    return ok(null, 1404, '未知接口');
  };
  return { grants, calls, fetch, setRoles: (r: string[]) => (roles = r) };
}

let backend: ReturnType<typeof fakeBackend>;
setupPageTests(() => (backend = fakeBackend()));
const renderAt = () => renderRoutes({ '/admin/grants': <AdminGrantsPage /> }, '/admin/grants');
const grantCalls = () => backend.calls.filter((c) => c.path.endsWith('/comp-powers/grant'));

describe('运营管理 › 算力发放', () => {
  it('finds the user, picks the center\'s own card types, confirms and grants once; the list shows it', async () => {
    renderAt();
    await screen.findByTestId('grant-form');
    expect(await screen.findByText('还没有发放过算力')).toBeTruthy();
    fireEvent.change(input('grant-username'), { target: { value: 'bo' } });
    // Suggestions from the user search, after typing stops.
    await waitFor(() => expect(backend.calls.some((c) => c.path.endsWith('/users/action/page') && c.body.keyword === 'bo')).toBe(true), { timeout: 2000 });
    const option = await waitFor(() => {
      const o = [...document.querySelectorAll<HTMLElement>('.ant-select-item-option')].find((x) => x.textContent === 'bob（bob昵称）');
      expect(o).toBeTruthy();
      return o!;
    });
    fireEvent.click(option);
    expect(input('grant-username').value).toBe('bob');
    await choose('grant-center', '广州算力分中心');
    // The card types are the chosen center's (enabled once a center is chosen).
    await waitFor(() => expect(screen.getByTestId('grant-card-type').className).not.toContain('ant-select-disabled'));
    await choose('grant-card-type', '昇腾 910B');
    fireEvent.change(input('grant-hours'), { target: { value: '12' } });
    fireEvent.change(input('grant-days'), { target: { value: '7' } });
    fireEvent.change(input('grant-reason'), { target: { value: ' 比赛奖励 ' } });
    fireEvent.click(screen.getByTestId('grant-submit'));
    const summary = await screen.findByTestId('grant-summary');
    expect(summary.textContent).toContain('bob');
    expect(summary.textContent).toContain('广州算力分中心 · 昇腾 910B');
    expect(summary.textContent).toContain('7 天');
    // Nothing is given before the confirmation.
    expect(grantCalls()).toHaveLength(0);
    fireEvent.click(screen.getByTestId('grant-confirm'));
    await waitFor(() => expect(grantCalls()).toHaveLength(1));
    expect(grantCalls()[0].body).toEqual({ username: 'bob', subCenterId: 'gz', cardTypeId: '910b', cardHours: 12, validDays: 7, reason: '比赛奖励' });
    expect(await screen.findByText('已向 bob 发放 广州算力分中心 昇腾 910B 12.00 卡时')).toBeTruthy();
    const row = await screen.findByTestId('grant-row');
    expect(row.textContent).toContain('广州算力分中心 · 昇腾 910B');
    expect(row.textContent).toContain('比赛奖励');
    expect(within(row).getByTestId('grant-row-user').getAttribute('href')).toBe('/admin/users/id-bob');
    // The form is ready for the next grant.
    await waitFor(() => expect(input('grant-username').value).toBe(''));
  });

  it('发放对象 团队: by the team\'s name (and its owner when names repeat); the list names the team', async () => {
    renderAt();
    await screen.findByTestId('grant-form');
    fireEvent.click(within(screen.getByTestId('grant-to')).getByText('团队'));
    await waitFor(() => expect(screen.queryByTestId('grant-username')).toBeNull());
    // The team's name is required in its place.
    fireEvent.click(screen.getByTestId('grant-submit'));
    await waitFor(() => expect(errors()).toContain('请输入要发放算力的团队名称'));
    expect(errors()).not.toContain('请输入要发放算力的用户名');
    fireEvent.change(input('grant-team-name'), { target: { value: ' 蛋白质组 ' } });
    fireEvent.change(input('grant-team-owner'), { target: { value: 'bob' } });
    await choose('grant-center', '深圳算力分中心');
    await waitFor(() => expect(screen.getByTestId('grant-card-type').className).not.toContain('ant-select-disabled'));
    await choose('grant-card-type', 'NVIDIA A100 80G');
    fireEvent.change(input('grant-hours'), { target: { value: '6' } });
    fireEvent.change(input('grant-reason'), { target: { value: '课题支持' } });
    fireEvent.click(screen.getByTestId('grant-submit'));
    const summary = await screen.findByTestId('grant-summary');
    expect(summary.textContent).toContain('团队「蛋白质组」（所有者 bob）');
    fireEvent.click(screen.getByTestId('grant-confirm'));
    await waitFor(() => expect(grantCalls()).toHaveLength(1));
    expect(grantCalls()[0].body).toEqual({ teamName: '蛋白质组', teamOwner: 'bob', subCenterId: 'sz', cardTypeId: 'a100', cardHours: 6, validDays: 30, reason: '课题支持' });
    expect(await screen.findByText('已向 团队「蛋白质组」（所有者 bob） 发放 深圳算力分中心 NVIDIA A100 80G 6.00 卡时')).toBeTruthy();
    const row = await screen.findByTestId('grant-row');
    expect(within(row).getByTestId('grant-row-team').textContent).toBe('团队：蛋白质组');
    expect(within(row).queryByTestId('grant-row-user')).toBeNull();
  });

  it('asks for every field in Chinese and sends nothing while one is missing', async () => {
    renderAt();
    fireEvent.click(await screen.findByTestId('grant-submit'));
    await waitFor(() => expect(errors()).toEqual(['请输入要发放算力的用户名', '请选择算力分中心', '请选择卡型', `请输入 1 至 100000 的整数卡时`, '请填写发放原因（用户会在消息与赠送记录中看到）']));
    expect(screen.queryByTestId('grant-summary')).toBeNull();
    expect(grantCalls()).toHaveLength(0);
  });

  it('filters the list by username', async () => {
    backend.grants.push({ id: 'g9', cardHours: '3.00', compPowerId: 'b', subCenterId: 'sz', subCenterName: '深圳算力分中心', cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', reason: '补偿', createTime: 1, userId: 'id-carol', username: 'carol', nickname: '', grantedByName: 'alice', expireTime: 2 });
    renderAt();
    expect(await screen.findByTestId('grant-row')).toBeTruthy();
    fireEvent.change(input('grant-list-search'), { target: { value: 'dave' } });
    fireEvent.keyDown(input('grant-list-search'), { key: 'Enter', keyCode: 13 });
    expect(await screen.findByText('该用户没有运营发放的算力')).toBeTruthy();
    expect(backend.calls.filter((c) => c.path.endsWith('/grants/action/page')).at(-1)!.body).toMatchObject({ username: 'dave', pageNum: 1 });
  });

  it('shows the no-permission page to a non-operator without calling the operator routes', async () => {
    backend.setRoles(['user']);
    renderAt();
    expect(await screen.findByText('此页面仅对平台运营人员开放。如需开通，请联系平台管理员。')).toBeTruthy();
    expect(backend.calls.some((c) => c.path.includes('/comp-powers/'))).toBe(false);
  });
});
