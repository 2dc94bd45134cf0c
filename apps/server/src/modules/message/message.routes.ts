import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MessageApi, MessageApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal } from '../../plugins/auth';
import type { MessageService } from './message.service';

/** Registered under MESSAGE_BASE. Every call is the caller's own messages: the service scopes by principal. */
export function messageRoutes(messages: MessageService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      MessageApi,
      MessageApiSchemas,
      {
        query: async (req) => ok(await messages.query(principal(req), req.body)),
        unviewCount: async (req) => ok(await messages.unviewCount(principal(req), req.body.startTime)),
        view: async (req) => ok(await messages.view(principal(req), req.body.ids)),
        viewAll: async (req) => ok(await messages.viewAll(principal(req))),
      },
      ['message'],
    );
  };
}
