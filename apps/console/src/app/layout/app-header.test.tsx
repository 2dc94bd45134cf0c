import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { APP_CLIENT_ID } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import { COMP_POWER_URL, HELP_DOC_URL } from '../config';
import { queryClient } from '../query-client';
import { useUserStore } from '../stores/user-store';
import { AppHeader } from './app-header';

let width = 1440;

/** matchMedia driven by a width the test sets, for min-width / max-width queries. */
function installMatchMedia() {
  vi.stubGlobal('matchMedia', (query: string) => {
    const min = /min-width:\s*(\d+)px/.exec(query);
    const max = /max-width:\s*(\d+)px/.exec(query);
    const matches = (!min || width >= Number(min[1])) && (!max || width <= Number(max[1]));
    return {
      matches,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    };
  });
}

const calls: string[] = [];
let compItems: unknown[] = [];

function envelope(data: unknown) {
  return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), {
    headers: { 'content-type': 'application/json' },
  });
}

function installGateway(compTotal = '12.50', unread = 3) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      calls.push(url);
      if (url.includes('/comp-powers/')) return envelope({ userId: 'u1', total: compTotal, standardTotal: compTotal, items: compItems });
      if (url.includes('/unview/count')) return envelope(unread);
      if (url.includes('/user/logout')) return envelope(null);
      return envelope(null);
    }),
  );
}

function renderHeader(path = '/training') {
  const router = createMemoryRouter(
    [
      {
        // A layout route, as in the console: the header stays mounted while the page below it changes.
        element: (
          <>
            <AppHeader />
            <Outlet />
          </>
        ),
        children: [
          { path: '/training', element: <div>训练任务页</div>, handle: { menuKey: 'training', title: '训练任务' } },
          { path: '/keypair', element: <div>密钥对页</div>, handle: { menuKey: 'keypair', title: '密钥对' } },
          { path: '/resource/dashboard', element: <div>资源大屏页</div>, handle: { menuKey: 'dashboard', title: '资源大屏' } },
        ],
      },
      { path: '*', element: <div>elsewhere</div> },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

beforeEach(() => {
  // The desktop width unless a test says otherwise: a test that narrowed it must not narrow the next one (shuffled
  // order: "highlights the menu group" after a 375 px case found the drawer toggle instead of the menu bar).
  width = 1440;
  calls.length = 0;
  compItems = [];
  queryClient.clear();
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', nickname: '爱丽丝', token: 't1', createTime: 1700000000000, headImage: null });
  installMatchMedia();
  installGateway();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('header', () => {
  it.each([
    [1199, false],
    [1200, true],
    [1600, true],
    [2400, true],
    [992, false],
    [375, false],
  ])('at %i px the title is shown: %s', (w, shown) => {
    width = w;
    renderHeader();
    expect(screen.queryByTestId('header-title') !== null).toBe(shown);
    // The logo is always there.
    expect(screen.getByTestId('header-logo')).toBeTruthy();
  });

  it('shows the unread count, the remaining compute power and the nickname', async () => {
    width = 1440;
    renderHeader();
    await waitFor(() => expect(screen.getByTestId('header-unread').textContent).toBe('3'));
    await waitFor(() => expect(screen.getByTestId('header-comp-power').textContent).toContain('12.50'));
    expect(screen.getByTestId('header-nickname').textContent).toBe('爱丽丝');
    // Counted from the account's creation time.
    const countCall = (fetch as unknown as { mock: { calls: [string, RequestInit][] } }).mock.calls.find(([u]) => u.includes('/unview/count'));
    expect(JSON.parse(String(countCall![1].body))).toEqual({ startTime: 1700000000000 });
  });

  it('refetches compute power every time the avatar menu opens', async () => {
    renderHeader();
    await waitFor(() => expect(calls.filter((u) => u.includes('/comp-powers/u1'))).toHaveLength(1));
    fireEvent.click(screen.getByTestId('header-avatar'));
    await waitFor(() => expect(calls.filter((u) => u.includes('/comp-powers/u1'))).toHaveLength(2));
    expect(await screen.findByTestId('user-menu-profile')).toBeTruthy();
  });

  it('logs out with the client id, forgets the user and goes to /login', async () => {
    const router = renderHeader();
    fireEvent.click(screen.getByTestId('header-avatar'));
    fireEvent.click(await screen.findByTestId('user-menu-logout'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(calls).toContain(`/gateway/user/api/v1/user/logout?appClientId=${APP_CLIENT_ID}`));
    const logoutInit = (fetch as unknown as { mock: { calls: [string, RequestInit][] } }).mock.calls.find(([u]) => u.includes('/logout'))![1];
    expect((logoutInit.headers as Record<string, string>).token).toBe('t1');
    expect(useUserStore.getState().userInfo).toEqual({});
  });

  it('opens the user guide the gateway serves (the configured help URL) in a new window', async () => {
    renderHeader();
    fireEvent.click(screen.getByTestId('header-avatar'));
    const help = await screen.findByTestId('user-menu-help');
    expect(help.getAttribute('target')).toBe('_blank');
    expect(help.getAttribute('rel')).toContain('noopener');
    // No VITE_HELP_URL in the test build: the default is the shipped guide (apps/server/src/plugins/guide.ts).
    expect(HELP_DOC_URL).toBe('/guide/');
    expect(help.getAttribute('href')).toBe(HELP_DOC_URL);
  });

  it('offers the command-line tool: its guide page with the downloads, in a new window', async () => {
    renderHeader();
    fireEvent.click(screen.getByTestId('header-avatar'));
    const cli = await screen.findByTestId('user-menu-cli');
    expect(cli.textContent).toBe('命令行工具');
    expect(cli.getAttribute('href')).toBe('/guide/cli.html');
    expect(cli.getAttribute('target')).toBe('_blank');
  });

  it('剩余算力 shows 标准卡时 and opens 费用明细; its tooltip lists native 卡时 per bucket and links to 购买算力 and the guide', async () => {
    compItems = [
      { id: 'b1', subCenterId: 'sz', subCenterName: '深圳算力分中心', cardTypeId: 'a100', cardTypeName: 'NVIDIA A100 80G', granted: '10.00', remaining: '10.00', expireTime: 1, source: 'order', standardFactor: 1, standardRemaining: '10.00' },
      { id: 'b2', subCenterId: 'gz', subCenterName: '广州算力分中心', cardTypeId: '910b', cardTypeName: '昇腾 910B', granted: '5.00', remaining: '3.13', expireTime: 1, source: 'grant', standardFactor: 0.8, standardRemaining: '2.50' },
    ];
    const router = renderHeader();
    const power = screen.getByTestId('header-comp-power');
    await waitFor(() => expect(power.textContent).toBe('剩余算力12.50标准卡时'));
    expect(power.getAttribute('href')).toBe('/expense');
    expect(power.getAttribute('target')).toBeNull();
    fireEvent.mouseEnter(power);
    const tip = await screen.findByTestId('header-comp-power-breakdown');
    expect(tip.textContent).toContain('深圳算力分中心 · NVIDIA A100 80G：10.00 卡时');
    expect(tip.textContent).not.toContain('10.00 卡时（折合');
    expect(tip.textContent).toContain('广州算力分中心 · 昇腾 910B：3.13 卡时（折合 2.50 标准卡时）');
    expect(tip.textContent).toContain('合计：12.50 标准卡时');
    // Inside the console (its basename), never a bare /pay outside it.
    expect(screen.getByTestId('header-buy-power').getAttribute('href')).toBe('/pay');
    const guide = screen.getByText('算力说明');
    expect(COMP_POWER_URL).toBe('/guide/compute-power.html');
    expect(guide.getAttribute('href')).toBe(COMP_POWER_URL);
    expect(guide.getAttribute('target')).toBe('_blank');
    fireEvent.click(power);
    await waitFor(() => expect(router.state.location.pathname).toBe('/expense'));
  });

  it('with no compute power the tooltip says so', async () => {
    renderHeader();
    fireEvent.mouseEnter(screen.getByTestId('header-comp-power'));
    expect((await screen.findByTestId('header-comp-power-breakdown')).textContent).toContain('暂无可用算力');
  });

  it('goes to the message centre from the bell', async () => {
    const router = renderHeader();
    fireEvent.click(screen.getByTestId('header-bell'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/message'));
  });

  it('goes to the dashboard from the logo', async () => {
    const router = renderHeader();
    fireEvent.click(screen.getByTestId('header-logo'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('highlights the menu group of the current route', () => {
    renderHeader();
    // Entries live in popups that render on open; the group in the bar carries the highlight.
    expect(screen.getByText('AI计算').closest('li')?.className).toContain('ant-menu-submenu-selected');
    expect(screen.getByText('公共服务').closest('li')?.className).not.toContain('ant-menu-submenu-selected');
  });

  it('shows 运营管理 to operators only (roles of the stored user info, or fresher ones already read)', async () => {
    width = 1440;
    renderHeader();
    expect(screen.getByText('AI计算')).toBeTruthy();
    expect(screen.queryByText('运营管理')).toBeNull();
    cleanup();
    useUserStore.getState().setUserInfo({ roles: ['user', 'operator'] });
    width = 375;
    const router = renderHeader();
    fireEvent.click(screen.getByTestId('top-menu-toggle'));
    fireEvent.click(await screen.findByText('运营管理'));
    fireEvent.click(await screen.findByTestId('menu-admin-audit'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/audit-logs'));
    cleanup();
    // A role taken away since login: the account as last read wins over the stored info.
    queryClient.setQueryData(['user', 'current'], { id: 'u1', roles: ['user'] });
    width = 1440;
    renderHeader();
    expect(screen.queryByText('运营管理')).toBeNull();
  });

  it('on a phone opens the menu in a drawer, and choosing an entry navigates and closes it', async () => {
    width = 375;
    const router = renderHeader();
    // No horizontal bar whose popups would open past the screen's edge.
    expect(screen.queryByText('AI计算')).toBeNull();
    fireEvent.click(screen.getByTestId('top-menu-toggle'));
    // The current page's group starts unfolded.
    expect(await screen.findByTestId('menu-training')).toBeTruthy();
    fireEvent.click(screen.getByText('公共服务'));
    fireEvent.click(await screen.findByTestId('menu-keypair'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/keypair'));
    expect(await screen.findByText('密钥对页')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('top-menu-toggle').getAttribute('aria-expanded')).toBe('false'));
    await waitFor(() => expect(document.querySelector('.ant-drawer-open')).toBeNull());
  });

  it('has 资源概览 and 资源大屏 in the menu (算力资源), not only behind the logo', async () => {
    width = 375;
    const router = renderHeader();
    fireEvent.click(screen.getByTestId('top-menu-toggle'));
    fireEvent.click(await screen.findByText('算力资源'));
    expect((await screen.findByTestId('menu-resource')).textContent).toBe('资源概览');
    fireEvent.click(await screen.findByTestId('menu-dashboard'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/resource/dashboard'));
    expect(await screen.findByText('资源大屏页')).toBeTruthy();
  });
});
