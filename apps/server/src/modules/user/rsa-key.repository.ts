import type { Db } from '../../db/db';

export class RsaKeyRepository {
  constructor(private readonly db: Db) {}

  /** Active keys, newest first: the first is served, all of them decrypt (old ones during a rotation). */
  listActive() {
    return this.db
      .selectFrom('rsa_keys')
      .select(['id', 'public_pem', 'private_pem', 'create_time'])
      .where('active', '=', 1)
      .orderBy('create_time', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Inserts unless a row with this id exists: two processes starting together keep only one first key. */
  async insertIfAbsent(row: { id: string; publicPem: string; privatePem: string; now: number }) {
    await this.db
      .insertInto('rsa_keys')
      .values({ id: row.id, public_pem: row.publicPem, private_pem: row.privatePem, active: 1, create_time: row.now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}
