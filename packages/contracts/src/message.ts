import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Null, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';

export const MESSAGE_BASE = '/gateway/foundation/api/v1/message';

export const MESSAGE_TYPES = ['system', 'task', 'order', 'workorder', 'team'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export const MESSAGE_TYPE_LABELS: Record<MessageType, string> = {
  system: '系统消息',
  task: '任务消息',
  order: '订单消息',
  workorder: '工单消息',
  team: '团队消息',
};

export const MessageTypeSchema = Type.Union(MESSAGE_TYPES.map((t) => Type.Literal(t)));

export const Message = Type.Object({
  id: Id,
  type: MessageTypeSchema,
  title: Type.String(),
  content: Type.String(),
  businessType: Type.Union([Type.String(), Type.Null()]),
  businessId: Type.Union([Type.String(), Type.Null()]),
  viewed: Type.Boolean(),
  createTime: Millis,
});
export type Message = Static<typeof Message>;

export const MessageQueryBody = Type.Composite([
  PageQuery,
  Type.Object({ viewed: Type.Optional(Type.Boolean()), type: Type.Optional(MessageTypeSchema) }),
]);
export type MessageQueryBody = Static<typeof MessageQueryBody>;
export const MessagePage = Page(Message);
export type MessagePage = Page<Message>;

/** `startTime` is the user's createTime in the console; without it every unviewed message counts. */
export const UnviewCountBody = Type.Object({ startTime: Type.Optional(Millis) });
export type UnviewCountBody = Static<typeof UnviewCountBody>;

/** Ids of the caller's messages; ids of other users' messages are ignored, never touched. */
export const ViewBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 100 }) });
export type ViewBody = Static<typeof ViewBody>;

/** How many unviewed messages. */
export const UnviewCount = Type.Integer();
export type UnviewCount = Static<typeof UnviewCount>;

export const MessageApi = {
  query: route<{ body: typeof MessageQueryBody; response: typeof MessagePage }>('POST', MESSAGE_BASE, '/query'),
  unviewCount: route<{ body: typeof UnviewCountBody; response: typeof UnviewCount }>('POST', MESSAGE_BASE, '/unview/count'),
  view: route<{ body: typeof ViewBody; response: typeof Null }>('POST', MESSAGE_BASE, '/view'),
  // No body schema: the console may post `{}` or nothing at all.
  viewAll: route<{ response: typeof Null }>('POST', MESSAGE_BASE, '/view/all'),
};

export const MessageApiSchemas: SchemasOf<typeof MessageApi> = {
  query: { summary: '消息列表（新的在前）', body: MessageQueryBody, response: MessagePage },
  unviewCount: { summary: '未读消息数（startTime 及之后创建的）', body: UnviewCountBody, response: UnviewCount },
  view: { summary: '标记已读（仅本人的消息）', body: ViewBody, response: Null },
  viewAll: { summary: '全部标记已读', response: Null },
};
