import type { Db } from '../../db/db';

export class ClusterAccountRepository {
  constructor(private readonly db: Db) {}

  listOfUser(userId: string) {
    return this.db.selectFrom('cluster_accounts').selectAll().where('user_id', '=', userId).execute();
  }

  find(userId: string, subCenterId: string) {
    return this.db
      .selectFrom('cluster_accounts')
      .selectAll()
      .where('user_id', '=', userId)
      .where('sub_center_id', '=', subCenterId)
      .executeTakeFirst();
  }

  listOnCenter(subCenterId: string, userIds: string[]) {
    return this.db
      .selectFrom('cluster_accounts')
      .select(['user_id', 'account'])
      .where('sub_center_id', '=', subCenterId)
      .where('user_id', 'in', userIds)
      .execute();
  }

  allOnCenter(subCenterId: string) {
    return this.db.selectFrom('cluster_accounts').select(['user_id', 'account']).where('sub_center_id', '=', subCenterId).orderBy('account').execute();
  }

  ownersOn(subCenterId: string, accounts: string[]) {
    return this.db.selectFrom('cluster_accounts').select(['user_id', 'account', 'create_time']).where('sub_center_id', '=', subCenterId).where('account', 'in', accounts).execute();
  }

  countOfCenter(subCenterId: string) {
    return this.db
      .selectFrom('cluster_accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sub_center_id', '=', subCenterId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /** Inserts unless the user already has one there; the unique (center, account) key settles races. */
  async tryInsert(row: { userId: string; subCenterId: string; account: string; uid: number; homeDir: string; now: number }) {
    try {
      await this.db
        .insertInto('cluster_accounts')
        .values({
          user_id: row.userId,
          sub_center_id: row.subCenterId,
          account: row.account,
          uid: row.uid,
          home_dir: row.homeDir,
          status: 'active',
          create_time: row.now,
        })
        .execute();
      return true;
    } catch {
      return false;
    }
  }
}
