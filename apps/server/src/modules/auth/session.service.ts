import { createHash, randomBytes } from 'node:crypto';
import { ErrorCode, SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '@suanli/contracts';
import { AppError } from '../../errors';
import { newId } from '../../lib/id';
import type { SessionRepository } from './session.repository';

export interface Principal {
  userId: string;
  sessionId: string;
}

/** Writing last_seen on every request would make every read a write; a minute of slack is invisible next to 30 min. */
const TOUCH_EVERY_MS = 60_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Sessions: 256-bit random tokens stored only as SHA-256, idle timeout 30 min (sliding), absolute 12 h,
 * revocation on logout / password change / disable. Every gateway process reads the same table, so a
 * revocation is seen by all of them on the next request.
 */
export class SessionService {
  constructor(
    private readonly repo: SessionRepository,
    private readonly clock: () => number,
  ) {}

  async create(userId: string, meta: { ip?: string; userAgent?: string } = {}): Promise<{ token: string; sessionId: string }> {
    const token = randomBytes(32).toString('base64url');
    const sessionId = newId();
    await this.repo.insert({
      id: sessionId,
      tokenHash: hashToken(token),
      userId,
      now: this.clock(),
      ip: meta.ip ?? null,
      userAgent: meta.userAgent ?? null,
    });
    return { token, sessionId };
  }

  /** Resolves a token or throws 10133 (unknown), 10157 (expired) or 10307 (revoked). */
  async verify(token: string | undefined): Promise<Principal> {
    if (!token || token.length > 128) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const s = await this.repo.findByHash(hashToken(token));
    if (!s) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    // A disabled account loses its sessions at once, on every gateway process, without a sweep.
    if (s.revoked_at != null || s.user_status === 'disabled') throw new AppError(ErrorCode.SESSION_REVOKED);
    const now = this.clock();
    if (now - s.last_seen > SESSION_IDLE_TIMEOUT_MS || now - s.create_time > SESSION_ABSOLUTE_TIMEOUT_MS) {
      throw new AppError(ErrorCode.SESSION_EXPIRED);
    }
    if (now - s.last_seen > TOUCH_EVERY_MS) await this.repo.touch(s.id, now);
    return { userId: s.user_id, sessionId: s.id };
  }

  revoke(sessionId: string, reason: string) {
    return this.repo.revoke(sessionId, this.clock(), reason);
  }

  /** Logout: revokes whatever session the token names, even an expired one; unknown tokens are ignored. */
  revokeToken(token: string, reason: string) {
    return this.repo.revokeByHash(hashToken(token), this.clock(), reason);
  }

  revokeAllOfUser(userId: string, reason: string, exceptSessionId?: string) {
    return this.repo.revokeAllOfUser(userId, this.clock(), reason, exceptSessionId);
  }
}
