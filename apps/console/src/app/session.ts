import { currentAppPath, isPublicAuthPath, loginPathFor, navigateTo } from './navigation';
import { queryClient } from './query-client';
import { toast } from './feedback';
import { useUserStore } from './stores/user-store';

let deliberate = false;

/**
 * Whether the current signed-out state comes from the user's own 退出登录. The signed-in layout may
 * still be on screen for a moment after that (route changes render in a transition); it then sends the
 * user to plain /login instead of adding a return URL as it does when a session runs out.
 */
export function signedOutDeliberately(): boolean {
  return deliberate;
}

/**
 * Forgets everything about the current user in this tab: stored info and every cached answer, so the next
 * account never sees the previous one's data.
 */
export function endSession(options: { deliberate?: boolean } = {}): void {
  deliberate = options.deliberate ?? false;
  useUserStore.getState().clearUser();
  queryClient.cancelQueries();
  queryClient.removeQueries();
}

/**
 * The session is gone (10133 / 10157 / 10307): clear it and send the user to sign in again, remembering
 * where they were so the login page can bring them back. Parallel failing calls end up here together; the
 * keyed toast and the login-page check make that one toast and one navigation.
 */
export function expireSession(serverMessage: string, code?: number): void {
  const here = currentAppPath();
  endSession();
  toast.error(serverMessage, 'session-invalid');
  if (isPublicAuthPath(here)) return;
  // `reason` lets the login page say why the session ended (features/auth/session-reason.ts).
  const to = loginPathFor(here);
  navigateTo(code === undefined ? to : `${to}${to.includes('?') ? '&' : '?'}reason=${code}`, { replace: true });
}
