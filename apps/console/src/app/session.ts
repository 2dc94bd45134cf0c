import { currentAppPath, isPublicAuthPath, loginPathFor, navigateTo } from './navigation';
import { queryClient } from './query-client';
import { toast } from './feedback';
import { useUserStore } from './stores/user-store';

/**
 * Forgets everything about the current user in this tab: stored info and every cached answer, so the next
 * account never sees the previous one's data.
 */
export function endSession(): void {
  useUserStore.getState().clearUser();
  queryClient.cancelQueries();
  queryClient.removeQueries();
}

/**
 * The session is gone (10133 / 10157 / 10307): clear it and send the user to sign in again, remembering
 * where they were so the login page can bring them back. Parallel failing calls end up here together; the
 * keyed toast and the login-page check make that one toast and one navigation.
 */
export function expireSession(serverMessage: string): void {
  const here = currentAppPath();
  endSession();
  toast.error(serverMessage, 'session-invalid');
  if (isPublicAuthPath(here)) return;
  navigateTo(loginPathFor(here), { replace: true });
}
