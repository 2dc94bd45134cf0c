import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams, Millis, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';

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

/** A screenshot's bytes (its sniffed image type, not the envelope). */
export const WorkOrderAttachmentBytes = Type.Unknown();
export type WorkOrderAttachmentBytes = Static<typeof WorkOrderAttachmentBytes>;

// ---- route descriptors (packages/contracts/src/route.ts) ------------------------------------------------

/** 工单: served by the work-order module under WORKORDER_BASE; the service checks who may see and change each. */
export const WorkOrderApi = {
  create: route<{ body: typeof WorkOrderCreate; response: typeof WorkOrderDetail }>('POST', WORKORDER_BASE, '/workorders'),
  page: route<{ body: typeof WorkOrderPageQuery; response: typeof WorkOrderPage }>('POST', WORKORDER_BASE, '/workorders/action/page'),
  detail: route<{ params: typeof IdParams; response: typeof WorkOrderDetail }>('GET', WORKORDER_BASE, '/workorders/:id'),
  reply: route<{ params: typeof IdParams; body: typeof WorkOrderReplyCreate; response: typeof WorkOrderDetail }>('POST', WORKORDER_BASE, '/workorders/:id/replies'),
  resolve: route<{ params: typeof IdParams; response: typeof WorkOrderDetail }>('POST', WORKORDER_BASE, '/workorders/:id/resolve'),
  close: route<{ params: typeof IdParams; response: typeof WorkOrderDetail }>('POST', WORKORDER_BASE, '/workorders/:id/close'),
  /** multipart/form-data, field `file`: the body is read by the handler, not validated by a schema. */
  upload: route<{ response: typeof WorkOrderAttachment }>('POST', WORKORDER_BASE, '/attachments'),
  /** Answers the bytes, not the envelope. */
  attachment: route<{ params: typeof IdParams; response: typeof WorkOrderAttachmentBytes }>('GET', WORKORDER_BASE, '/attachments/:id'),
};

export const WorkOrderApiSchemas: SchemasOf<typeof WorkOrderApi> = {
  create: { summary: '提交工单', body: WorkOrderCreate, response: WorkOrderDetail },
  page: { summary: '工单列表（最近更新的在前；scope=all 仅运维人员）', body: WorkOrderPageQuery, response: WorkOrderPage },
  detail: { summary: '工单详情（含对话）', params: IdParams, response: WorkOrderDetail },
  reply: { summary: '回复工单', params: IdParams, body: WorkOrderReplyCreate, response: WorkOrderDetail },
  resolve: { summary: '标记已解决（运维人员）', params: IdParams, response: WorkOrderDetail },
  close: { summary: '关闭工单', params: IdParams, response: WorkOrderDetail },
  upload: { summary: '上传工单截图（multipart 字段 file；PNG/JPEG/WebP，≤ 5 MB，按内容识别类型）', response: WorkOrderAttachment },
  attachment: { summary: '工单截图（上传者、工单所有者或运维人员）', params: IdParams, response: WorkOrderAttachmentBytes },
};
