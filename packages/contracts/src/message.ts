import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Page, PageQuery } from './common';

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
