import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { ESHELL_BASE, USER_BASE, type ShellCenterList } from '@suanli/contracts';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Providers } from '../../app/providers';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { IdleSocket } from '../../test/idle-socket';
import { EshellPage } from './routes';

/** The gateway's answers for the page's calls (no terminal is opened: no center offers one here). */
function stubGateway(centers: ShellCenterList) {
  const answer = (data: unknown) => new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://console.test');
      if (url.pathname === `${ESHELL_BASE}/centers`) return answer(centers);
      if (url.pathname === `${ESHELL_BASE}/session/page`) return answer({ list: [], total: 0, pageNum: 1, pageSize: 10 });
      if (url.pathname === `${USER_BASE}/user`) return answer({ id: 'u1', username: 'alice', nickname: '', phone: null, email: null, headImage: null, createTime: 1, roles: ['user'] });
      return new Response('not found', { status: 404 });
    }),
  );
}

function renderPage() {
  const router = createMemoryRouter([{ path: '/slurm-template/eshell', element: <EshellPage /> }], { initialEntries: ['/slurm-template/eshell'] });
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
}

beforeEach(() => {
  queryClient.clear();
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Shell工具 page', () => {
  it('says why no terminal is offered when the gateway is not bound to loopback', async () => {
    stubGateway([
      { centerId: 'sz', centerName: '深圳算力分中心', transport: 'none', note: '本地终端未开启：仅在管理员为单用户本机部署明确开启时提供' },
    ]);
    renderPage();
    const note = await screen.findByTestId('eshell-note');
    expect(note.textContent).toContain('当前没有可用的终端');
    expect(note.textContent).toContain('深圳算力分中心：本地终端未开启：仅在管理员为单用户本机部署明确开启时提供');
    await waitFor(() => expect(screen.getByText('没有可用的终端')).toBeTruthy());
    expect(screen.queryByTestId('eshell-terminal')).toBeNull();
    expect(screen.queryByTestId('eshell-local-note')).toBeNull();
    // Not a dead end: what to use instead, and where to ask.
    const instead = screen.getByTestId('eshell-instead');
    expect(instead.textContent).toContain('没有终端也可以');
    expect([...instead.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['存储管理', '/storage'],
      ['任务管理', '/slurm-task'],
      ['提交工单', '/workorder'],
    ]);
  });

  it('says where a local terminal runs in words a user knows (no product jargon such as 嵌入式默认)', async () => {
    vi.stubGlobal('WebSocket', IdleSocket);
    stubGateway([{ centerId: 'sz', centerName: '深圳算力分中心', transport: 'local', note: '终端运行在平台所在的服务器上，在您的主目录中打开' }]);
    renderPage();
    const note = await screen.findByTestId('eshell-local-note');
    expect(note.textContent).toContain('主目录');
    expect(note.textContent).not.toMatch(/嵌入式|默认|本机地址/);
  });
});
