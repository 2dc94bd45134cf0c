import { afterEach, beforeEach, vi } from 'vitest';
import { queryClient } from '../app/query-client';
import { useUserStore } from '../app/stores/user-store';

/** What a page test's fake gateway must offer: a `fetch` to stand in for the browser's. */
export interface FakeBackend {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * The frame of a page test. Before each test: the app's one query cache emptied (it outlives a render),
 * alice signed in, and a fresh fake gateway from `makeBackend` behind `fetch` — keep the one it returns
 * for the test's assertions (`beforeEach` hooks registered after this one can fill it). After each test:
 * `fetch` restored (test-setup.ts unmounts the page).
 */
export function setupPageTests(makeBackend: () => FakeBackend) {
  beforeEach(() => {
    queryClient.clear();
    useUserStore.getState().clearUser();
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't', createTime: 1 });
    vi.stubGlobal('fetch', vi.fn(makeBackend().fetch));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
}
