import {
  ErrorCode,
  WORKORDER_ATTACHMENT_MAX_BYTES,
  WS_WORKORDER_CHANGED,
  type WorkOrder,
  type WorkOrderAttachment,
  type WorkOrderCreate,
  type WorkOrderDetail,
  type WorkOrderPage,
  type WorkOrderPageQuery,
  type WorkOrderReplyCreate,
  type WorkOrderState,
  type WorkOrderType,
} from '@suanli/contracts';
import type { Notify, NotifyEach } from '../../context';
import type { InTx } from '../../db/db';
import { AppError, invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { TaskQueries } from '../task/task-queries';
import { IMAGE_TYPES, sniffImage } from '../user/avatar';
import type { UserDirectory } from '../user/user-directory';
import type { AttachmentMeta, WorkOrderRepository, WorkOrderRow } from './workorder.repository';
import { nextSerial, serialPrefix } from '../../lib/serial-no';

/** Unused uploads older than this can no longer be sent and are removed (ADR 0011). */
export const ATTACHMENT_UNUSED_TTL_MS = 24 * 3600_000;
/**
 * Unused uploads one user may hold at a time: the bytes live in the database, and a script uploading without
 * ever sending must not fill it. Two full messages' worth and more.
 */
export const ATTACHMENT_UNUSED_MAX = 20;
const NAME_MAX = 128;
/**
 * Concurrent changes between a read and its conditional write (or a number taken meanwhile): try again this
 * many times at most before giving up with an error the user can retry.
 */
const RETRIES = 10;

/** Who a reply speaks for: the owner (`user`), or the operators (anyone else who may see the work order). */
type Role = 'user' | 'operator';

/**
 * 工单 (ADR 0011): a user's questions to the operators. The owner and operators (`roles` contains
 * `operator`) see a work order; anyone else gets 1205 as for a missing one. States move only as the ADR's
 * table says, each move a conditional write on the state read (a concurrent change makes it read again).
 * The owner is told of an operator's reply, resolve or close by a message; the operators of a new work order
 * and of the owner's replies by a message; the owner and every operator of every change by the
 * `workorder.changed` socket event.
 */
export class WorkOrderService {
  constructor(
    private readonly repo: WorkOrderRepository,
    private readonly tasks: Pick<TaskQueries, 'namesOf'>,
    private readonly access: Pick<AccessService, 'require' | 'found' | 'can' | 'owns' | 'holders'>,
    /** The owners' and authors' usernames (user module). */
    private readonly users: Pick<UserDirectory, 'names'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly notifyEach: NotifyEach,
    private readonly bus: EventBus,
    /** Operators resolving or closing someone's work order write their audit entry through it. */
    private readonly audit: AuditTrail,
  ) {}

  async create(p: Principal, body: WorkOrderCreate): Promise<WorkOrderDetail> {
    const title = clean('title', body.title);
    const description = clean('description', body.description, true);
    if (body.taskId !== undefined && !(await this.tasks.namesOf(p.userId, [body.taskId])).has(body.taskId)) {
      throw invalid('taskId', '不是您的任务或任务不存在');
    }
    const attachmentIds = await this.usable(p, body.attachmentIds);
    for (let attempt = 0; ; attempt++) {
      const now = this.clock();
      const row = {
        id: newId(now),
        order_no: await this.nextOrderNo(now),
        owner_id: p.userId,
        type: body.type,
        title,
        description,
        state: 'PENDING' as const,
        task_id: body.taskId ?? null,
        reply_count: 0,
        last_reply_by: null,
        create_time: now,
        update_time: now,
      };
      const refused = await this.repo.create(row, attachmentIds, now - ATTACHMENT_UNUSED_TTL_MS);
      if (refused === 'limit') throw new AppError(ErrorCode.WORKORDER_OPEN_LIMIT);
      if (refused === 'attachments') throw unusableAttachments();
      // Another request took this number a moment ago: the next one is free.
      if (refused === 'orderNo' && attempt < RETRIES) continue;
      if (refused) throw new AppError(ErrorCode.RESOURCE_FAILED, '工单编号生成失败，请重试');
      const detail = await this.changed(row.id);
      await this.tellOperators(p, row, '新工单待处理', `用户 ${detail.ownerName} 提交了工单「${row.title}」（${row.order_no}），请及时处理。`);
      return detail;
    }
  }

  async page(p: Principal, q: WorkOrderPageQuery): Promise<WorkOrderPage> {
    if (q.scope === 'all') this.access.require(p, 'workorder.readAll');
    const keyword = q.keyword?.trim();
    const { rows, total } = await this.repo.page(
      { ownerId: q.scope === 'all' ? undefined : p.userId, state: q.state, keyword: keyword || undefined },
      (q.pageNum - 1) * q.pageSize,
      q.pageSize,
    );
    return { list: await this.views(rows), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, id: string): Promise<WorkOrderDetail> {
    return this.toDetail(await this.visible(p, id));
  }

  async reply(p: Principal, id: string, body: WorkOrderReplyCreate): Promise<WorkOrderDetail> {
    let row = await this.visible(p, id);
    const content = clean('content', body.content, true);
    const attachmentIds = await this.usable(p, body.attachmentIds);
    const role: Role = this.access.owns(p, { ownerId: row.owner_id }) ? 'user' : 'operator';
    for (let attempt = 0; ; attempt++) {
      const from = row.state as WorkOrderState;
      if (from === 'CLOSED') throw new AppError(ErrorCode.WORKORDER_CLOSED);
      // An operator's first reply takes it; the owner's reply to a RESOLVED one says it was not solved.
      const to: WorkOrderState = role === 'operator' ? (from === 'PENDING' ? 'PROCESSING' : from) : from === 'RESOLVED' ? 'PROCESSING' : from;
      const now = this.clock();
      const reply = { id: newId(now), work_order_id: id, author_id: p.userId, author_role: role, content, create_time: now };
      const refused = await this.repo.reply(id, from, { state: to, last_reply_by: role, update_time: now }, reply, attachmentIds, now - ATTACHMENT_UNUSED_TTL_MS);
      if (refused === 'attachments') throw unusableAttachments();
      if (refused === 'moved' && attempt < RETRIES) {
        row = await this.visible(p, id);
        continue;
      }
      if (refused) throw new AppError(ErrorCode.WORKORDER_STATE);
      if (role === 'operator') await this.tell(row, '工单有新的回复', `您的工单「${row.title}」（${row.order_no}）有新的回复，请查看。`);
      const detail = await this.changed(id);
      if (role === 'user') await this.tellOperators(p, row, '工单有新的用户回复', `用户 ${detail.ownerName} 回复了工单「${row.title}」（${row.order_no}），请及时处理。`);
      return detail;
    }
  }

  /** An operator's resolve: an audited operator action (its entry in the transaction of the state change). */
  async resolve(p: Principal, id: string, ip: string | null = null): Promise<WorkOrderDetail> {
    const row = await this.visible(p, id);
    this.access.require(p, 'workorder.resolve');
    await this.move(p, row, 'RESOLVED', ip, (from, alsoIn) => this.repo.resolve(id, from, this.clock(), alsoIn), (s) => s === 'PENDING' || s === 'PROCESSING');
    if (!this.access.owns(p, { ownerId: row.owner_id })) await this.tell(row, '工单已解决', `您的工单「${row.title}」（${row.order_no}）已被运维人员标记为已解决。如问题仍未解决，可继续回复。`);
    return this.changed(id);
  }

  /** The owner or an operator closes it; an operator closing someone else's work order is audited. */
  async close(p: Principal, id: string, ip: string | null = null): Promise<WorkOrderDetail> {
    const row = await this.visible(p, id);
    await this.move(p, row, 'CLOSED', ip, (from, alsoIn) => this.repo.close(id, row.owner_id, from, this.clock(), alsoIn), (s) => s !== 'CLOSED');
    if (!this.access.owns(p, { ownerId: row.owner_id })) await this.tell(row, '工单已关闭', `您的工单「${row.title}」（${row.order_no}）已被运维人员关闭。`);
    return this.changed(id);
  }

  /**
   * A conditional move from the state read (read again when a concurrent change got there first, while the
   * move is still allowed); 2702 when it no longer is. Done by an operator to someone else's work order, or a
   * resolve, it writes its audit entry in the move's transaction.
   */
  private async move(
    p: Principal,
    row: WorkOrderRow,
    to: 'RESOLVED' | 'CLOSED',
    ip: string | null,
    write: (from: string, alsoIn?: InTx) => Promise<boolean>,
    allowed: (state: string) => boolean,
  ): Promise<void> {
    const audited = to === 'RESOLVED' || !this.access.owns(p, { ownerId: row.owner_id });
    const actor = audited ? await this.audit.operator(p, ip) : null;
    for (let attempt = 0; ; attempt++) {
      if (!allowed(row.state)) throw new AppError(ErrorCode.WORKORDER_STATE);
      const from = row.state;
      const entry: InTx | undefined = actor
        ? (tx) =>
            this.audit.record(tx, {
              actor,
              action: to === 'RESOLVED' ? 'workorder.resolve' : 'workorder.close',
              target: { type: 'workorder', id: row.id, name: `${row.order_no}「${row.title}」` },
              before: { state: from },
              after: { state: to },
            })
        : undefined;
      if (await write(from, entry)) return;
      if (attempt >= RETRIES) throw new AppError(ErrorCode.WORKORDER_STATE);
      row = await this.visible(p, row.id);
    }
  }

  /**
   * A screenshot for a later message: PNG, JPEG or WebP by its bytes (the name and the declared type are the
   * client's word), at most WORKORDER_ATTACHMENT_MAX_BYTES; anything else 2704. Kept byte for byte (unlike
   * avatars, not re-encoded: a screenshot is evidence and must read back as sent) — safe to show because it
   * is only ever served with the sniffed image type and `nosniff`.
   */
  async upload(p: Principal, file: { name: string; bytes: Buffer }): Promise<WorkOrderAttachment> {
    const kind = sniffImage(file.bytes);
    if (!kind || file.bytes.length > WORKORDER_ATTACHMENT_MAX_BYTES) throw new AppError(ErrorCode.WORKORDER_ATTACHMENT_INVALID);
    const now = this.clock();
    // Uploads only ever add bytes, so removing what expired here bounds the table without a timer.
    await this.repo.sweepUnused(now - ATTACHMENT_UNUSED_TTL_MS);
    if ((await this.repo.countUnused(p.userId, now - ATTACHMENT_UNUSED_TTL_MS)) >= ATTACHMENT_UNUSED_MAX) {
      throw invalid('file', `未发送的截图已达 ${ATTACHMENT_UNUSED_MAX} 张，请先发送或稍后再试`);
    }
    const row = {
      id: newId(now),
      uploader_id: p.userId,
      name: fileName(file.name, kind),
      size: file.bytes.length,
      content_type: IMAGE_TYPES[kind],
      data: file.bytes,
      work_order_id: null,
      reply_id: null,
      create_time: now,
    };
    await this.repo.insertAttachment(row);
    return toAttachment(row);
  }

  /** The bytes, for the uploader, the owner of the work order it belongs to, or an operator; else 404/1205. */
  async attachment(p: Principal, id: string): Promise<{ name: string; contentType: string; bytes: Buffer }> {
    const row = await this.repo.attachment(id);
    // Not yet sent with a message, it belongs to its uploader; once sent, to the work order's owner too.
    if (!row || !this.access.can(p, 'workorder.attachment.read', { ownerId: row.order_owner_id ?? row.uploader_id, sharees: [row.uploader_id] })) throw new AppError(ErrorCode.NOT_FOUND, '附件不存在', 404);
    return { name: row.name, contentType: row.content_type, bytes: Buffer.from(row.data) };
  }

  // ---- helpers ----------------------------------------------------------------------------------------

  /** The work order when the caller is its owner or an operator; 1205 otherwise, exactly as for a missing one. */
  private async visible(p: Principal, id: string): Promise<WorkOrderRow> {
    return this.access.found(p, 'workorder.read', await this.repo.find(id), (r) => ({ ownerId: r.owner_id }), '工单');
  }

  /** The next free-looking number of the day; the unique index settles a race (create retries). */
  private async nextOrderNo(now: number): Promise<string> {
    const prefix = serialPrefix('GD', now);
    return nextSerial(prefix, await this.repo.lastOrderNo(prefix));
  }

  /**
   * Attachment ids deduplicated, each the caller's own unused and unexpired upload, or 1005 naming
   * `attachmentIds`. The write claims them conditionally again, so two messages racing for one cannot both
   * get it.
   */
  private async usable(p: Principal, ids: string[] | undefined): Promise<string[]> {
    const unique = [...new Set(ids ?? [])];
    const rows = await this.repo.uploadsOf(p.userId, unique);
    const since = this.clock() - ATTACHMENT_UNUSED_TTL_MS;
    if (rows.length !== unique.length || rows.some((r) => r.work_order_id !== null || r.create_time < since)) throw unusableAttachments();
    return unique;
  }

  private async tell(row: WorkOrderRow, title: string, content: string) {
    await this.notify(row.owner_id, { type: 'workorder', title, content, businessType: 'workorder', businessId: row.id });
  }

  /**
   * A work order the operators must answer (filed, or the owner wrote again): a message to every operator
   * but the caller. The queue itself updates through `changed`.
   */
  private async tellOperators(p: Principal, row: Pick<WorkOrderRow, 'id'>, title: string, content: string) {
    const operators = (await this.access.holders('operator')).map((o) => o.userId).filter((id) => id !== p.userId);
    await this.notifyEach(operators, { type: 'workorder', title, content, businessType: 'workorder', businessId: row.id });
  }

  /**
   * The work order as it is now, pushed to its owner's sockets and to every operator's (全部工单 re-reads at
   * once instead of on a timer).
   */
  private async changed(id: string): Promise<WorkOrderDetail> {
    const detail = await this.toDetail((await this.repo.find(id))!);
    const { description: _d, attachments: _a, replies: _r, ...workOrder } = detail;
    const operators = (await this.access.holders('operator')).map((o) => o.userId);
    for (const userId of new Set([detail.ownerId, ...operators])) await this.bus.publish(userId, { businessType: WS_WORKORDER_CHANGED, data: workOrder });
    return detail;
  }

  private async views(rows: WorkOrderRow[]): Promise<WorkOrder[]> {
    // Task names are read now (a renamed or deleted task shows as it is), per owner: a link is to the owner's task.
    const linked = new Map<string, string[]>();
    for (const r of rows) if (r.task_id) linked.set(r.owner_id, [...(linked.get(r.owner_id) ?? []), r.task_id]);
    const names = new Map<string, Map<string, string>>();
    for (const [ownerId, ids] of linked) names.set(ownerId, await this.tasks.namesOf(ownerId, ids));
    const owners = await this.users.names(rows.map((r) => r.owner_id));
    return rows.map((r) => toWorkOrder(r, owners.get(r.owner_id)?.username ?? '', r.task_id ? (names.get(r.owner_id)?.get(r.task_id) ?? '') : ''));
  }

  private async toDetail(row: WorkOrderRow): Promise<WorkOrderDetail> {
    const [[view], replies, attachments] = await Promise.all([this.views([row]), this.repo.replies(row.id), this.repo.attachmentsOf(row.id)]);
    const authors = await this.users.names(replies.map((r) => r.author_id));
    const of = (replyId: string | null) => attachments.filter((a) => a.reply_id === replyId).map(toAttachment);
    return {
      ...view,
      description: row.description,
      attachments: of(null),
      replies: replies.map((r) => ({
        id: r.id,
        authorId: r.author_id,
        authorName: authors.get(r.author_id)?.username ?? '',
        authorRole: r.author_role === 'operator' ? 'operator' : 'user',
        content: r.content,
        attachments: of(r.id),
        createTime: Number(r.create_time),
      })),
    };
  }
}

function toWorkOrder(r: WorkOrderRow, ownerName: string, taskName: string): WorkOrder {
  return {
    id: r.id,
    orderNo: r.order_no,
    type: r.type as WorkOrderType,
    title: r.title,
    state: r.state as WorkOrderState,
    ownerId: r.owner_id,
    ownerName,
    link: r.task_id ? { type: 'task', id: r.task_id, name: taskName } : null,
    replyCount: Number(r.reply_count),
    lastReplyBy: r.last_reply_by === 'operator' ? 'operator' : r.last_reply_by === 'user' ? 'user' : null,
    createTime: Number(r.create_time),
    updateTime: Number(r.update_time),
  };
}

function toAttachment(r: Pick<AttachmentMeta, 'id' | 'name' | 'size' | 'content_type'>): WorkOrderAttachment {
  return { id: r.id, name: r.name, size: Number(r.size), contentType: r.content_type };
}

const unusableAttachments = () => invalid('attachmentIds', '包含不存在、他人上传、已使用或已过期的附件');

/**
 * Trimmed text, empty is 1005. A title is one line without control or format characters; a multi-line text
 * keeps line breaks and tabs (and format characters: emoji sequences are joined by one).
 */
function clean(field: string, raw: string, multiline = false): string {
  const text = raw.replace(/\r\n/g, '\n').trim();
  if (!text) throw invalid(field, '不能为空');
  if ((multiline ? /[^\P{Cc}\n\t]/u : /[\p{Cc}\p{Cf}]/u).test(text)) throw invalid(field, '不能包含控制字符');
  return text;
}

/** The client's file name without folders or control characters, kept short; a default when nothing is left. */
function fileName(raw: string, kind: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const name = base.replace(/[\p{Cc}\p{Cf}]/gu, '').trim().slice(0, NAME_MAX);
  return name || `截图.${kind}`;
}
