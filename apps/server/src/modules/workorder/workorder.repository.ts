import { sql, type Insertable, type Transaction } from 'kysely';
import { WORKORDER_OPEN_MAX, type WorkOrderState } from '@suanli/contracts';
import type { Db, InTx } from '../../db/db';
import type { Database, WorkOrderAttachmentsTable, WorkOrderRepliesTable, WorkOrdersTable } from '../../db/schema';

export type WorkOrderRow = WorkOrdersTable;
export type ReplyRow = WorkOrderRepliesTable;
export type AttachmentMeta = Omit<WorkOrderAttachmentsTable, 'data'>;

export interface WorkOrderFilter {
  /** Absent: everyone's (operators). */
  ownerId?: string;
  state?: WorkOrderState;
  keyword?: string;
}

/** Why a write was not made; the transaction was rolled back. */
export type WriteRefusal = 'limit' | 'orderNo' | 'attachments' | 'moved';

/** Thrown inside a transaction to roll it back, caught at its edge and returned as the refusal. */
class Refused extends Error {
  constructor(readonly why: WriteRefusal) {
    super(why);
  }
}

async function refusable(run: () => Promise<void>): Promise<WriteRefusal | null> {
  try {
    await run();
    return null;
  } catch (err) {
    if (err instanceof Refused) return err.why;
    throw err;
  }
}

const likePattern = (s: string) => `%${s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;

const ATTACHMENT_META = ['id', 'uploader_id', 'name', 'size', 'content_type', 'work_order_id', 'reply_id', 'create_time'] as const;

/**
 * The only SQL of work orders, their replies and screenshots. A user's own list is scoped by owner; reads of
 * one work order by id are checked by the service (the owner or an operator). Every change of state is a
 * conditional UPDATE on the state the service saw, so of two concurrent requests only one moves it.
 */
export class WorkOrderRepository {
  constructor(private readonly db: Db) {}

  private base() {
    return this.db.selectFrom('work_orders').selectAll('work_orders');
  }

  /** The work order, whoever owns it (the service asks the access module whether the caller may see it). */
  find(id: string): Promise<WorkOrderRow | undefined> {
    return this.base().where('work_orders.id', '=', id).executeTakeFirst();
  }

  private filtered(f: WorkOrderFilter) {
    let q = this.db.selectFrom('work_orders');
    if (f.ownerId !== undefined) q = q.where('work_orders.owner_id', '=', f.ownerId);
    if (f.state) q = q.where('work_orders.state', '=', f.state);
    if (f.keyword) {
      const pattern = likePattern(f.keyword);
      q = q.where((eb) =>
        eb.or([sql<boolean>`lower(${eb.ref('work_orders.title')}) like ${pattern} escape '!'`, sql<boolean>`lower(${eb.ref('work_orders.order_no')}) like ${pattern} escape '!'`]),
      );
    }
    return q;
  }

  /** Newest change first. */
  async page(f: WorkOrderFilter, offset: number, limit: number): Promise<{ rows: WorkOrderRow[]; total: number }> {
    const ids = this.filtered(f).select('work_orders.id').orderBy('work_orders.update_time', 'desc').orderBy('work_orders.id', 'desc').limit(limit).offset(offset);
    const [rows, total] = await Promise.all([
      this.base().where('work_orders.id', 'in', ids).orderBy('work_orders.update_time', 'desc').orderBy('work_orders.id', 'desc').execute(),
      this.filtered(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n)),
    ]);
    return { rows, total };
  }

  /** The highest orderNo starting with `prefix` (`GD` + the day): the next one is one more. */
  async lastOrderNo(prefix: string): Promise<string | undefined> {
    // A range, not LIKE: PostgreSQL uses the unique index for it whatever the collation. ':' follows '9'.
    const row = await this.db
      .selectFrom('work_orders')
      .select('order_no')
      .where('order_no', '>', prefix)
      .where('order_no', '<', `${prefix}:`)
      .orderBy('order_no', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.order_no;
  }

  /**
   * The new work order, counted against its owner's open limit, with its screenshots claimed — all or
   * nothing. Refused with 'limit' (the owner has WORKORDER_OPEN_MAX open), 'orderNo' (taken meanwhile) or
   * 'attachments' (one is not the owner's unused upload of `since` or later).
   */
  create(row: Insertable<WorkOrdersTable>, attachmentIds: string[], since: number): Promise<WriteRefusal | null> {
    return refusable(() =>
      this.db.transaction().execute(async (trx) => {
        await trx.insertInto('work_order_open_counts').values({ user_id: row.owner_id, n: 0 }).onConflict((oc) => oc.column('user_id').doNothing()).execute();
        const counted = await trx
          .updateTable('work_order_open_counts')
          .set((eb) => ({ n: eb('n', '+', 1) }))
          .where('user_id', '=', row.owner_id)
          .where('n', '<', WORKORDER_OPEN_MAX)
          .executeTakeFirst();
        if (Number(counted.numUpdatedRows) !== 1) throw new Refused('limit');
        const inserted = await trx.insertInto('work_orders').values(row).onConflict((oc) => oc.column('order_no').doNothing()).executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) throw new Refused('orderNo');
        await claim(trx, row.owner_id, attachmentIds, row.id, null, since);
      }),
    );
  }

  /**
   * A reply, moving the work order from `from` to `patch.state` — only if it is still in `from` ('moved'
   * otherwise: the service reads it again and decides anew) — with the author's screenshots claimed.
   */
  reply(
    workOrderId: string,
    from: WorkOrderState,
    patch: { state: WorkOrderState; last_reply_by: 'user' | 'operator'; update_time: number },
    reply: Insertable<WorkOrderRepliesTable>,
    attachmentIds: string[],
    since: number,
  ): Promise<WriteRefusal | null> {
    return refusable(() =>
      this.db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('work_orders')
          .set((eb) => ({ ...patch, reply_count: eb('reply_count', '+', 1) }))
          .where('id', '=', workOrderId)
          .where('state', '=', from)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) throw new Refused('moved');
        await trx.insertInto('work_order_replies').values(reply).execute();
        await claim(trx, reply.author_id, attachmentIds, workOrderId, reply.id, since);
      }),
    );
  }

  /** PENDING or PROCESSING → RESOLVED; false when it was in neither (already resolved, or closed). */
  /**
   * `from` (PENDING or PROCESSING, as the service read it) → RESOLVED, and `alsoIn` (the operator's audit
   * entry) in the same transaction; false, with nothing written, when the state moved meanwhile.
   */
  async resolve(id: string, from: string, now: number, alsoIn?: InTx): Promise<boolean> {
    if (from !== 'PENDING' && from !== 'PROCESSING') return false;
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('work_orders').set({ state: 'RESOLVED', update_time: now }).where('id', '=', id).where('state', '=', from).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await alsoIn?.(trx);
      return true;
    });
  }

  /**
   * `from` (any state but CLOSED, as the service read it) → CLOSED, leaving the owner's open count, and
   * `alsoIn` (an operator's audit entry) in the same transaction; false when the state moved meanwhile.
   */
  close(id: string, ownerId: string, from: string, now: number, alsoIn?: InTx): Promise<boolean> {
    if (from === 'CLOSED') return Promise.resolve(false);
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('work_orders').set({ state: 'CLOSED', update_time: now }).where('id', '=', id).where('state', '=', from).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('work_order_open_counts')
        .set((eb) => ({ n: eb('n', '-', 1) }))
        .where('user_id', '=', ownerId)
        .execute();
      await alsoIn?.(trx);
      return true;
    });
  }

  /** The conversation, oldest first (ids are time-ordered). */
  replies(workOrderId: string): Promise<ReplyRow[]> {
    return this.db
      .selectFrom('work_order_replies')
      .selectAll('work_order_replies')
      .where('work_order_replies.work_order_id', '=', workOrderId)
      .orderBy('work_order_replies.id', 'asc')
      .execute();
  }

  /** Every screenshot of a work order (its description's and its replies'), without the bytes. */
  attachmentsOf(workOrderId: string): Promise<AttachmentMeta[]> {
    return this.db.selectFrom('work_order_attachments').select(ATTACHMENT_META).where('work_order_id', '=', workOrderId).orderBy('id', 'asc').execute();
  }

  /** The uploader's attachments among `ids`, without the bytes (to tell which of them cannot be used). */
  uploadsOf(uploaderId: string, ids: string[]): Promise<AttachmentMeta[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db.selectFrom('work_order_attachments').select(ATTACHMENT_META).where('uploader_id', '=', uploaderId).where('id', 'in', ids).execute();
  }

  insertAttachment(row: Insertable<WorkOrderAttachmentsTable>) {
    return this.db.insertInto('work_order_attachments').values(row).execute();
  }

  /** The attachment with its bytes and the owner of the work order it belongs to (null while unused). */
  attachment(id: string) {
    return this.db
      .selectFrom('work_order_attachments')
      .leftJoin('work_orders', 'work_orders.id', 'work_order_attachments.work_order_id')
      .selectAll('work_order_attachments')
      .select('work_orders.owner_id as order_owner_id')
      .where('work_order_attachments.id', '=', id)
      .executeTakeFirst();
  }

  /** The uploader's unused uploads of `since` or later (bounds what one user can park in the database). */
  async countUnused(uploaderId: string, since: number): Promise<number> {
    const r = await this.db
      .selectFrom('work_order_attachments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('uploader_id', '=', uploaderId)
      .where('create_time', '>=', since)
      .where('work_order_id', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Removes every unused upload older than `before` (of all users: nobody can use them any more). */
  async sweepUnused(before: number): Promise<void> {
    await this.db.deleteFrom('work_order_attachments').where('work_order_id', 'is', null).where('create_time', '<', before).execute();
  }
}

/**
 * Marks the uploader's unused uploads as the message's, all of `ids` or none: a conditional UPDATE, so an
 * upload two messages race for goes to one of them only.
 */
async function claim(trx: Transaction<Database>, uploaderId: string, ids: string[], workOrderId: string, replyId: string | null, since: number) {
  if (!ids.length) return;
  const r = await trx
    .updateTable('work_order_attachments')
    .set({ work_order_id: workOrderId, reply_id: replyId })
    .where('id', 'in', ids)
    .where('uploader_id', '=', uploaderId)
    .where('work_order_id', 'is', null)
    .where('create_time', '>=', since)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== ids.length) throw new Refused('attachments');
}
