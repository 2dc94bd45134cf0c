import { sql } from 'kysely';
import { CODE_MAX_ATTEMPTS } from '@suanli/contracts';
import type { Db } from '../../db/db';

export class VerificationCodeRepository {
  constructor(private readonly db: Db) {}

  insert(row: { id: string; scene: string; target: string; codeHash: string; now: number; expireTime: number }) {
    return this.db
      .insertInto('verification_codes')
      .values({
        id: row.id,
        scene: row.scene,
        target: row.target,
        code_hash: row.codeHash,
        create_time: row.now,
        expire_time: row.expireTime,
        attempts: 0,
      })
      .execute();
  }

  delete(id: string) {
    return this.db.deleteFrom('verification_codes').where('id', '=', id).execute();
  }

  /** When the last code went to the target (any scene) and how many went since `since`: the send limits. */
  async sendStats(target: string, since: number): Promise<{ last: number | undefined; count: number }> {
    const row = await this.db
      .selectFrom('verification_codes')
      .select((eb) => [eb.fn.max('create_time').as('last'), eb.fn.countAll<number>().as('n')])
      .where('target', '=', target)
      .where('create_time', '>=', since)
      .executeTakeFirstOrThrow();
    return { last: row.last == null ? undefined : Number(row.last), count: Number(row.n) };
  }

  /** The newest code of a scene for a target: only it counts, asking for a new code retires older ones. */
  latest(scene: string, target: string) {
    return this.db
      .selectFrom('verification_codes')
      .select(['id', 'code_hash', 'expire_time', 'attempts', 'used_at'])
      .where('target', '=', target)
      .where('scene', '=', scene)
      .orderBy('create_time', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Counts one failed try in SQL, so concurrent wrong guesses cannot share one increment. */
  async addAttempt(id: string): Promise<number> {
    const row = await this.db
      .updateTable('verification_codes')
      .set({ attempts: sql`attempts + 1` })
      .where('id', '=', id)
      .returning('attempts')
      .executeTakeFirst();
    return row?.attempts ?? CODE_MAX_ATTEMPTS;
  }

  /** Marks the code used if it still is usable; false when another request got there first. */
  async consume(id: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('verification_codes')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('attempts', '<', CODE_MAX_ATTEMPTS)
      .where('expire_time', '>', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}
