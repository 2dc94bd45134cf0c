import type { Db } from './db';

/**
 * Named leases in the database: one holder at a time until `expires_at`. Works the same on SQLite and
 * PostgreSQL (a conditional upsert), so one poller per center holds across gateway replicas without a
 * PostgreSQL-only advisory lock; a dead holder's lease simply runs out.
 */
export class LeaseRepository {
  constructor(private readonly db: Db) {}

  /** Takes or renews the lease for `holder`; true when `holder` holds it until now + ttl. */
  async acquire(name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    const expires = now + ttlMs;
    const r = await this.db
      .insertInto('leases')
      .values({ name, holder, expires_at: expires })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({ holder, expires_at: expires }).where((eb) => eb.or([eb('leases.holder', '=', holder), eb('leases.expires_at', '<', now)])),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Gives the lease up at once (a clean shutdown), so another replica takes over without waiting. */
  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
