import type { NavigateFunction } from 'react-router';
import { endSession } from '../../app/session';
import { getToken } from '../../app/stores/user-store';
import { logout } from './api';

/**
 * 退出登录, in an order that avoids false alarms: forget the session locally first (the live socket
 * closes itself on the token change), and only then revoke the token server-side — revoking first would
 * make the server close the socket with 4001 and the console report an expired session.
 */
export async function signOut(navigate: NavigateFunction, to = '/login'): Promise<void> {
  const token = getToken();
  endSession({ deliberate: true });
  await navigate(to, { replace: true });
  if (token) await logout(token).catch(() => {});
}
