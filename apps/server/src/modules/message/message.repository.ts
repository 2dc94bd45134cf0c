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
    this.unviewedAll = prepare(db, (db, a: { userId: string }) =>
      db
        .selectFrom('message_counts')
        .select((eb) => eb.fn.sum<number>('n').as('n'))
        .where('user_id', '=', a.userId)
        .where('viewed', '=', 0),
    );
  }

  /**
   * Stores the rows in one transaction: one commit (on SQLite with synchronous=FULL, one fsync of the WAL)
   * however many rows. The statements take at most INSERT_ROWS rows each, within both engines'
   * bound-parameter limits (9 parameters a message, 4 a counter).
   */
  insertMany(rows: Insertable<MessagesTable>[]) {
    return this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += INSERT_ROWS) await trx.insertInto('messages').values(rows.slice(i, i + INSERT_ROWS)).execute();
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
   * The hot path behind every console load and bench/api, compiled once (see db/prepared.ts). Without a
   * startTime (what the console sends) it is a sum over the user's at most five unread rows of
   * message_counts, whatever the number of messages; with one, a COUNT from (user_id, viewed, create_time)
   * that steps through the unread messages since then.
   */
  private readonly unviewed;
  private readonly unviewedAll;

  async countUnviewed(userId: string, since: number | undefined): Promise<number> {
    // startTime 0 means every message too (create_time is epoch ms, never negative).
    const [row] = since === undefined || since <= 0 ? await this.unviewedAll({ userId }) : await this.unviewed({ userId, since });
    return Number(row?.n ?? 0);
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
  for (let i = 0; i < deltas.length; i += INSERT_ROWS) {
    await trx
      .insertInto('message_counts')
      .values(deltas.slice(i, i + INSERT_ROWS))
      .onConflict((oc) => oc.columns(['user_id', 'type', 'viewed']).doUpdateSet((eb) => ({ n: eb('message_counts.n', '+', eb.ref('excluded.n')) })))
      .execute();
  }
}

/** Rows per INSERT statement: 9,000 parameters at most, under SQLite's 32,766 and PostgreSQL's 65,535. */
const INSERT_ROWS = 1_000;
