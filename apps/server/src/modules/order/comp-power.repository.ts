import type { Db } from '../../db/db';

/** The only place with compute-power SQL. Buckets are read in the order tasks draw from them. */
export class CompPowerRepository {
  constructor(private readonly db: Db) {}

  /** Usable buckets: something left and not yet expired, earliest expiry first. */
  usable(ownerId: string, now: number) {
    return this.db
      .selectFrom('comp_power_buckets')
      .select(['id', 'sub_center_id', 'card_type_id', 'granted', 'remaining', 'expire_time', 'source'])
      .where('owner_id', '=', ownerId)
      .where('expire_time', '>', now)
      .where('remaining', '>', 0)
      .orderBy('expire_time', 'asc')
      .orderBy('id', 'asc')
      .execute();
  }
}
