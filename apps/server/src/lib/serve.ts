import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { Envelope, type EnvelopeOf, type Route, type RouteSchemas, type RouteTypes, type SchemasOf, type TypesOf } from '@suanli/contracts';
import type { Static, TSchema } from '@sinclair/typebox';

type StaticOr<S, D> = S extends TSchema ? Static<S> : D;

/** The request a handler of route types `T` receives: params, query string and body typed from its schemas. */
export type RouteRequest<T extends RouteTypes> = FastifyRequest<{
  Params: StaticOr<T['params'], unknown>;
  Querystring: StaticOr<T['query'], unknown>;
  Body: StaticOr<T['body'], unknown>;
}>;

/** A JSON route's handler: answers the envelope (`ok(data)`) whose `data` the route's response schema types. */
export type RouteHandler<T extends RouteTypes> = (req: RouteRequest<T>, reply: FastifyReply) => Promise<EnvelopeOf<Static<T['response']>>>;

/** A handler, or a handler with the route's extra Fastify options (body limit, rate limit config, hooks). */
export type RouteImpl<T extends RouteTypes> = RouteHandler<T> | { handler: RouteHandler<T>; options: RouteShorthandOptions };

/**
 * Registers a module's API from its descriptors (packages/contracts/src/route.ts) inside the module's prefix
 * plugin: method and path from the descriptor, validation and the OpenAPI entry from its schemas (the answer
 * wrapped in the envelope), its role or public flag as route config (read by the auth plugin), and one handler
 * per descriptor — the compiler refuses a missing one or one whose types do not match.
 */
export function serve<A extends Record<string, Route>>(
  app: FastifyInstance,
  api: A,
  schemas: SchemasOf<A>,
  handlers: { [K in keyof A]: RouteImpl<TypesOf<A[K]>> },
  tags: string[],
): void {
  for (const key of Object.keys(api) as (keyof A & string)[]) {
    const d = api[key];
    const s = schemas[key] as RouteSchemas<RouteTypes> & { params?: TSchema; querystring?: TSchema; body?: TSchema };
    const impl = handlers[key] as RouteImpl<RouteTypes>;
    const { handler, options } = typeof impl === 'function' ? { handler: impl, options: {} } : impl;
    app.route({
      ...options,
      method: d.method,
      url: d.path,
      config: { ...(options.config as object | undefined), ...(d.role ? { role: d.role } : {}), ...(d.public ? { public: true } : {}) },
      schema: {
        // A route's own schema options (an upload's `consumes`) stay; the descriptor's schemas come on top.
        ...(options.schema as object | undefined),
        tags,
        summary: s.summary,
        // A public route needs no token in the OpenAPI page either.
        ...(d.public ? { security: [] } : {}),
        ...(s.params ? { params: s.params } : {}),
        ...(s.querystring ? { querystring: s.querystring } : {}),
        ...(s.body ? { body: s.body } : {}),
        response: { 200: Envelope(s.response) },
      },
      handler: handler as (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
    });
  }
}
