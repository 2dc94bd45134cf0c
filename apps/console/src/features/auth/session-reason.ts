import { ErrorCode, SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '@suanli/contracts';

/**
 * Why a session ended, for the login page after the console sent the user there (`?reason=<code>`). The
 * server's own texts (账号状态已变更，请重新登录 …) say that it ended; these say why, in terms of what the
 * user or someone else did.
 */
const REASONS: Record<number, string> = {
  [ErrorCode.SESSION_REVOKED]: '密码已在其他地方修改，或账号已在其他地方退出登录、被停用，请重新登录',
  [ErrorCode.SESSION_EXPIRED]: `${SESSION_IDLE_TIMEOUT_MS / 60_000} 分钟未操作或登录已超过 ${SESSION_ABSOLUTE_TIMEOUT_MS / 3_600_000} 小时，为了账号安全请重新登录`,
  [ErrorCode.NOT_LOGGED_IN]: '登录已失效，请重新登录',
};

/** The explanation for a `reason` query value, or null for none or an unknown one. */
export function sessionEndReason(reason: string | null): string | null {
  if (!reason || !/^\d+$/.test(reason)) return null;
  return REASONS[Number(reason)] ?? null;
}
