import type { AccessSessionKind } from '@suanli/contracts';
import type { Db } from '../../db/db';
import type { AccessSessionsTable } from '../../db/schema';

/** The only SQL of access_sessions. Reads are scoped by the user; the operator view is by time. */
export class AccessLogRepository {
  constructor(private readonly db: Db) {}

  async insert(row: Omit<AccessSessionsTable, 'end_time' | 'end_reason'>) {
    await this.db.insertInto('access_sessions').values({ ...row, end_time: null, end_reason: '' }).execute();
  }

  /** Ends an open record; a record already ended keeps its first end. */
  async end(id: string, at: number, reason: string) {
    await this.db
      .updateTable('access_sessions')
      .set({ end_time: at, end_reason: reason })
      .where('id', '=', id)
      .where('end_time', 'is', null)
      .execute();
  }

  /**
   * The holding process is alive: its records among `ids` were seen at `at`. One another replica ended as
   * `lostReason` (this process was paused, not dead) is open again: its session still runs here.
   */
  async renew(ids: readonly string[], at: number, lostReason: string) {
    // In slices: a gateway may hold thousands of shells, and SQL parameters are bounded.
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .updateTable('access_sessions')
        .set({ seen_time: at, end_time: null, end_reason: '' })
        .where('id', 'in', ids.slice(i, i + 500))
        .where((eb) => eb.or([eb('end_time', 'is', null), eb('end_reason', '=', lostReason)]))
        .execute();
    }
  }

  /** Ends the open records nobody renewed since `before`, at their last renewal; how many. */
  async endUnseen(before: number, reason: string): Promise<number> {
    const r = await this.db
      .updateTable('access_sessions')
      .set((eb) => ({ end_time: eb.ref('seen_time'), end_reason: reason }))
      .where('end_time', 'is', null)
      .where('seen_time', '<', before)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Records of a kind still open (a sweep ends those whose cause is gone). */
  openOfKind(kind: AccessSessionKind) {
    return this.db.selectFrom('access_sessions').select(['id', 'target']).where('kind', '=', kind).where('end_time', 'is', null).execute();
  }

  /** A user's records of a kind still open, on any gateway. */
  openOfUser(userId: string, kind: AccessSessionKind) {
    return this.db.selectFrom('access_sessions').select('id').where('user_id', '=', userId).where('kind', '=', kind).where('end_time', 'is', null).execute();
  }

  async pageOfUser(userId: string, kind: AccessSessionKind | undefined, offset: number, limit: number) {
    let q = this.db.selectFrom('access_sessions').where('user_id', '=', userId);
    if (kind) q = q.where('kind', '=', kind);
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Operators: every user's records, newest first. */
  async pageAll(kind: AccessSessionKind | undefined, offset: number, limit: number) {
    let q = this.db.selectFrom('access_sessions');
    if (kind) q = q.where('kind', '=', kind);
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Operators: every user's records started in [from, to), newest first. */
  listBetween(from: number, to: number, limit: number) {
    return this.db
      .selectFrom('access_sessions')
      .selectAll()
      .where('start_time', '>=', from)
      .where('start_time', '<', to)
      .orderBy('start_time', 'desc')
      .limit(limit)
      .execute();
  }
}
