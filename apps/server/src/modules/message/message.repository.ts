import type { Insertable } from 'kysely';
import type { MessageType } from '@suanli/contracts';
import type { Db } from '../../db/db';
import { prepare } from '../../db/prepared';
import type { MessagesTable } from '../../db/schema';

export interface MessageFilter {
  viewed?: boolean;
  type?: MessageType;
}

/** The only place with message SQL. Every statement is scoped by user_id, which leads both indexes. */
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
    return this.db.insertInto('messages').values(rows).execute();
  }

  private filtered(userId: string, f: MessageFilter) {
    let q = this.db.selectFrom('messages').where('user_id', '=', userId);
    if (f.viewed !== undefined) q = q.where('viewed', '=', f.viewed ? 1 : 0);
    if (f.type !== undefined) q = q.where('type', '=', f.type);
    return q;
  }

  /** Newest first: ids are time-ordered (lib/id), so (user_id, id) serves the order without a sort. */
  page(userId: string, f: MessageFilter, offset: number, limit: number) {
    return this.filtered(userId, f).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  }

  async count(userId: string, f: MessageFilter): Promise<number> {
    const row = await this.filtered(userId, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The hot path behind every console load: one COUNT answered from (user_id, viewed, create_time). */
  /** The benchmarked hot path (POST /unview/count): compiled once (see db/prepared.ts). */
  private readonly unviewed;

  async countUnviewed(userId: string, since: number | undefined): Promise<number> {
    // No startTime counts everything: create_time >= 0 keeps one query shape.
    const [row] = await this.unviewed({ userId, since: since ?? 0 });
    return Number(row.n);
  }

  /** Marks only rows owned by userId; foreign ids match nothing. */
  markViewed(userId: string, ids: string[]) {
    return this.db
      .updateTable('messages')
      .set({ viewed: 1 })
      .where('user_id', '=', userId)
      .where('id', 'in', ids)
      .where('viewed', '=', 0)
      .execute();
  }

  markAllViewed(userId: string) {
    return this.db.updateTable('messages').set({ viewed: 1 }).where('user_id', '=', userId).where('viewed', '=', 0).execute();
  }
}
