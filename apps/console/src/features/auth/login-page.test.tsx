import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import forge from 'node-forge';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../app/providers';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { LoginPage } from './login-page';

let keyPair: forge.pki.rsa.KeyPair;
let loginBody: { account: string; password: string } | undefined;

function envelope(code: number, data: unknown, message = '操作成功') {
  return new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
}

beforeAll(() => {
  keyPair = forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 });
});

beforeEach(() => {
  loginBody = undefined;
  queryClient.clear();
  useUserStore.getState().clearUser();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url.endsWith('/user/rsa-key')) return envelope(0, { publicKey: forge.pki.publicKeyToPem(keyPair.publicKey), keySize: 1024 });
      if (url.endsWith('/user/login')) {
        loginBody = JSON.parse(String(init!.body));
        if (loginBody!.account !== 'demo') return envelope(1024, null, '用户名或密码错误');
        return envelope(0, { id: 'u1', username: 'demo', nickname: '演示用户', phone: null, email: null, headImage: null, createTime: 1, roles: ['user'], token: 'tok-new' });
      }
      return envelope(0, null);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderLogin(entry: string) {
  const router = createMemoryRouter(
    [
      { path: '/login', element: <LoginPage /> },
      { path: '*', element: <div data-testid="landed">landed</div> },
    ],
    { initialEntries: [entry] },
  );
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

function submit(account: string, password: string) {
  fireEvent.change(screen.getByTestId('login-account'), { target: { value: account } });
  fireEvent.change(screen.getByTestId('login-password'), { target: { value: password } });
  fireEvent.click(screen.getByTestId('login-submit'));
}

describe('login page', () => {
  it('sends the password RSA-encrypted, stores the user and returns to the redirect path', async () => {
    const router = renderLogin(`/login?redirect=${encodeURIComponent('/message?x=1')}`);
    submit('demo', 'Demo@123456');
    await waitFor(() => expect(router.state.location.pathname).toBe('/message'));
    expect(router.state.location.search).toBe('?x=1');

    expect(loginBody!.account).toBe('demo');
    expect(loginBody!.password).not.toContain('Demo@123456');
    const decrypted = keyPair.privateKey.decrypt(forge.util.decode64(loginBody!.password), 'RSAES-PKCS1-V1_5');
    expect(decrypted).toBe('Demo@123456');

    expect(useUserStore.getState().userInfo).toMatchObject({ id: 'u1', token: 'tok-new', nickname: '演示用户' });
  });

  it('refuses an outside redirect target and goes home instead', async () => {
    const router = renderLogin(`/login?redirect=${encodeURIComponent('//evil.example.com')}`);
    submit('demo', 'Demo@123456');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('stays on the page with nothing stored when the server refuses the credentials', async () => {
    const router = renderLogin('/login');
    submit('nobody', 'Wrong1234');
    await waitFor(() => expect(loginBody?.account).toBe('nobody'));
    expect(router.state.location.pathname).toBe('/login');
    expect(useUserStore.getState().userInfo).toEqual({});
  });

  it('asks for both fields in Chinese before calling the server', async () => {
    renderLogin('/login');
    fireEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByText('请输入用户名、手机号或邮箱')).toBeTruthy();
    expect(await screen.findByText('请输入密码')).toBeTruthy();
    expect(loginBody).toBeUndefined();
  });

  // The form is the page's own (no antd Form, docs/performance.md): what antd gave it is asserted here.
  it('refuses a blank account, names each field by its label and points it at its message, and focuses it', async () => {
    renderLogin('/login');
    submit('   ', 'Demo@123456');
    const account = screen.getByLabelText('账号');
    expect(account).toBe(screen.getByTestId('login-account'));
    const message = await screen.findByText('请输入用户名、手机号或邮箱');
    expect(message.getAttribute('role')).toBe('alert');
    expect(account.getAttribute('aria-invalid')).toBe('true');
    expect(account.getAttribute('aria-describedby')).toBe(message.id);
    expect(document.activeElement).toBe(account);
    expect(screen.getByLabelText('密码')).toBe(screen.getByTestId('login-password'));
    expect(screen.queryByText('请输入密码')).toBeNull();
    expect(loginBody).toBeUndefined();
    // Typing clears the message as it did with antd's onChange validation.
    fireEvent.change(account, { target: { value: 'demo' } });
    await waitFor(() => expect(screen.queryByText('请输入用户名、手机号或邮箱')).toBeNull());
    expect(account.getAttribute('aria-invalid')).toBe('false');
  });

  it('fills the account passed by registration', () => {
    renderLogin('/login?account=newbie');
    expect((screen.getByTestId('login-account') as HTMLInputElement).value).toBe('newbie');
  });
});
