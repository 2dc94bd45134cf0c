import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Page, PageQuery } from './common';

/**
 * 工单 (work orders, domain.md "Teams, work orders"): a user's question to the operators, with a
 * conversation. States 待处理 → 处理中 → 已解决 / 已关闭 (dict `workorder_states`): an operator's first reply
 * takes it (PROCESSING); an operator resolves it (RESOLVED); the owner's reply to a RESOLVED one reopens it
 * (PROCESSING); the owner or an operator closes it (CLOSED, final: no more replies). Decisions beyond the
 * design are in docs/adr/0011-work-orders.md.
 */
export const WORKORDER_BASE = '/gateway/workorder/api/v1';

export const WORKORDER_TYPES = ['account', 'task', 'storage', 'billing', 'other'] as const;
export type WorkOrderType = (typeof WORKORDER_TYPES)[number];
export const WORKORDER_STATES = ['PENDING', 'PROCESSING', 'RESOLVED', 'CLOSED'] as const;
export type WorkOrderState = (typeof WORKORDER_STATES)[number];

export const WORKORDER_TITLE_MAX = 64;
export const WORKORDER_CONTENT_MAX = 4000;
/** Screenshots per message (the description counts as the first message). */
export const WORKORDER_ATTACHMENTS_MAX = 5;
/** One attachment: a PNG, JPEG or WebP screenshot (sniffed from its bytes, as avatars are). */
export const WORKORDER_ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;
/** Work orders a user may have that are not CLOSED (one stuck client must not flood the operators). */
export const WORKORDER_OPEN_MAX = 20;

export const WorkOrderTypeSchema = Type.Union(WORKORDER_TYPES.map((t) => Type.Literal(t)));
export const WorkOrderStateSchema = Type.Union(WORKORDER_STATES.map((s) => Type.Literal(s)));

/** An uploaded screenshot; its bytes are at `GET /attachments/{id}` (owner of the work order and operators). */
export const WorkOrderAttachment = Type.Object({
  id: Id,
  name: Type.String(),
  size: Type.Integer(),
  contentType: Type.String(),
});
export type WorkOrderAttachment = Static<typeof WorkOrderAttachment>;

/** What a work order is about, when the user picked one of their tasks (read back with the task's name). */
export const WorkOrderLink = Type.Object({
  type: Type.Literal('task'),
  id: Id,
  /** The task's name when the work order is read; empty when the task was deleted since. */
  name: Type.String(),
});
export type WorkOrderLink = Static<typeof WorkOrderLink>;

export const WorkOrder = Type.Object({
  id: Id,
  /** What users quote on the phone: `GD` + yyyyMMdd + 4 digits, unique. */
  orderNo: Type.String(),
  type: WorkOrderTypeSchema,
  title: Type.String(),
  state: WorkOrderStateSchema,
  ownerId: Id,
  /** The owner's username (operators see everyone's work orders). */
  ownerName: Type.String(),
  link: Type.Union([WorkOrderLink, Type.Null()]),
  replyCount: Type.Integer(),
  /** Who wrote last: an operator's answer the owner has not replied to shows as 待您回复 in the list. */
  lastReplyBy: Type.Union([Type.Literal('user'), Type.Literal('operator'), Type.Null()]),
  createTime: Millis,
  updateTime: Millis,
});
export type WorkOrder = Static<typeof WorkOrder>;

export const WorkOrderReply = Type.Object({
  id: Id,
  authorId: Id,
  authorName: Type.String(),
  /** `operator` when an operator wrote it (the console shows 运维人员). */
  authorRole: Type.Union([Type.Literal('user'), Type.Literal('operator')]),
  content: Type.String(),
  attachments: Type.Array(WorkOrderAttachment),
  createTime: Millis,
});
export type WorkOrderReply = Static<typeof WorkOrderReply>;

/** One work order with its description (and its screenshots) and the whole conversation, oldest first. */
export const WorkOrderDetail = Type.Composite([
  WorkOrder,
  Type.Object({
    description: Type.String(),
    attachments: Type.Array(WorkOrderAttachment),
    replies: Type.Array(WorkOrderReply),
  }),
]);
export type WorkOrderDetail = Static<typeof WorkOrderDetail>;

const Content = Type.String({ minLength: 1, maxLength: WORKORDER_CONTENT_MAX });
const AttachmentIds = Type.Array(Id, { maxItems: WORKORDER_ATTACHMENTS_MAX });

export const WorkOrderCreate = Type.Object({
  type: WorkOrderTypeSchema,
  title: Type.String({ minLength: 1, maxLength: WORKORDER_TITLE_MAX }),
  description: Content,
  /** One of the caller's tasks (any family); another user's task is 1005 naming `taskId`. */
  taskId: Type.Optional(Id),
  /** Ids from `POST /attachments` by the caller, not used by another message yet. */
  attachmentIds: Type.Optional(AttachmentIds),
});
export type WorkOrderCreate = Static<typeof WorkOrderCreate>;

export const WorkOrderReplyCreate = Type.Object({
  content: Content,
  attachmentIds: Type.Optional(AttachmentIds),
});
export type WorkOrderReplyCreate = Static<typeof WorkOrderReplyCreate>;

export const WorkOrderPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    state: Type.Optional(WorkOrderStateSchema),
    /** Matches the title or the orderNo. */
    keyword: Type.Optional(Type.String({ maxLength: 64 })),
    /** `all`: every user's work orders — operators only (1020 otherwise). Default `mine`. */
    scope: Type.Optional(Type.Union([Type.Literal('mine'), Type.Literal('all')])),
  }),
]);
export type WorkOrderPageQuery = Static<typeof WorkOrderPageQuery>;
export const WorkOrderPage = Page(WorkOrder);
export type WorkOrderPage = Page<WorkOrder>;
