import type { Db } from '../../db/db';
import { prepare } from '../../db/prepared';

/** Ids per statement: keeps the IN list well inside both engines' parameter limits. */
const CHUNK = 500;

export class SessionRepository {
  /** Runs on every authenticated request: compiled once (see db/prepared.ts). */
  private readonly byHash;

  constructor(private readonly db: Db) {
    this.byHash = prepare(db, (db, a: { tokenHash: string }) =>
      db
        .selectFrom('sessions')
        .select(['id', 'user_id', 'create_time', 'last_seen', 'revoked_at'])
        .where('token_hash', '=', a.tokenHash),
    );
  }

  insert(row: { id: string; tokenHash: string; userId: string; now: number; ip: string | null; userAgent: string | null }) {
    return this.db
      .insertInto('sessions')
      .values({
        id: row.id,
        token_hash: row.tokenHash,
        user_id: row.userId,
        create_time: row.now,
        last_seen: row.now,
        ip: row.ip,
        user_agent: row.userAgent?.slice(0, 255) ?? null,
      })
      .execute();
  }

  /** The session a token names (its user's account state comes from the access module). */
  async findByHash(tokenHash: string) {
    return (await this.byHash({ tokenHash }))[0];
  }

  /** Whether a session of the user was created from this address since `since` (login lockout, ADR 0005). */
  async createdFrom(userId: string, ip: string, since: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', userId)
      .where('ip', '=', ip)
      .where('create_time', '>=', since)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  revokeByHash(tokenHash: string, now: number, reason: string) {
    return this.db
      .updateTable('sessions')
      .set({ revoked_at: now, revoke_reason: reason })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .execute();
  }

  touch(id: string, now: number) {
    return this.db.updateTable('sessions').set({ last_seen: now }).where('id', '=', id).execute();
  }

  revoke(id: string, now: number, reason: string) {
    return this.db
      .updateTable('sessions')
      .set({ revoked_at: now, revoke_reason: reason })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  revokeAllOfUser(userId: string, now: number, reason: string, exceptId?: string) {
    let q = this.db
      .updateTable('sessions')
      .set({ revoked_at: now, revoke_reason: reason })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (exceptId) q = q.where('id', '!=', exceptId);
    return q.execute();
  }

  /** The sessions of these ids that still exist, with what decides their validity (read-only: no touch). */
  async states(ids: string[]) {
    const rows = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      rows.push(
        ...(await this.db
          .selectFrom('sessions')
          .select(['id', 'create_time', 'last_seen', 'revoked_at'])
          .where('id', 'in', ids.slice(i, i + CHUNK))
          .execute()),
      );
    }
    return rows;
  }
}
