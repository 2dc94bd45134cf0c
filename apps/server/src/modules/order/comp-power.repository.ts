import { sql } from 'kysely';
import type { Db, InTx } from '../../db/db';
import { isUniqueViolation } from '../../db/unique';

export interface NewGrant {
  ownerId: string;
  subCenterId: string;
  cardTypeId: string;
  cardSeconds: number;
  expireTime: number;
  reason: string;
  grantedBy: string | null;
  /** Given once per key (the welcome and demo grants); null: every call gives. */
  key: string | null;
}

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

  /**
   * A grant (赠送): the bucket (source `grant`) and its charge-side record (kind `grant`) in one transaction.
   * False, nothing written, when the grant's key was given before (the unique `grant_key`). `alsoIn` runs in
   * the same transaction after both writes (an operator's grant: its audit entry).
   */
  async grant(g: NewGrant, ids: { bucketId: string; chargeId: string }, now: number, alsoIn?: InTx): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('charge_records')
          .values({
            id: ids.chargeId,
            owner_id: g.ownerId,
            kind: 'grant',
            order_id: null,
            order_no: null,
            amount: 0,
            card_seconds: g.cardSeconds,
            comp_power_id: ids.bucketId,
            sub_center_id: g.subCenterId,
            card_type_id: g.cardTypeId,
            pay_channel: null,
            reason: g.reason,
            granted_by: g.grantedBy,
            grant_key: g.key,
            create_time: now,
          })
          .execute();
        await trx
          .insertInto('comp_power_buckets')
          .values({
            id: ids.bucketId,
            owner_id: g.ownerId,
            sub_center_id: g.subCenterId,
            card_type_id: g.cardTypeId,
            granted: g.cardSeconds,
            remaining: g.cardSeconds,
            expire_time: g.expireTime,
            source: 'grant',
            create_time: now,
          })
          .execute();
        await alsoIn?.(trx);
      });
      return true;
    } catch (err) {
      if (g.key && isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Which of these grant keys were given already. */
  async givenKeys(keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await this.db.selectFrom('charge_records').select('grant_key').where('grant_key', 'in', keys).execute();
    return new Set(rows.map((r) => r.grant_key!));
  }

  /**
   * Operators' grants (granted_by set), newest first, with the expiry of the bucket each made; `ownerIds`
   * narrows to those recipients (an empty list: none).
   */
  async operatorGrants(ownerIds: string[] | undefined, offset: number, limit: number) {
    let q = this.db
      .selectFrom('charge_records as c')
      .innerJoin('comp_power_buckets as b', 'b.id', 'c.comp_power_id')
      .where('c.kind', '=', 'grant')
      .where('c.granted_by', 'is not', null);
    if (ownerIds) q = ownerIds.length ? q.where('c.owner_id', 'in', ownerIds) : q.where(sql<boolean>`1 = 0`);
    const [rows, total] = await Promise.all([
      q
        .select(['c.id', 'c.owner_id', 'c.card_seconds', 'c.comp_power_id', 'c.sub_center_id', 'c.card_type_id', 'c.reason', 'c.granted_by', 'c.create_time', 'b.expire_time'])
        .orderBy('c.create_time', 'desc')
        .orderBy('c.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      q
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }
}
