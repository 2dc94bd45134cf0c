import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  Envelope,
  MESSAGE_BASE,
  MessagePage,
  MessageQueryBody,
  Null,
  UnviewCountBody,
  ViewBody,
  type MessageQueryBody as MessageQuery,
  type UnviewCountBody as UnviewCount,
  type ViewBody as View,
} from '@suanli/contracts';
import type { AppContext } from '../../context';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { MessageService } from './message.service';

export async function messageRoutes(app: FastifyInstance, _ctx: AppContext, messages: MessageService) {
  const tags = ['message'];

  app.post<{ Body: MessageQuery }>(`${MESSAGE_BASE}/query`, {
    schema: { tags, summary: '消息列表（新的在前）', body: MessageQueryBody, response: { 200: Envelope(MessagePage) } },
    handler: async (req) => ok(await messages.query(principal(req), req.body)),
  });

  app.post<{ Body: UnviewCount }>(`${MESSAGE_BASE}/unview/count`, {
    schema: {
      tags,
      summary: '未读消息数（startTime 及之后创建的）',
      body: UnviewCountBody,
      response: { 200: Envelope(Type.Integer()) },
    },
    handler: async (req) => ok(await messages.unviewCount(principal(req), req.body.startTime)),
  });

  app.post<{ Body: View }>(`${MESSAGE_BASE}/view`, {
    schema: { tags, summary: '标记已读（仅本人的消息）', body: ViewBody, response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await messages.view(principal(req), req.body.ids)),
  });

  // No body schema: the console may post `{}` or nothing at all.
  app.post(`${MESSAGE_BASE}/view/all`, {
    schema: { tags, summary: '全部标记已读', response: { 200: Envelope(Null) } },
    handler: async (req) => ok(await messages.viewAll(principal(req))),
  });
}
