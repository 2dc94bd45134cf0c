import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { setNavigate } from '../../app/navigation';
import { Providers } from '../../app/providers';
import { expireSession } from '../../app/session';
import { useUserStore } from '../../app/stores/user-store';
import { LoginPage } from './login-page';

let navigated: string[];
let restoreNavigate: () => void;

beforeEach(() => {
  navigated = [];
  restoreNavigate = setNavigate((to) => navigated.push(to));
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
  window.history.pushState(null, '', '/console/message');
});
afterEach(() => {
  cleanup();
  restoreNavigate();
  vi.restoreAllMocks();
});

function renderLogin(entry: string) {
  const router = createMemoryRouter([{ path: '/login', element: <LoginPage /> }], { initialEntries: [entry] });
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
}

describe('a session ended elsewhere', () => {
  it('is explained on the login page: a password change elsewhere (10307), not just 账号状态已变更', async () => {
    // What the request pipeline does with a 10307 answer.
    expireSession('账号状态已变更，请重新登录', 10307);
    expect(useUserStore.getState().userInfo).toEqual({});
    expect(navigated).toEqual([`/login?redirect=${encodeURIComponent('/message')}&reason=10307`]);

    renderLogin(navigated[0]);
    const alert = await screen.findByTestId('login-session-ended');
    expect(alert.textContent).toContain('密码已在其他地方修改');
    expect(alert.textContent).toContain('请重新登录');
  });

  it('says a timed-out session timed out (10157)', async () => {
    expireSession('登录已过期，请重新登录', 10157);
    renderLogin(navigated[0]);
    expect((await screen.findByTestId('login-session-ended')).textContent).toContain('30 分钟未操作');
  });

  it('shows nothing on a plain visit or an unknown reason', () => {
    renderLogin('/login?reason=abc');
    expect(screen.queryByTestId('login-session-ended')).toBeNull();
  });
});
