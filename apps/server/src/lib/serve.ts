import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { Envelope, type EnvelopeOf, type FileBytes, type Route, type RouteSchemas, type RouteTypes, type SchemasOf, type TypesOf } from '@suanli/contracts';
import type { Static, TSchema } from '@sinclair/typebox';

type StaticOr<S, D> = S extends TSchema ? Static<S> : D;

/** The request a handler of route types `T` receives: params, query string and body typed from its schemas. */
export type RouteRequest<T extends RouteTypes> = FastifyRequest<{
  Params: StaticOr<T['params'], unknown>;
  Querystring: StaticOr<T['query'], unknown>;
  Body: StaticOr<T['body'], unknown>;
}>;

/**
 * A JSON route's handler answers the envelope (`ok(data)`) whose `data` the route's response schema types; a
 * `bytes` route's handler (response `FileBytes`) sends the file on the reply and returns it.
 */
export type RouteHandler<T extends RouteTypes> = (
  req: RouteRequest<T>,
  reply: FastifyReply,
) => Promise<Static<T['response']> extends FileBytes ? FastifyReply : EnvelopeOf<Static<T['response']>>>;

/**

 * A third party's callback that must answer a plain word, not the envelope (Alipay's notify reads `success`):
 * the route answers `text/plain` and its OpenAPI entry shows the response schema itself.
 */
export interface TextRoute<T extends RouteTypes> {
  text: (req: RouteRequest<T>) => Promise<Static<T['response']> & string>;
  options?: RouteShorthandOptions;
}

/**
 * A handler, or a handler with the route's extra Fastify options (body limit, rate limit config, hooks, and
 * schema keys beyond the descriptor's such as `consumes`), or a plain-text answer.
 */
export type RouteImpl<T extends RouteTypes> = RouteHandler<T> | { handler: RouteHandler<T>; options: RouteShorthandOptions } | TextRoute<T>;

/**
 * The envelope schema of each response schema, made once per process: a schema object the compilers have
 * seen is not compiled again (lib/schema-compilers.ts), and a new `Envelope(…)` per app would be a new object
 * every time. `Envelope` is a pure function of its argument, so every app serves the same schema as before.
 */
const envelopes = new WeakMap<TSchema, TSchema>();
export function envelopeOf(response: TSchema): TSchema {
  let e = envelopes.get(response);
  if (!e) envelopes.set(response, (e = Envelope(response)));
  return e;
}

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
    const text = typeof impl === 'object' && 'text' in impl ? impl.text : undefined;
    const { handler, options } =
      typeof impl === 'function'
        ? { handler: impl, options: {} }
        : 'text' in impl
          ? { handler: async (req: RouteRequest<RouteTypes>, reply: FastifyReply) => reply.type('text/plain; charset=utf-8').send(await text!(req)), options: impl.options ?? {} }
          : impl;
    app.route({
      ...options,
      method: d.method,
      url: d.path,
      config: { ...(options.config as object | undefined), ...(d.role ? { role: d.role } : {}), ...(d.public ? { public: true } : {}) },
      schema: {
        // A route's own schema options (`consumes` of a form-encoded callback or an upload) stay; the descriptor's schemas come on top.
        ...(options.schema as object | undefined),
        tags,
        summary: s.summary,
        ...(s.description ? { description: s.description } : {}),
        // A public route needs no token in the OpenAPI page either.
        ...(d.public ? { security: [] } : {}),
        ...(s.params ? { params: s.params } : {}),
        ...(s.querystring ? { querystring: s.querystring } : {}),
        ...(s.body ? { body: s.body } : {}),
        // Plain text and files are sent as they are (Fastify does not serialise a stream or a buffer).
        response: { 200: text || d.bytes ? s.response : envelopeOf(s.response) },
      },
      handler: handler as (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
    });
  }
}
