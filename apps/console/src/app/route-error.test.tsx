import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { Providers } from './providers';
import { RouteError } from './route-error';
import { buildRoutes } from './routes';
import { useUserStore } from './stores/user-store';
import { IdleSocket } from '../test/idle-socket';

// A page of the real route table fails to render: what the user then sees is the route table's own error
// page, never React Router's English developer page. The page is swapped in the built table rather than with
// vi.mock of its module: a module mock outlives the file when files share a worker's module cache.
function failingQuantumPage(routes: RouteObject[]): RouteObject[] {
  const swap = (list: RouteObject[]): boolean =>
    list.some((r) => {
      if (r.path === '/quantum') {
        r.lazy = async () => ({
          Component: () => {
            throw new Error('render failed');
          },
        });
        return true;
      }
      return r.children ? swap(r.children) : false;
    });
  if (!swap(routes)) throw new Error('the route table has no /quantum');
  return routes;
}

beforeAll(() => {
  vi.stubGlobal('WebSocket', IdleSocket);
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify({ message: { code: 0, message: '操作成功' }, data: null }), { headers: { 'content-type': 'application/json' } })),
  );
  // React reports the caught render error on the console; the test only cares about what is on screen.
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1 });
});
afterAll(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useUserStore.getState().clearUser();
});
afterEach(() => cleanup());

function renderAt(path: string) {
  const router = createMemoryRouter(failingQuantumPage(buildRoutes()), { initialEntries: [path] });
  render(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
}

describe('route error page', () => {
  it('shows a Chinese error page with a retry when a page throws while rendering, inside the layout', async () => {
    renderAt('/quantum');
    const page = await screen.findByTestId('route-error', {}, { timeout: 10_000 });
    expect(page.textContent).toContain('页面出现异常');
    expect(page.textContent).toContain('请重新加载');
    expect(document.body.textContent).not.toMatch(/Unexpected Application Error|Hey developer|render failed/);
    // The header stays: the error is confined to the page.
    expect(screen.getByTestId('app-header')).toBeTruthy();

    const reload = vi.fn();
    const original = window.location;
    Object.defineProperty(window, 'location', { configurable: true, value: { ...original, reload } });
    try {
      fireEvent.click(screen.getByTestId('route-error-retry'));
      expect(reload).toHaveBeenCalledTimes(1);
    } finally {
      Object.defineProperty(window, 'location', { configurable: true, value: original });
    }
  });

  it('says the page failed to load when its code cannot be fetched (a lost connection, an older release)', async () => {
    const router = createMemoryRouter([
      {
        path: '/',
        ErrorBoundary: RouteError,
        lazy: () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: /console/assets/routes-x.js')),
      },
    ]);
    render(
      <Providers>
        <RouterProvider router={router} />
      </Providers>,
    );
    const page = await screen.findByTestId('route-error', {}, { timeout: 10_000 });
    expect(page.textContent).toContain('页面加载失败');
    expect(page.textContent).toContain('重新加载');
    expect(document.body.textContent).not.toMatch(/Unexpected Application Error|Failed to fetch/);
  });
});
