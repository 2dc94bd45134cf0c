import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AdminOverview } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { setupPageTests } from '../../test/page-test';
import { AdminOverviewPage } from './routes';

/** The overview the stubbed gateway answers for `days`: every day zero but the last, which has some of each. */
function overview(days: number): AdminOverview {
  return {
    users: { total: 42, active: 40, disabled: 2, newLast7Days: 5 },
    centers: [
      {
        id: 'sz',
        name: '深圳算力分中心',
        status: 'online',
        runningTasks: 3,
        cardTypes: [
          { id: 'a100', name: 'NVIDIA A100', accelerator: true, runningTasks: 2, cardsInUse: 6, totalCards: 16 },
          { id: 'cpu', name: 'CPU 通用型', accelerator: false, runningTasks: 1, cardsInUse: 8, totalCards: 64 },
        ],
      },
      {
        id: 'gz',
        name: '广州算力分中心',
        status: 'maintenance',
        runningTasks: 1,
        cardTypes: [{ id: '910b', name: '昇腾 910B', accelerator: true, runningTasks: 1, cardsInUse: 2, totalCards: 8 }],
      },
    ],
    days: Array.from({ length: days }, (_, i) => ({
      day: new Date(Date.UTC(2026, 10, 27) - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
      soldCardSeconds: i === days - 1 ? 10 * 3600 : 0,
      grantedCardSeconds: i === days - 1 ? 12 * 3600 : 0,
      consumedCardSeconds: i === days - 1 ? 5400 : 0,
    })),
    time: 1_764_200_000_000,
  };
}

/** Roles are read on each call: a test sets `roles` after the backend is made (beforeEach). */
function fakeBackend() {
  const calls: string[] = [];
  const ok = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://localhost');
    calls.push(url.pathname + url.search);
    if (url.pathname.endsWith('/user/api/v1/user')) return ok({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles });
    if (url.pathname.endsWith('/admin/api/v1/overview')) return ok(overview(Number(url.searchParams.get('days'))));
    return ok(null, 1205, '不存在');
  };
  return { fetch, calls };
}

let backend: ReturnType<typeof fakeBackend>;
let roles = ['user', 'operator'];
setupPageTests(() => (backend = fakeBackend()));

describe('运营管理 › 平台概览', () => {
  it('shows users, running tasks, cards in use per center and the per-day card-hours; the range switches 7/30/90', async () => {
    roles = ['user', 'operator'];
    renderRoutes({ '/admin/overview': <AdminOverviewPage /> }, '/admin/overview');
    const users = await screen.findByTestId('overview-users');
    expect(users.textContent).toContain('42');
    expect(users.textContent).toContain('正常 40 · 已禁用 2 · 近 7 天新增 5');
    expect(screen.getByTestId('overview-running').textContent).toContain('4');
    // Accelerator cards only: 6 + 2 of 16 + 8; the CPU type's cores are not cards.
    expect(screen.getByTestId('overview-cards').textContent).toMatch(/8\s*\/ 24 张/);

    const sz = screen.getAllByTestId('overview-center').find((c) => c.dataset.id === 'sz')!;
    expect(sz.textContent).toContain('运行中 3 个任务');
    const usage = within(sz).getAllByTestId('overview-card-usage').map((e) => e.textContent);
    expect(usage).toEqual(['在用 6 / 16 张', '在用 8 / 64 核']);
    const gz = screen.getAllByTestId('overview-center').find((c) => c.dataset.id === 'gz')!;
    expect(within(gz).getByTestId('center-status').textContent).toBe('维护');

    expect(screen.getByTestId('overview-chart').dataset.days).toBe('30');
    expect(screen.getByTestId('overview-sums').textContent).toBe('售出卡时合计 10.00赠送卡时合计 12.00消耗卡时合计 1.50');
    expect(backend.calls).toContain('/gateway/admin/api/v1/overview?days=30');

    fireEvent.click(within(screen.getByTestId('overview-range')).getByText('近 7 天'));
    await waitFor(() => expect(screen.getByTestId('overview-chart').dataset.days).toBe('7'));
    expect(backend.calls).toContain('/gateway/admin/api/v1/overview?days=7');
    fireEvent.click(within(screen.getByTestId('overview-range')).getByText('近 90 天'));
    await waitFor(() => expect(screen.getByTestId('overview-chart').dataset.days).toBe('90'));
  });

  it('shows the no-permission page to a user who is not an operator, without calling the overview', async () => {
    roles = ['user'];
    renderRoutes({ '/admin/overview': <AdminOverviewPage /> }, '/admin/overview');
    expect(await screen.findByText('此页面仅对平台运营人员开放。如需开通，请联系平台管理员。')).toBeTruthy();
    expect(backend.calls.some((c) => c.includes('/overview'))).toBe(false);
  });
});
