import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import forge from 'node-forge';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { toast } from '../../app/feedback';
import { Providers } from '../../app/providers';
import { useUserStore } from '../../app/stores/user-store';
import { EditPasswordPage } from './edit-password-page';

let publicPem: string;
let updateCalls: number;

function envelope(code: number, data: unknown, message = '操作成功') {
  return new Response(JSON.stringify({ message: { code, message }, data }), { headers: { 'content-type': 'application/json' } });
}

beforeAll(() => {
  publicPem = forge.pki.publicKeyToPem(forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 }).publicKey);
});
beforeEach(() => {
  updateCalls = 0;
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url.endsWith('/user/rsa-key')) return envelope(0, { publicKey: publicPem, keySize: 1024 });
      // The server's wording for a wrong old password (user.service.ts).
      if (url.endsWith('/user/password/update')) {
        updateCalls++;
        return envelope(1023, null, '原密码错误');
      }
      return envelope(0, null);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function renderPage() {
  const router = createMemoryRouter([{ path: '/login/edit', element: <EditPasswordPage /> }], { initialEntries: ['/login/edit'] });
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

describe('change password page', () => {
  it('names the field 原密码, as the server does when it is wrong (原密码错误)', async () => {
    const error = vi.spyOn(toast, 'error');
    const router = renderPage();
    expect(screen.getByText('原密码')).toBeTruthy();
    expect(screen.queryByText(/当前密码/)).toBeNull();
    expect(screen.getByTestId('pwd-old').getAttribute('placeholder')).toBe('请输入原密码');

    fireEvent.click(screen.getByTestId('pwd-submit'));
    expect(await screen.findByText('请输入原密码', undefined, { timeout: 5000 })).toBeTruthy();

    fireEvent.change(screen.getByTestId('pwd-old'), { target: { value: 'Same1234' } });
    fireEvent.change(screen.getByTestId('pwd-new'), { target: { value: 'Same1234' } });
    expect(await screen.findByText('新密码不能与原密码相同', undefined, { timeout: 5000 })).toBeTruthy();

    fireEvent.change(screen.getByTestId('pwd-new'), { target: { value: 'Other1234' } });
    fireEvent.change(screen.getByTestId('pwd-confirm'), { target: { value: 'Other1234' } });
    fireEvent.click(screen.getByTestId('pwd-submit'));
    await waitFor(() => expect(updateCalls).toBe(1), { timeout: 8000 });
    await waitFor(() => expect(error).toHaveBeenCalledWith('原密码错误'), { timeout: 5000 });
    expect(router.state.location.pathname).toBe('/login/edit');
  }, 20_000);
});
