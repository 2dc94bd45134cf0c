import type { Db } from '../../db/db';
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

  async grant(userId: string, role: string, now: number): Promise<void> {
    await this.db.insertInto('user_roles').values({ user_id: userId, role, create_time: now }).onConflict((oc) => oc.columns(['user_id', 'role']).doNothing()).execute();
  }

  async revoke(userId: string, role: string): Promise<void> {
    await this.db.deleteFrom('user_roles').where('user_id', '=', userId).where('role', '=', role).execute();
  }
}
