import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../app/providers';
import { useUserStore } from '../../app/stores/user-store';
import { UserAgreementPage } from './user-agreement-page';

let close: ReturnType<typeof vi.fn<() => void>>;

beforeEach(() => {
  useUserStore.getState().clearUser();
  // A tab the script may not close stays open: window.closed stays false.
  close = vi.fn<() => void>();
  vi.spyOn(window, 'close').mockImplementation(close);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function renderAt(entries: string[]) {
  const router = createMemoryRouter(
    [
      { path: '/user-agreement', element: <UserAgreementPage /> },
      { path: '*', element: <div data-testid="elsewhere" /> },
    ],
    { initialEntries: entries, initialIndex: entries.length - 1 },
  );
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
}

describe('user agreement 返回', () => {
  it('in a tab of its own (opened from registration) closes the tab instead of opening registration there', async () => {
    const router = renderAt(['/user-agreement']);
    fireEvent.click(screen.getByTestId('agreement-back'));
    expect(close).toHaveBeenCalledTimes(1);
    // The browser refused to close it (opened by hand): the sign-in page, never the register form.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('in a tab of its own while signed in falls back to home', async () => {
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
    const router = renderAt(['/user-agreement']);
    fireEvent.click(screen.getByTestId('agreement-back'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('reached inside the app goes back where the user came from', async () => {
    const router = renderAt(['/user-center', '/user-agreement']);
    fireEvent.click(screen.getByTestId('agreement-back'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/user-center'));
    expect(close).not.toHaveBeenCalled();
  });
});
