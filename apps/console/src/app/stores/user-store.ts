import { USER_STORAGE_KEY, type UserInfo } from '@suanli/contracts';
import { create } from 'zustand';

/**
 * What the console keeps about the signed-in user. Beyond the server's `UserInfo` it remembers the last
 * known remaining compute power so the header can show it at once on the next load.
 */
export type StoredUser = Partial<UserInfo> & { personalCompPower?: string };

interface UserState {
  userInfo: StoredUser;
  /** Merges into the stored info when that info already has an id (same session), else replaces it. */
  setUserInfo(info: StoredUser): void;
  /** Clears the stored info and resets the user to empty (logout, session invalid). */
  clearUser(): void;
}

function readStored(): StoredUser {
  try {
    const raw = window.localStorage.getItem(USER_STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    return parsed && typeof parsed === 'object' ? (parsed as StoredUser) : {};
  } catch {
    // Corrupt JSON or storage disabled (private mode): start signed out rather than crash.
    return {};
  }
}

function writeStored(info: StoredUser): void {
  try {
    if (Object.keys(info).length === 0) window.localStorage.removeItem(USER_STORAGE_KEY);
    else window.localStorage.setItem(USER_STORAGE_KEY, JSON.stringify(info));
  } catch {
    // Quota or disabled storage: the in-memory state still works for this tab.
  }
}

export const useUserStore = create<UserState>()((set, get) => ({
  userInfo: readStored(),
  setUserInfo(info) {
    const current = get().userInfo;
    const next = current.id ? { ...current, ...info } : { ...info };
    writeStored(next);
    set({ userInfo: next });
  },
  clearUser() {
    writeStored({});
    set({ userInfo: {} });
  },
}));

export function getToken(): string | undefined {
  return useUserStore.getState().userInfo.token || undefined;
}

/**
 * Keeps tabs in step: a login or logout in one tab shows up in the others (the socket and the guards
 * read the store), instead of a stale tab sending a revoked token.
 */
export function syncUserAcrossTabs(): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key !== USER_STORAGE_KEY) return;
    useUserStore.setState({ userInfo: readStored() });
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}
