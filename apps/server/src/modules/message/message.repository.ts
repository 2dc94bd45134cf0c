import type { Insertable, Transaction } from 'kysely';
import type { MessageQueryBody } from '@suanli/contracts';
import type { Db } from '../../db/db';
import { prepare } from '../../db/prepared';
import type { Database, MessagesTable } from '../../db/schema';

export type MessageFilter = Pick<MessageQueryBody, 'viewed' | 'type'>;

/** A change to message_counts: `n` more (or fewer) messages of that user, type and read state. */
type CountDelta = { user_id: string; type: string; viewed: number; n: number };

/** Sums deltas per key, drops those that cancel out, and orders them by key (see adjustCounts). */
function tally(deltas: CountDelta[]): CountDelta[] {
  const byKey = new Map<string, CountDelta>();
  for (const d of deltas) {
    const key = JSON.stringify([d.user_id, d.type, d.viewed]);
    const t = byKey.get(key);
    if (t) t.n += d.n;
    else byKey.set(key, { ...d });
  }
  return [...byKey.entries()]
    .filter(([, d]) => d.n !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, d]) => d);
}

/**
 * The only place with message SQL. Every statement is scoped by user_id, which leads every index.
 *
 * message_counts holds each user's messages per (type, viewed) and is exact because every write here
 * changes it in the same transaction, by what the write actually changed (an UPDATE returns the rows it
 * flipped, so concurrent markers never count a message twice). Anything that writes `messages` must go
 * through this class.
 */
export class MessageRepository {
  constructor(private readonly db: Db) {
    this.unviewed = prepare(db, (db, a: { userId: string; since: number }) =>
      db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', a.userId)
        .where('viewed', '=', 0)
        .where('create_time', '>=', a.since),
    );
  }

  insertMany(rows: Insertable<MessagesTable>[]) {
    return this.db.transaction().execute(async (trx) => {
      await trx.insertInto('messages').values(rows).execute();
      await adjustCounts(trx, tally(rows.map((r) => ({ user_id: r.user_id, type: r.type, viewed: r.viewed ?? 0, n: 1 }))));
    });
  }

  private filtered(userId: string, f: MessageFilter) {
    let q = this.db.selectFrom('messages').where('user_id', '=', userId);
    if (f.viewed !== undefined) q = q.where('viewed', '=', f.viewed ? 1 : 0);
    if (f.type !== undefined) q = q.where('type', '=', f.type);
    return q;
  }

  /**
   * Rows [offset, offset + limit) of the `total` matching messages, newest first (ids are time-ordered,
   * lib/id). An OFFSET steps through every row it skips, so: the skipping reads ids only, from the
   * (user_id, [type,] [viewed,] id) index that fits the filter, and full rows are fetched for the page's
   * ids alone; and a page in the older half is counted from the oldest end. The deepest page then costs
   * what page 1 does and the middle page is the worst, at total / 2 index entries.
   */
  async page(userId: string, f: MessageFilter, offset: number, limit: number, total: number) {
    const end = Math.min(offset + limit, total);
    if (offset >= end) return [];
    const fromOldest = total - end < offset;
    const ids = this.filtered(userId, f)
      .select('id')
      .orderBy('id', fromOldest ? 'asc' : 'desc')
      .limit(end - offset)
      .offset(fromOldest ? total - end : offset);
    return this.db.selectFrom('messages').selectAll().where('id', 'in', ids).orderBy('id', 'desc').execute();
  }

  /** From message_counts: at most ten rows per user, however many messages match. */
  async count(userId: string, f: MessageFilter): Promise<number> {
    let q = this.db
      .selectFrom('message_counts')
      .select((eb) => eb.fn.sum<number>('n').as('n'))
      .where('user_id', '=', userId);
    if (f.viewed !== undefined) q = q.where('viewed', '=', f.viewed ? 1 : 0);
    if (f.type !== undefined) q = q.where('type', '=', f.type);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n ?? 0);
  }

  /**
   * The hot path behind every console load and bench/api: one COUNT answered from (user_id, viewed,
   * create_time), compiled once (see db/prepared.ts).
   */
  private readonly unviewed;

  async countUnviewed(userId: string, since: number | undefined): Promise<number> {
    // No startTime counts everything: create_time >= 0 keeps one query shape.
    const [row] = await this.unviewed({ userId, since: since ?? 0 });
    return Number(row.n);
  }

  /** Marks only rows owned by userId; foreign ids match nothing. */
  markViewed(userId: string, ids: string[]) {
    return this.db.transaction().execute(async (trx) => {
      const flipped = await trx
        .updateTable('messages')
        .set({ viewed: 1 })
        .where('user_id', '=', userId)
        .where('id', 'in', ids)
        .where('viewed', '=', 0)
        .returning('type')
        .execute();
      await adjustCounts(trx, movedToViewed(userId, flipped));
    });
  }

  markAllViewed(userId: string) {
    return this.db.transaction().execute(async (trx) => {
      const flipped = await trx.updateTable('messages').set({ viewed: 1 }).where('user_id', '=', userId).where('viewed', '=', 0).returning('type').execute();
      await adjustCounts(trx, movedToViewed(userId, flipped));
    });
  }
}

function movedToViewed(userId: string, flipped: { type: string }[]): CountDelta[] {
  return tally(flipped.flatMap(({ type }) => [
    { user_id: userId, type, viewed: 0, n: -1 },
    { user_id: userId, type, viewed: 1, n: 1 },
  ]));
}

/**
 * Adds the deltas to message_counts (one upsert). On PostgreSQL each counter row stays locked until the
 * transaction commits; taking them in key order means two transactions never wait on each other in a cycle.
 */
async function adjustCounts(trx: Transaction<Database>, deltas: CountDelta[]) {
  if (!deltas.length) return;
  await trx
    .insertInto('message_counts')
    .values(deltas)
    .onConflict((oc) => oc.columns(['user_id', 'type', 'viewed']).doUpdateSet((eb) => ({ n: eb('message_counts.n', '+', eb.ref('excluded.n')) })))
    .execute();
}
