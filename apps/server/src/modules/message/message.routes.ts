import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, MessagePage, MessageQueryBody, Null, UnviewCountBody, ViewBody } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal } from '../../plugins/auth';
import type { MessageService } from './message.service';

/** Registered under MESSAGE_BASE. Every call is the caller's own messages: the service scopes by principal. */
export function messageRoutes(messages: MessageService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['message'];

    app.post('/query', {
      schema: { tags, summary: '消息列表（新的在前）', body: MessageQueryBody, response: { 200: Envelope(MessagePage) } },
      handler: async (req) => ok(await messages.query(principal(req), req.body)),
    });

    app.post('/unview/count', {
      schema: {
        tags,
        summary: '未读消息数（startTime 及之后创建的）',
        body: UnviewCountBody,
        response: { 200: Envelope(Type.Integer()) },
      },
      handler: async (req) => ok(await messages.unviewCount(principal(req), req.body.startTime)),
    });

    app.post('/view', {
      schema: { tags, summary: '标记已读（仅本人的消息）', body: ViewBody, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await messages.view(principal(req), req.body.ids)),
    });

    // No body schema: the console may post `{}` or nothing at all.
    app.post('/view/all', {
      schema: { tags, summary: '全部标记已读', response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await messages.viewAll(principal(req))),
    });
  };
}
