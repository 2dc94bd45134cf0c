import type { Insertable } from 'kysely';
import type { Db } from '../../db/db';
import type { KeyPairsTable, PlatformKeysTable } from '../../db/schema';

/** The only SQL of key pairs, their installs and the platform keys. Every read of a user's key is owner-scoped. */
export class KeyPairRepository {
  constructor(private readonly db: Db) {}

  listOfUser(userId: string) {
    return this.db.selectFrom('key_pairs').selectAll().where('user_id', '=', userId).orderBy('create_time', 'desc').orderBy('id', 'desc').execute();
  }

  countOfUser(userId: string) {
    return this.db
      .selectFrom('key_pairs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /** The caller's key, or undefined (someone else's is indistinguishable from a missing one). */
  findOwned(userId: string, id: string) {
    return this.db.selectFrom('key_pairs').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  /** False when the user already has a key with this fingerprint (the unique index decides, also in a race). */
  async insert(row: Insertable<KeyPairsTable>): Promise<boolean> {
    await this.db.insertInto('key_pairs').values(row).onConflict((oc) => oc.columns(['user_id', 'fingerprint']).doNothing()).execute();
    // Whether this row (and not an earlier one with the same fingerprint) is the one stored.
    const stored = await this.db.selectFrom('key_pairs').select('id').where('id', '=', row.id).executeTakeFirst();
    return stored !== undefined;
  }

  async remove(userId: string, id: string): Promise<void> {
    await this.db.deleteFrom('key_installs').where('key_id', '=', id).execute();
    await this.db.deleteFrom('key_pairs').where('id', '=', id).where('user_id', '=', userId).execute();
  }

  installsOf(keyIds: string[]) {
    if (!keyIds.length) return Promise.resolve([]);
    return this.db.selectFrom('key_installs').selectAll().where('key_id', 'in', keyIds).orderBy('install_time').execute();
  }

  async recordInstall(keyId: string, subCenterId: string, account: string, at: number) {
    await this.db
      .insertInto('key_installs')
      .values({ key_id: keyId, sub_center_id: subCenterId, account, install_time: at })
      .onConflict((oc) => oc.columns(['key_id', 'sub_center_id']).doUpdateSet({ account, install_time: at }))
      .execute();
  }

  async recordUninstall(keyId: string, subCenterId: string) {
    await this.db.deleteFrom('key_installs').where('key_id', '=', keyId).where('sub_center_id', '=', subCenterId).execute();
  }

  platformKey(userId: string) {
    return this.db.selectFrom('platform_keys').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** First writer wins (two shells opened at once by a new user make one key). */
  async insertPlatformKey(row: PlatformKeysTable) {
    await this.db.insertInto('platform_keys').values(row).onConflict((oc) => oc.column('user_id').doNothing()).execute();
  }
}
