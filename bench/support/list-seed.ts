// The message table bench/list measures: LIST_SEED.userMessages for the benchmark user interleaved in time
// with as many rows of other users, so an index on user_id has to skip foreign rows like it would in
// production. Every attribute is a function of the row's number, so bench/list can compute the exact page
// it expects without reading the database.
import { sql } from 'kysely';
import { MESSAGE_TYPES, type MessageType } from '@suanli/contracts';
import type { AppContext } from '../../apps/server/src/context';
import type { MessagesTable } from '../../apps/server/src/db/schema';
import { newId } from '../../apps/server/src/lib/id';
import { MessageRepository } from '../../apps/server/src/modules/message/message.repository';

export const LIST_SEED = {
  userMessages: 100_000,
  otherMessages: 100_000,
  otherUsers: 1_000,
  /** Rows alternate between the benchmark user and the others, one every 30 s from START. */
  start: Date.UTC(2026, 0, 1),
  stepMs: 30_000,
};

/** The benchmark user's k-th message (0 = oldest): a fifth of each type, every fourth one unread. */
export function benchMessage(k: number): { type: MessageType; viewed: boolean; createTime: number } {
  return { type: MESSAGE_TYPES[k % MESSAGE_TYPES.length], viewed: k % 4 !== 0, createTime: LIST_SEED.start + 2 * k * LIST_SEED.stepMs };
}

const BATCH = 1_000; // 9 parameters a row: far below SQLite's 32766 and PostgreSQL's 65535

/**
 * Inserts the whole table through the message repository, a thousand rows per insert and transaction
 * (100k `notify` calls would be one commit each), then lets PostgreSQL do what autovacuum does to any table
 * this size soon after: collect statistics and set the visibility map. SQLite gets no ANALYZE: the gateway
 * never runs one, so the bench measures the planner the product really has.
 */
export async function seedListMessages(ctx: AppContext, userId: string): Promise<void> {
  const total = LIST_SEED.userMessages + LIST_SEED.otherMessages;
  const row = (i: number): MessagesTable => {
    const k = i >> 1;
    const mine = i % 2 === 0 && k < LIST_SEED.userMessages;
    const m = mine ? benchMessage(k) : { type: MESSAGE_TYPES[i % MESSAGE_TYPES.length], viewed: i % 3 !== 0, createTime: LIST_SEED.start + i * LIST_SEED.stepMs };
    return {
      id: newId(m.createTime),
      user_id: mine ? userId : `other-user-${k % LIST_SEED.otherUsers}`,
      type: m.type,
      title: `消息 ${k}`,
      content: '基准测试消息：列表接口在十万行规模下的分页与计数',
      business_type: null,
      business_id: null,
      viewed: m.viewed ? 1 : 0,
      create_time: m.createTime,
    };
  };
  const repo = new MessageRepository(ctx.db);
  for (let b = 0; b < total; b += BATCH) {
    const rows: MessagesTable[] = [];
    for (let i = b; i < Math.min(total, b + BATCH); i++) rows.push(row(i));
    await repo.insertMany(rows);
  }
  if (ctx.engine === 'postgres') await sql`VACUUM ANALYZE messages`.execute(ctx.db);
}
