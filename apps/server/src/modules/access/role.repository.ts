import type { Db, Tx } from '../../db/db';
import { prepare } from '../../db/prepared';

/** The only SQL of `user_roles`: the roles granted beyond `user`, one row per user and role. */
export class RoleRepository {
  /** Runs with every session verification that misses the cache: compiled once (db/prepared.ts). */
  private readonly ofUser;

  constructor(private readonly db: Db) {
    this.ofUser = prepare(db, (db, a: { userId: string }) => db.selectFrom('user_roles').select('role').where('user_id', '=', a.userId));
  }

  async rolesOf(userId: string): Promise<string[]> {
    return (await this.ofUser({ userId })).map((r) => r.role);
  }

  /** The granted roles of many users at once (lists of accounts). */
  async rolesOfMany(userIds: string[]): Promise<{ user_id: string; role: string }[]> {
    if (!userIds.length) return [];
    return this.db.selectFrom('user_roles').select(['user_id', 'role']).where('user_id', 'in', [...new Set(userIds)]).execute();
  }

  /** Who holds `role`, earliest grant first. */
  holders(role: string): Promise<{ user_id: string; create_time: number }[]> {
    return this.db.selectFrom('user_roles').select(['user_id', 'create_time']).where('role', '=', role).orderBy('create_time').orderBy('user_id').execute();
  }

  /**
   * Grants (or with `grant: false` revokes) in one transaction: the roles before, the change, the roles
   * after, and — only when something changed — `alsoIn` with them (the audit entry), so the entry exists
   * exactly when the change does. Null when nothing changed.
   */
  async change(
    userId: string,
    role: string,
    grant: boolean,
    now: number,
    alsoIn?: (tx: Tx, before: string[], after: string[]) => Promise<void>,
  ): Promise<{ before: string[]; after: string[] } | null> {
    return this.db.transaction().execute(async (tx) => {
      const read = async () => (await tx.selectFrom('user_roles').select('role').where('user_id', '=', userId).orderBy('role').execute()).map((r) => r.role);
      const before = await read();
      const changed = grant
        ? (await tx.insertInto('user_roles').values({ user_id: userId, role, create_time: now }).onConflict((oc) => oc.columns(['user_id', 'role']).doNothing()).executeTakeFirst())
            .numInsertedOrUpdatedRows
        : (await tx.deleteFrom('user_roles').where('user_id', '=', userId).where('role', '=', role).executeTakeFirst()).numDeletedRows;
      if (!changed) return null;
      const after = await read();
      await alsoIn?.(tx, before, after);
      return { before, after };
    });
  }
}
