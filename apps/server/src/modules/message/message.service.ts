import { MESSAGE_TYPES, WS_UNREAD_INCREMENT, type Message, type MessagePage, type MessageQueryBody, type MessageType } from '@suanli/contracts';
import type { NewMessage } from '../../context';
import type { MessagesTable } from '../../db/schema';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { Principal } from '../access/principal';
import type { MessageFilter, MessageRepository } from './message.repository';

const toMessage = (r: MessagesTable): Message => ({
  id: r.id,
  type: r.type as MessageType,
  title: r.title,
  content: r.content,
  businessType: r.business_type,
  businessId: r.business_id,
  viewed: r.viewed === 1,
  createTime: Number(r.create_time),
});

/**
 * The caller's messages (list, unread count, mark viewed) and `notify`, which every other module uses to
 * tell a user something: the message is stored first, then `notice.unread.increment` goes to every socket
 * of that user on every gateway process.
 */
export class MessageService {
  constructor(
    private readonly repo: MessageRepository,
    private readonly clock: () => number,
    private readonly bus: EventBus,
  ) {}

  async query(p: Principal, q: MessageQueryBody): Promise<MessagePage> {
    const filter: MessageFilter = { viewed: q.viewed, type: q.type };
    // The total comes first: it tells the page query from which end a deep page is nearer.
    const total = await this.repo.count(p.userId, filter);
    const rows = await this.repo.page(p.userId, filter, (q.pageNum - 1) * q.pageSize, q.pageSize, total);
    return { list: rows.map(toMessage), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  unviewCount(p: Principal, startTime: number | undefined): Promise<number> {
    return this.repo.countUnviewed(p.userId, startTime);
  }

  async view(p: Principal, ids: string[]): Promise<null> {
    await this.repo.markViewed(p.userId, [...new Set(ids)]);
    return null;
  }

  async viewAll(p: Principal): Promise<null> {
    await this.repo.markAllViewed(p.userId);
    return null;
  }

  notify(userId: string, message: NewMessage): Promise<void> {
    return this.notifyMany(userId, [message]);
  }

  /** Several messages for one user in one insert and one push (`count: n`), e.g. a batch of task states. */
  async notifyMany(userId: string, messages: NewMessage[]): Promise<void> {
    if (!messages.length) return;
    const now = this.clock();
    const rows = messages.map((m) => toRow(userId, m, now));
    await this.repo.insertMany(rows);
    await this.bus.publish(userId, { businessType: WS_UNREAD_INCREMENT, data: { count: rows.length } });
  }

  /**
   * One message to each of many users (an announcement to everybody): a loop of `notify` would commit
   * once per user — at 10k users that is seconds of fsyncs before the last user hears of it. Stored in a
   * few transactions that grow (NOTIFY_EACH_FIRST users, then NOTIFY_EACH_GROWTH times more each), each
   * batch pushed as soon as it is committed: the first users are not held up by the last, and the last are
   * held up by few commits (10,000 users: 3 commits of 1,000, 3,000 and 6,000 instead of 10 of 1,000 — each
   * commit on SQLite is an fsync, bench/ws).
   */
  async notifyEach(userIds: readonly string[], message: NewMessage): Promise<void> {
    const ids = [...new Set(userIds)];
    const event = { businessType: WS_UNREAD_INCREMENT, data: { count: 1 } } as const;
    // The local sockets get a batch's push inside publish; the other processes' (Redis) travel while the
    // next batch is stored. publish never rejects (EventBus).
    const pushes: Promise<void>[] = [];
    for (let i = 0, size = NOTIFY_EACH_FIRST; i < ids.length; i += size, size *= NOTIFY_EACH_GROWTH) {
      const batch = ids.slice(i, i + size);
      const now = this.clock();
      await this.repo.insertMany(batch.map((userId) => toRow(userId, message, now)));
      for (const userId of batch) pushes.push(this.bus.publish(userId, event));
    }
    await Promise.all(pushes);
  }
}

/** Users in notifyEach's first transaction; each later one is NOTIFY_EACH_GROWTH times the one before. */
const NOTIFY_EACH_FIRST = 1_000;
const NOTIFY_EACH_GROWTH = 3;

function toRow(userId: string, m: NewMessage, now: number) {
  // Callers are our own modules; a wrong type is a programming error, not a user's.
  if (!MESSAGE_TYPES.includes(m.type)) throw new Error(`notify: unknown message type ${String(m.type)}`);
  return {
    id: newId(now),
    user_id: userId,
    type: m.type,
    title: m.title,
    content: m.content,
    business_type: m.businessType ?? null,
    business_id: m.businessId ?? null,
    viewed: 0,
    create_time: now,
  };
}
