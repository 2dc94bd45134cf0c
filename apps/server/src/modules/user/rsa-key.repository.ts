import type { Db, Tx } from '../../db/db';

/** A key as `npm run admin -- rsa list` shows it: never the private half. */
export interface RsaKeyRow {
  id: string;
  public_pem: string;
  active: number;
  create_time: number;
}

/** The active keys, newest first: the first is the served one (served = newest), all of them decrypt. */
const activeNewestFirst = (db: Db | Tx) => db.selectFrom('rsa_keys').where('active', '=', 1).orderBy('create_time', 'desc').orderBy('id', 'desc');

export class RsaKeyRepository {
  constructor(private readonly db: Db) {}

  /** Only the ids of the active keys, newest first: the cheap read each use of the keys starts with. */
  async activeIds(): Promise<string[]> {
    const rows = await activeNewestFirst(this.db).select('id').execute();
    return rows.map((r) => r.id);
  }

  /** The pairs of these keys (the ones a process has not parsed yet). */
  byIds(ids: string[]) {
    return this.db.selectFrom('rsa_keys').select(['id', 'public_pem', 'private_pem']).where('id', 'in', ids).execute();
  }

  /** Every key, retired ones too, newest first — without the private half. */
  listAll(): Promise<RsaKeyRow[]> {
    return this.db.selectFrom('rsa_keys').select(['id', 'public_pem', 'active', 'create_time']).orderBy('create_time', 'desc').orderBy('id', 'desc').execute();
  }

  /** Inserts unless a row with this id exists: two processes starting together keep only one first key. */
  async insertIfAbsent(row: { id: string; publicPem: string; privatePem: string; now: number }) {
    await this.db
      .insertInto('rsa_keys')
      .values({ id: row.id, public_pem: row.publicPem, private_pem: row.privatePem, active: 1, create_time: row.now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /**
   * Adds a key that becomes the served one: its create_time is after every other key's even when this
   * host's clock is behind the one that made them (served = newest). `alsoIn` (the audit entry) gets the
   * previously served key and commits with the insert.
   */
  insertServed(
    row: { id: string; publicPem: string; privatePem: string; now: number },
    alsoIn?: (tx: Tx, previous: RsaKeyRow | null, created: RsaKeyRow) => Promise<void>,
  ): Promise<RsaKeyRow> {
    return this.db.transaction().execute(async (tx) => {
      const previous = (await activeNewestFirst(tx).select(['id', 'public_pem', 'active', 'create_time']).limit(1).executeTakeFirst()) ?? null;
      const newest = await tx.selectFrom('rsa_keys').select((eb) => eb.fn.max('create_time').as('t')).executeTakeFirst();
      const created: RsaKeyRow = { id: row.id, public_pem: row.publicPem, active: 1, create_time: Math.max(row.now, Number(newest?.t ?? 0) + 1) };
      await tx.insertInto('rsa_keys').values({ ...created, private_pem: row.privatePem }).execute();
      await alsoIn?.(tx, previous, created);
      return created;
    });
  }

  /**
   * Sets a key inactive unless it is the served one (the newest active key), checked in the same
   * transaction as the update. `alsoIn` (the audit entry) commits with it.
   */
  retire(id: string, alsoIn?: (tx: Tx, key: RsaKeyRow) => Promise<void>): Promise<{ outcome: 'retired' | 'served' | 'missing' | 'already'; key?: RsaKeyRow }> {
    return this.db.transaction().execute(async (tx) => {
      const key = await tx.selectFrom('rsa_keys').select(['id', 'public_pem', 'active', 'create_time']).where('id', '=', id).executeTakeFirst();
      if (!key) return { outcome: 'missing' as const };
      if (!key.active) return { outcome: 'already' as const, key };
      const served = await activeNewestFirst(tx).select('id').limit(1).executeTakeFirst();
      if (served?.id === id) return { outcome: 'served' as const, key };
      const done = await tx.updateTable('rsa_keys').set({ active: 0 }).where('id', '=', id).where('active', '=', 1).executeTakeFirst();
      if (!done.numUpdatedRows) return { outcome: 'already' as const, key };
      const retired = { ...key, active: 0 };
      await alsoIn?.(tx, retired);
      return { outcome: 'retired' as const, key: retired };
    });
  }
}
