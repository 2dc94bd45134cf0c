import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { UserInfo } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { toast } from '../../app/feedback';
import { Providers } from '../../app/providers';
import { queryClient } from '../../app/query-client';
import { useUserStore } from '../../app/stores/user-store';
import { UserCenterPage } from './user-center-page';

/** The signed-in user as the faked gateway knows it; update-phone / bind-email change it. */
let me: UserInfo;
let requests: { url: string; body: any }[];

function envelope(data: unknown) {
  return new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data }), { headers: { 'content-type': 'application/json' } });
}

function user(patch: Partial<UserInfo>): UserInfo {
  return { id: 'u1', username: 'alice', nickname: 'Alice', phone: null, email: null, headImage: null, createTime: 1_700_000_000_000, roles: ['user'], ...patch } as UserInfo;
}

beforeEach(() => {
  requests = [];
  queryClient.clear();
  useUserStore.getState().clearUser();
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body && typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
      requests.push({ url, body });
      if (url.endsWith('/user/action/update-phone')) return envelope((me = { ...me, phone: body.phone }));
      if (url.endsWith('/user/action/bind-email')) return envelope((me = { ...me, email: body.email }));
      if (url.endsWith('/agent/user/get')) return envelope([]);
      if (url.endsWith('/user')) return envelope(me);
      return envelope(null);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderPage() {
  const router = createMemoryRouter([{ path: '/user-center', element: <UserCenterPage /> }], { initialEntries: ['/user-center'] });
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
}

async function fillContactDialog(target: string) {
  fireEvent.change(screen.getByTestId('uc-contact-input'), { target: { value: target } });
  fireEvent.click(screen.getByTestId('uc-contact-send-code'));
  await waitFor(() => expect(requests.some((r) => r.url.endsWith('/user/code'))).toBe(true));
  fireEvent.change(screen.getByTestId('uc-contact-code'), { target: { value: '123456' } });
  fireEvent.click(screen.getByTestId('uc-contact-submit'));
}

const wait = { timeout: 5000 };

describe('user centre contact wording', () => {
  it('binds a first phone number as 绑定 (not 新手机号 / 手机号已更换)', async () => {
    me = user({ phone: null });
    const success = vi.spyOn(toast, 'success');
    renderPage();
    await waitFor(() => expect(screen.getByTestId('uc-phone-edit').textContent).toBe('绑定'), wait);
    fireEvent.click(screen.getByTestId('uc-phone-edit'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('绑定手机号')).toBeTruthy();
    expect(within(dialog).getByText('手机号')).toBeTruthy();
    expect(within(dialog).queryByText(/新手机号|更换/)).toBeNull();
    expect(screen.getByTestId('uc-contact-input').getAttribute('placeholder')).toBe('请输入要绑定的11位手机号');

    await fillContactDialog('13800000000');
    await waitFor(() => expect(success).toHaveBeenCalledWith('手机号已绑定'), wait);
    expect(success).not.toHaveBeenCalledWith('手机号已更换');
  }, 20_000);

  it('replaces an existing phone number as 更换 / 新手机号 / 手机号已更换', async () => {
    me = user({ phone: '13800000000' });
    const success = vi.spyOn(toast, 'success');
    renderPage();
    await waitFor(() => expect(screen.getByTestId('uc-phone-edit').textContent).toBe('更换'), wait);
    fireEvent.click(screen.getByTestId('uc-phone-edit'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('更换手机号')).toBeTruthy();
    expect(within(dialog).getByText('新手机号')).toBeTruthy();

    await fillContactDialog('13900000000');
    await waitFor(() => expect(success).toHaveBeenCalledWith('手机号已更换'), wait);
  }, 20_000);

  it('binds a first email as 绑定邮箱 / 邮箱 / 邮箱已绑定', async () => {
    me = user({ email: null });
    const success = vi.spyOn(toast, 'success');
    renderPage();
    await waitFor(() => expect(screen.getByTestId('uc-email-edit').textContent).toBe('绑定'), wait);
    fireEvent.click(screen.getByTestId('uc-email-edit'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('绑定邮箱')).toBeTruthy();
    expect(within(dialog).queryByText('新邮箱')).toBeNull();
    await fillContactDialog('alice@example.com');
    await waitFor(() => expect(success).toHaveBeenCalledWith('邮箱已绑定'), wait);
  }, 20_000);
});
