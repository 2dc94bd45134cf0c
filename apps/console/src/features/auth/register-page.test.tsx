import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import forge from 'node-forge';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../app/providers';
import { RegisterPage } from './register-page';

let publicPem: string;
let requests: { url: string; body: any }[];

function envelope(code: number, data: unknown, message = '操作成功') {
  return new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
}

beforeAll(() => {
  publicPem = forge.pki.publicKeyToPem(forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 }).publicKey);
});
beforeEach(() => {
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      requests.push({ url, body });
      if (url.endsWith('/check_status/user')) return envelope(0, { exists: body.value === 'taken_name' });
      if (url.endsWith('/user/rsa-key')) return envelope(0, { publicKey: publicPem, keySize: 1024 });
      if (url.endsWith('/user/register')) return envelope(0, { id: 'u9', username: body.username });
      return envelope(0, null);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function renderRegister() {
  const router = createMemoryRouter(
    [
      { path: '/login/register', element: <RegisterPage /> },
      { path: '*', element: <div>elsewhere</div> },
    ],
    { initialEntries: ['/login/register'] },
  );
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

const type = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });

describe('register page', () => {
  it('tells the user a username is taken when leaving the field', async () => {
    renderRegister();
    type('reg-username', 'taken_name');
    fireEvent.blur(screen.getByTestId('reg-username'));
    expect(await screen.findByText('该用户名已被注册')).toBeTruthy();
    expect(requests.find((r) => r.url.endsWith('/check_status/user'))!.body).toEqual({ field: 'username', value: 'taken_name' });
  });

  it('sends a register code to the email and counts down 60 s', async () => {
    renderRegister();
    type('reg-email', 'new@example.com');
    fireEvent.click(screen.getByTestId('reg-send-code'));
    await waitFor(() => expect(requests.some((r) => r.url.endsWith('/user/code'))).toBe(true));
    expect(requests.find((r) => r.url.endsWith('/user/code'))!.body).toEqual({ scene: 'register', target: 'new@example.com' });
    await waitFor(() => expect(screen.getByTestId('reg-send-code').textContent).toContain('60 秒后重新获取'));
    expect((screen.getByTestId('reg-send-code') as HTMLButtonElement).disabled).toBe(true);
  });

  it('does not send a code to an invalid address', async () => {
    renderRegister();
    type('reg-email', 'not-an-email');
    fireEvent.click(screen.getByTestId('reg-send-code'));
    expect(await screen.findByText('请输入正确的邮箱地址')).toBeTruthy();
    expect(requests.some((r) => r.url.endsWith('/user/code'))).toBe(false);
  });

  it('registers with the encrypted password and goes to login with the username filled', async () => {
    const router = renderRegister();
    type('reg-username', 'new_user');
    type('reg-password', 'Passw0rd!');
    type('reg-confirm', 'Passw0rd!');
    type('reg-email', 'new@example.com');
    type('reg-code', '123456');
    fireEvent.click(screen.getByTestId('reg-agreement'));
    await act(async () => fireEvent.click(screen.getByTestId('reg-submit')));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe('?account=new_user');
    const body = requests.find((r) => r.url.endsWith('/user/register'))!.body;
    expect(body).toMatchObject({ username: 'new_user', email: 'new@example.com', code: '123456', agreement: true });
    expect(body.password).not.toBe('Passw0rd!');
    expect(body.phone).toBeUndefined();
  });

  it('asks for every empty field in Chinese, naming it (no field key leaks)', async () => {
    renderRegister();
    fireEvent.click(screen.getByTestId('reg-submit'));
    expect(await screen.findByText('请输入验证码', undefined, { timeout: 8000 })).toBeTruthy();
    const errors = Array.from(document.querySelectorAll('.ant-form-item-explain-error')).map((e) => e.textContent ?? '');
    expect(errors).toEqual(expect.arrayContaining(['请输入用户名', '请输入密码', '请输入邮箱', '请输入验证码']));
    expect(errors.filter((t) => /[A-Za-z]/.test(t))).toEqual([]);
  }, 20_000);

  it('requires the agreement and matching passwords', async () => {
    renderRegister();
    type('reg-password', 'Passw0rd!');
    type('reg-confirm', 'Passw0rd?');
    fireEvent.click(screen.getByTestId('reg-submit'));
    expect(await screen.findByText('两次输入的密码不一致')).toBeTruthy();
    expect(await screen.findByText('请阅读并同意用户协议')).toBeTruthy();
    expect(requests.some((r) => r.url.endsWith('/user/register'))).toBe(false);
  });
});
