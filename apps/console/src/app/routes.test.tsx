import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, matchRoutes, RouterProvider, type RouteObject } from 'react-router';
import { menuFor, menuPath, OPERATOR_MENU, TOP_MENU } from './menu';
import { Providers } from './providers';
import { pageTitle } from './page-title';
import { LAYOUT_ROUTES, menuKeyOf, PLAIN_ROUTES, REDIRECTS, type RouteHandle } from './route-table';
import { buildRoutes } from './routes';
import { useUserStore } from './stores/user-store';
import { IdleSocket } from '../test/idle-socket';

/** Every route of the spec's table (design/console.md), with parameters filled in. */
const SPEC_PATHS: [path: string, menuKey: string][] = [
  ['/training', 'training'],
  ['/training/develop', 'training'],
  ['/training/distributed', 'training'],
  ['/training/task/train', 'training'],
  ['/training/detail/train/42', 'training'],
  ['/storage', 'storage'],
  ['/storage/detail', 'storage'],
  ['/login', 'login'],
  ['/login/register', 'login'],
  ['/login/find', 'login'],
  ['/login/edit', 'login'],
  ['/user-center', 'user-center'],
  ['/image', 'image'],
  ['/image/form', 'image'],
  ['/image/detail/7', 'image'],
  ['/expense', 'expense'],
  ['/order', 'order'],
  ['/keypair', 'keypair'],
  ['/keypair/create', 'keypair'],
  ['/quantum', 'quantum'],
  ['/comming-soon/9', 'comming-soon'],
  ['/message', 'message'],
  ['/resource', 'resource'],
  ['/resource/dashboard', 'dashboard'],
  ['/dashboard', 'dashboard'],
  ['/workorder', 'workorder'],
  ['/workorder/detail/4', 'workorder'],
  ['/dataset', 'dataset'],
  ['/dataset/detail/3', 'dataset'],
  ['/team', 'team'],
  ['/team/detail/5', 'team'],
  ['/model', 'model'],
  ['/model/detail/9', 'model'],
  ['/pay', 'pay'],
  ['/pay/alipay', 'pay'],
  ['/slurm-template', 'slurm-template'],
  ['/slurm-template/eshell', 'eshell'],
  ['/slurm-task', 'slurm-task'],
  ['/slurm-task/task/batch', 'slurm-task'],
  ['/slurm-task/detail/batch/11', 'slurm-task'],
  ['/public-data/dataset', 'public-data'],
  ['/public-data/model', 'public-data'],
  ['/public-data/detail/dataset/2', 'public-data'],
  ['/user-agreement', 'user-agreement'],
  // 运营管理 (design/console.md: /admin, operators only).
  ['/admin/overview', 'admin-overview'],
  ['/admin/users', 'admin-users'],
  ['/admin/users/7', 'admin-users'],
  ['/admin/reviews', 'admin-reviews'],
  ['/admin/grants', 'admin-grants'],
  ['/admin/reconcile', 'admin-reconcile'],
  ['/admin/audit-logs', 'admin-audit'],
];

const routes = buildRoutes();

function leaf(path: string): RouteObject | undefined {
  const matches = matchRoutes(routes, path);
  return matches?.[matches.length - 1]?.route;
}

describe('route table', () => {
  it.each(SPEC_PATHS)('%s resolves to a lazy page (menu key %s)', async (path, menuKey) => {
    const route = leaf(path);
    expect(route?.path).not.toBe('*');
    expect(typeof route?.lazy).toBe('function');
    expect((route?.handle as RouteHandle).menuKey).toBe(menuKey);
    const loaded = await (route!.lazy as () => Promise<{ Component?: unknown }>)();
    expect(typeof loaded.Component).toBe('function');
  });

  it('loads the page of every route in the table', async () => {
    for (const r of [...LAYOUT_ROUTES, ...PLAIN_ROUTES]) {
      const route = leaf(r.path);
      expect(route?.path, r.path).toBe(r.path);
      const loaded = await (route!.lazy as () => Promise<{ Component?: unknown }>)();
      expect(typeof loaded.Component, `${r.group}.${r.page}`).toBe('function');
    }
  });

  it('sends unknown paths to the catch-all', () => {
    expect(leaf('/no/such/page')?.path).toBe('*');
    expect(leaf('/trainingx')?.path).toBe('*');
  });

  it('derives menu keys from the first path segment unless set', () => {
    expect(menuKeyOf({ path: '/training/detail/:type/:id' })).toBe('training');
    expect(menuKeyOf({ path: '/slurm-template/eshell', menuKey: 'eshell' })).toBe('eshell');
  });

  it('adds 运营管理 to the menu of operators only', () => {
    expect(menuFor(false)).toBe(TOP_MENU);
    expect(menuFor(true).map((g) => g.label)).toEqual([...TOP_MENU.map((g) => g.label), '运营管理']);
    expect(menuPath('admin-users')).toBe('/admin/users');
    // 工单系统 under 运营管理 opens everyone's work orders.
    expect(menuPath('workorder')).toBe('/workorder?tab=all');
    expect(leaf('/admin')?.path).toBe('/admin');
  });

  it('sends unknown menu keys to team management', () => {
    expect(menuPath('storage')).toBe('/storage');
    expect(menuPath('eshell')).toBe('/slurm-template/eshell');
    expect(menuPath('whatever')).toBe('/team');
  });
});

describe('page titles', () => {
  it('gives every route of the table its own Chinese title', () => {
    for (const route of [...LAYOUT_ROUTES, ...PLAIN_ROUTES]) {
      expect(route.title, route.path).toMatch(/^[\u4e00-\u9fa5A-Za-z]+$/);
      expect(pageTitle(route.title)).toBe(`${route.title} - 算力调度服务平台`);
    }
    expect(pageTitle()).toBe('算力调度服务平台');
  });

  it('titles the page a menu entry opens like the entry (费用明细 is not 费用中心)', () => {
    for (const entry of [...TOP_MENU, OPERATOR_MENU].flatMap((g) => g.children)) {
      const path = entry.path.split('?')[0];
      const target = REDIRECTS.find((r) => r.path === path)?.to ?? path;
      const route = LAYOUT_ROUTES.find((r) => r.path === target);
      expect(route?.title, entry.path).toBe(entry.label);
    }
  });
});

describe('navigation through the real route table', () => {
  beforeAll(() => {
    vi.stubGlobal('WebSocket', IdleSocket);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const data = url.includes('/comp-powers/') ? { userId: 'u1', total: '0.00', items: [] } : url.includes('/unview/count') ? 0 : [];
        return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), {
          headers: { 'content-type': 'application/json' },
        });
      }),
    );
  });
  afterAll(() => vi.unstubAllGlobals());
  beforeEach(() => useUserStore.getState().clearUser());
  afterEach(() => cleanup());

  function renderAt(path: string) {
    const router = createMemoryRouter(buildRoutes(), { initialEntries: [path] });
    render(
      <Providers>
        <RouterProvider router={router} />
      </Providers>,
    );
    return router;
  }

  it('lands a signed-in user on an unknown path at / and then /training', async () => {
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1 });
    const router = renderAt('/no/such/page');
    await waitFor(() => expect(router.state.location.pathname).toBe('/training'));
    expect(await screen.findByTestId('training-create')).toBeTruthy();
    expect(screen.getByTestId('app-header')).toBeTruthy();
  });

  it('forwards /public-data to its dataset tab', async () => {
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1 });
    const router = renderAt('/public-data');
    await waitFor(() => expect(router.state.location.pathname).toBe('/public-data/dataset'));
  });

  it('sends a visitor without a session to login, keeping where they wanted to go', async () => {
    const router = renderAt('/message');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe(`?redirect=${encodeURIComponent('/message')}`);
    expect(await screen.findByTestId('login-submit')).toBeTruthy();
  });

  it('shows the quantum coming-soon page', async () => {
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1 });
    renderAt('/quantum');
    expect(await screen.findByTestId('coming-soon')).toBeTruthy();
  });

  it('names the browser tab after the page, the same way on every page', async () => {
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1 });
    const router = renderAt('/quantum');
    await waitFor(() => expect(document.title).toBe('量子计算云平台 - 算力调度服务平台'));
    await router.navigate('/public-data/detail/dataset/2');
    await waitFor(() => expect(document.title).toBe('公共资源详情 - 算力调度服务平台'));
    cleanup();
    useUserStore.getState().clearUser();
    renderAt('/login/register');
    await waitFor(() => expect(document.title).toBe('注册 - 算力调度服务平台'));
  });
});
