import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { Streamed, type Route, type RouteSchemas, type RouteTypes } from '@suanli/contracts';
import type { TSchema } from '@sinclair/typebox';
import { envelopeOf, type RouteRequest } from '../lib/serve';

/**
 * Registers one file-service route whose request or answer streams — a multipart upload whose file part goes
 * to disk unread, a download's bytes, NDJSON progress lines — from its descriptor: method, URL, validation
 * and the OpenAPI entry as `serve` would, but the handler answers through `reply` itself (bytes, or
 * `reply.hijack()`), so `serve`'s one-envelope handler type does not fit. A descriptor whose answer is
 * `Streamed` gets no response schema; any other (an upload's entry) is wrapped in the envelope as usual.
 * Registered on the file service's own instance (no prefix plugin), so the URL is the descriptor's full one.
 */
export function streamRoute<T extends RouteTypes>(
  app: FastifyInstance,
  d: Route<T>,
  s: RouteSchemas<T>,
  tags: string[],
  route: Omit<RouteShorthandOptions, 'schema'> & {
    /** OpenAPI's request body types (multipart uploads). */
    consumes?: string[];
    handler: (req: RouteRequest<T>, reply: FastifyReply) => Promise<unknown>;
  },
): void {
  const { consumes, handler, ...options } = route;
  const schemas = s as RouteSchemas<RouteTypes> & { params?: TSchema; querystring?: TSchema; body?: TSchema };
  app.route({
    ...options,
    method: d.method,
    url: d.base + d.path,
    config: { ...(options.config as object | undefined), ...(d.role ? { role: d.role } : {}), ...(d.public ? { public: true } : {}) },
    schema: {
      tags,
      summary: schemas.summary,
      ...(d.public ? { security: [] } : {}),
      ...(consumes ? { consumes } : {}),
      ...(schemas.params ? { params: schemas.params } : {}),
      ...(schemas.querystring ? { querystring: schemas.querystring } : {}),
      ...(schemas.body ? { body: schemas.body } : {}),
      ...(schemas.response === Streamed ? {} : { response: { 200: envelopeOf(schemas.response) } }),
    },
    handler: handler as (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  });
}
