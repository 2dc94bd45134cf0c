import { ErrorCode, SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '@suanli/contracts';
import type { Db } from '../db/db';

/** Ids per statement: keeps the IN list well inside both engines' parameter limits. */
const CHUNK = 500;

/**
 * Re-checks the sessions behind open sockets in bulk. Read-only on purpose: SessionService.verify slides
 * last_seen, and a keep-alive every 10 s is not user activity — going through it would keep an unattended
 * console's session alive until the absolute timeout. The expiry rule is SessionService.verify's, with the
 * same constants from contracts.
 */
export class SessionStateRepository {
  constructor(private readonly db: Db) {}

  /** The session code (10133 gone, 10307 revoked, 10157 expired) of each session that is no longer valid. */
  async invalid(sessionIds: string[], now: number): Promise<Map<string, number>> {
    const bad = new Map<string, number>();
    for (let i = 0; i < sessionIds.length; i += CHUNK) {
      const ids = sessionIds.slice(i, i + CHUNK);
      const rows = await this.db
        .selectFrom('sessions')
        .select(['id', 'create_time', 'last_seen', 'revoked_at'])
        .where('id', 'in', ids)
        .execute();
      const found = new Map(rows.map((r) => [r.id, r]));
      for (const id of ids) {
        const s = found.get(id);
        if (!s) bad.set(id, ErrorCode.NOT_LOGGED_IN);
        else if (s.revoked_at != null) bad.set(id, ErrorCode.SESSION_REVOKED);
        else if (now - Number(s.last_seen) > SESSION_IDLE_TIMEOUT_MS || now - Number(s.create_time) > SESSION_ABSOLUTE_TIMEOUT_MS) {
          bad.set(id, ErrorCode.SESSION_EXPIRED);
        }
      }
    }
    return bad;
  }
}
