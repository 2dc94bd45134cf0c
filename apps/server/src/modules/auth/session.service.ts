import { createHash, randomBytes } from 'node:crypto';
import { ErrorCode, SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '@suanli/contracts';
import { AppError } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus, Revocation } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { SessionRepository } from './session.repository';

/** Writing last_seen on every request would make every read a write; a minute of slack is invisible next to 30 min. */
const TOUCH_EVERY_MS = 60_000;

/**
 * How long a successful verification is reused without reading the session row again (by the injected
 * clock). Revocations made through this service end the cached entries of this process at once and, through
 * the bus (Redis), of the other gateway processes; a lost bus message, or a change made directly in the
 * database (an operator disabling an account), is seen within this time. ADR 0003.
 */
export const SESSION_CACHE_MS = 2_000;
/** How long an address a user signed in from counts as theirs for the login lockout. */
const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;
/** Entries kept at most; the oldest verification is dropped first. */
const SESSION_CACHE_MAX = 10_000;

interface Verified {
  principal: Principal;
  tokenHash: string;
  lastSeen: number;
  createTime: number;
  /** When the row was read. */
  at: number;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Sessions: 256-bit random tokens stored only as SHA-256, idle timeout 30 min (sliding), absolute 12 h,
 * revocation on logout / password change / disable. Every gateway process reads the same table, so a
 * revocation is seen by all of them on the next request.
 */
export class SessionService {
  /** Keyed by the token itself: it is in this process's memory for the request anyway, and hashing it is skipped. */
  private readonly verified = new Map<string, Verified>();
  /** Bumped by every revocation: a verification that read its row before one finished is not cached. */
  private revocations = 0;
  private readonly revocationListeners = new Set<(r: Revocation) => void>();

  /** Bumped whenever cached principals are dropped for a role change: a verification in flight is not cached. */
  private roleChanges = 0;

  constructor(
    private readonly repo: SessionRepository,
    private readonly clock: () => number,
    /** The account behind a session: refused when disabled; its roles go onto the principal. */
    private readonly access: Pick<AccessService, 'subject' | 'onRolesChanged'>,
    private readonly bus?: Pick<EventBus, 'publishRevocation' | 'onRevocation'>,
  ) {
    bus?.onRevocation((r) => this.forget(r));
    // A role granted or taken here applies from the user's next request (other processes: SESSION_CACHE_MS).
    access.onRolesChanged((userId) => {
      this.roleChanges++;
      for (const [token, v] of this.verified) if (v.principal.userId === userId) this.verified.delete(token);
    });
  }

  /** How many revocations this process has seen; a caller that verified before it changed re-checks. */
  get generation(): number {
    return this.revocations;
  }

  /**
   * Every revocation this process makes or hears of on the bus, after its cache entries are gone (the
   * socket hub closes the sockets of revoked sessions at once). Returns the unsubscribe function.
   */
  onRevoked(listener: (r: Revocation) => void): () => void {
    this.revocationListeners.add(listener);
    return () => void this.revocationListeners.delete(listener);
  }

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

  /**
   * Whether the user signed in from this address within the last 30 days: such an address is the user's
   * own, and an account-wide login lock set by guesses from elsewhere does not apply to it (ADR 0005).
   */
  signedInFrom(userId: string, ip: string): Promise<boolean> {
    return this.repo.createdFrom(userId, ip, this.clock() - KNOWN_ADDRESS_MS);
  }

  /** Resolves a token or throws 10133 (unknown), 10157 (expired) or 10307 (revoked). */
  async verify(token: string | undefined): Promise<Principal> {
    if (!token || token.length > 128) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const now = this.clock();
    // Reused only while nothing about it can have changed here: fresh, not idle or old enough to expire,
    // and no last_seen write due (so the sliding timeout is maintained by the read below).
    const hit = this.verified.get(token);
    if (hit && now - hit.at < SESSION_CACHE_MS && now - hit.lastSeen <= TOUCH_EVERY_MS && now - hit.createTime <= SESSION_ABSOLUTE_TIMEOUT_MS) {
      return hit.principal;
    }
    this.verified.delete(token);
    const generation = this.revocations;
    const roleChanges = this.roleChanges;
    const tokenHash = hashToken(token);
    const s = await this.repo.findByHash(tokenHash);
    if (!s) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    if (s.revoked_at != null) throw new AppError(ErrorCode.SESSION_REVOKED);
    const subject = await this.access.subject(s.user_id);
    // A disabled account loses its sessions on every gateway process without a sweep (within SESSION_CACHE_MS).
    if (!subject.active) throw new AppError(ErrorCode.SESSION_REVOKED);
    if (now - s.last_seen > SESSION_IDLE_TIMEOUT_MS || now - s.create_time > SESSION_ABSOLUTE_TIMEOUT_MS) {
      throw new AppError(ErrorCode.SESSION_EXPIRED);
    }
    let lastSeen = s.last_seen;
    if (now - lastSeen > TOUCH_EVERY_MS) {
      await this.repo.touch(s.id, now);
      lastSeen = now;
    }
    const principal: Principal = Object.freeze({ userId: s.user_id, sessionId: s.id, roles: Object.freeze([...subject.roles]) });
    if (generation === this.revocations && roleChanges === this.roleChanges) {
      if (this.verified.size >= SESSION_CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(token, { principal, tokenHash, lastSeen, createTime: s.create_time, at: now });
    }
    return principal;
  }

  /**
   * The session code (10133 gone, 10307 revoked, 10157 expired) of each of these sessions that is no longer
   * valid — for the holders of long-lived connections (sockets, shells, IDE proxies) re-checking in bulk.
   * Read-only on purpose: `verify` slides last_seen, and a keep-alive is not user activity. Same expiry rule.
   */
  async invalid(sessionIds: string[]): Promise<Map<string, number>> {
    const now = this.clock();
    const found = new Map((await this.repo.states(sessionIds)).map((r) => [r.id, r]));
    const bad = new Map<string, number>();
    for (const id of sessionIds) {
      const s = found.get(id);
      if (!s) bad.set(id, ErrorCode.NOT_LOGGED_IN);
      else if (s.revoked_at != null) bad.set(id, ErrorCode.SESSION_REVOKED);
      else if (now - Number(s.last_seen) > SESSION_IDLE_TIMEOUT_MS || now - Number(s.create_time) > SESSION_ABSOLUTE_TIMEOUT_MS) {
        bad.set(id, ErrorCode.SESSION_EXPIRED);
      }
    }
    return bad;
  }

  async revoke(sessionId: string, reason: string) {
    await this.repo.revoke(sessionId, this.clock(), reason);
    await this.revoked({ sessionId });
  }

  /** Logout: revokes whatever session the token names, even an expired one; unknown tokens are ignored. */
  async revokeToken(token: string, reason: string) {
    const tokenHash = hashToken(token);
    await this.repo.revokeByHash(tokenHash, this.clock(), reason);
    await this.revoked({ tokenHash });
  }

  async revokeAllOfUser(userId: string, reason: string, exceptSessionId?: string) {
    await this.repo.revokeAllOfUser(userId, this.clock(), reason, exceptSessionId);
    await this.revoked({ userId, exceptSessionId });
  }

  /** After the revoking write: forget here at once, then tell the other processes. */
  private async revoked(r: Revocation) {
    this.forget(r);
    await this.bus?.publishRevocation(r);
  }

  /**
   * Drops the cached verifications a revocation ends, and makes verifications still reading their row
   * (from before the write) skip the cache — so the next request after a logout is refused.
   */
  private forget(r: Revocation) {
    this.revocations++;
    const match: (v: Verified) => boolean =
      'sessionId' in r
        ? (v) => v.principal.sessionId === r.sessionId
        : 'tokenHash' in r
          ? (v) => v.tokenHash === r.tokenHash
          : (v) => v.principal.userId === r.userId && v.principal.sessionId !== r.exceptSessionId;
    for (const [token, v] of this.verified) if (match(v)) this.verified.delete(token);
    for (const listener of this.revocationListeners) listener(r);
  }
}
