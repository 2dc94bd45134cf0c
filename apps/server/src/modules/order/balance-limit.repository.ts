import type { Db } from '../../db/db';
import type { BalanceLimitsTable } from '../../db/schema';
import { chunks } from './metering.repository';

export type BalanceLimitRow = BalanceLimitsTable;

/** The balance limits' state (migration 0034) and the balance question they are set from (issue 25). */
export class BalanceLimitRepository {
  constructor(private readonly db: Db) {}

  /** The limit last set on each of `accounts` of the center (an account never set has no row). */
  async states(subCenterId: string, accounts: string[]): Promise<Map<string, BalanceLimitRow>> {
    const out = new Map<string, BalanceLimitRow>();
    for (const part of chunks([...new Set(accounts)])) {
      const rows = await this.db.selectFrom('balance_limits').selectAll().where('sub_center_id', '=', subCenterId).where('account', 'in', part).execute();
      for (const r of rows) out.set(r.account, r);
    }
    return out;
  }

  /** The user's accounts the scheduler holds, by center. */
  heldOf(ownerId: string) {
    return this.db.selectFrom('balance_limits').select(['sub_center_id', 'account']).where('owner_id', '=', ownerId).where('limited', '=', 1).orderBy('sub_center_id').execute();
  }

  /** Records what Slurm accepted (called only after it did). */
  async save(row: BalanceLimitRow): Promise<void> {
    await this.db
      .insertInto('balance_limits')
      .values(row)
      .onConflict((oc) => oc.columns(['sub_center_id', 'account']).doUpdateSet({ owner_id: row.owner_id, limited: row.limited, update_time: row.update_time }))
      .execute();
  }

  /** Those of `payers` (users, `team:<id>`) with usable compute power on the center for any of `cardTypeIds`. */
  async powered(payers: string[], subCenterId: string, cardTypeIds: string[], now: number): Promise<Set<string>> {
    const out = new Set<string>();
    if (!cardTypeIds.length) return out;
    for (const part of chunks([...new Set(payers)])) {
      const rows = await this.db
        .selectFrom('comp_power_buckets')
        .select('owner_id')
        .distinct()
        .where('owner_id', 'in', part)
        .where('sub_center_id', '=', subCenterId)
        .where('card_type_id', 'in', cardTypeIds)
        .where('expire_time', '>', now)
        .where('remaining', '>', 0)
        .execute();
      for (const r of rows) out.add(r.owner_id);
    }
    return out;
  }
}
