import { USER_STORAGE_KEY } from '@suanli/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** The store reads localStorage when its module loads, so each test loads a fresh copy. */
async function loadStore() {
  vi.resetModules();
  return import('./user-store');
}

beforeEach(() => window.localStorage.clear());
afterEach(() => window.localStorage.clear());

describe('user store', () => {
  it('replaces the info when the stored info has no id', async () => {
    const { useUserStore } = await loadStore();
    useUserStore.getState().setUserInfo({ token: 'stale', nickname: 'old' });
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1' });
    expect(useUserStore.getState().userInfo).toEqual({ id: 'u1', username: 'alice', token: 't1' });
  });

  it('merges into the stored info when it has an id', async () => {
    const { useUserStore } = await loadStore();
    useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', nickname: 'A', token: 't1' });
    useUserStore.getState().setUserInfo({ nickname: '爱丽丝', headImage: '/a.png' });
    expect(useUserStore.getState().userInfo).toEqual({
      id: 'u1',
      username: 'alice',
      nickname: '爱丽丝',
      headImage: '/a.png',
      token: 't1',
    });
  });

  it('persists under the one storage key and restores on the next load', async () => {
    const first = await loadStore();
    first.useUserStore.getState().setUserInfo({ id: 'u1', username: 'alice', token: 't1', createTime: 1700000000000 });
    expect(JSON.parse(window.localStorage.getItem(USER_STORAGE_KEY)!)).toMatchObject({ id: 'u1', token: 't1' });

    const second = await loadStore();
    expect(second.useUserStore.getState().userInfo).toMatchObject({ id: 'u1', username: 'alice', createTime: 1700000000000 });
    expect(second.getToken()).toBe('t1');
  });

  it('clearUser empties the state and removes the stored info', async () => {
    const { useUserStore, getToken } = await loadStore();
    useUserStore.getState().setUserInfo({ id: 'u1', token: 't1' });
    useUserStore.getState().clearUser();
    expect(useUserStore.getState().userInfo).toEqual({});
    expect(window.localStorage.getItem(USER_STORAGE_KEY)).toBeNull();
    expect(getToken()).toBeUndefined();
  });

  it('starts signed out when the stored JSON is corrupt', async () => {
    window.localStorage.setItem(USER_STORAGE_KEY, '{not json');
    const { useUserStore } = await loadStore();
    expect(useUserStore.getState().userInfo).toEqual({});
  });

  it('follows a login or logout made in another tab', async () => {
    const { useUserStore, syncUserAcrossTabs } = await loadStore();
    const stop = syncUserAcrossTabs();
    window.localStorage.setItem(USER_STORAGE_KEY, JSON.stringify({ id: 'u2', token: 't2' }));
    window.dispatchEvent(new StorageEvent('storage', { key: USER_STORAGE_KEY }));
    expect(useUserStore.getState().userInfo).toEqual({ id: 'u2', token: 't2' });

    window.localStorage.removeItem(USER_STORAGE_KEY);
    window.dispatchEvent(new StorageEvent('storage', { key: USER_STORAGE_KEY }));
    expect(useUserStore.getState().userInfo).toEqual({});
    stop();
  });
});
