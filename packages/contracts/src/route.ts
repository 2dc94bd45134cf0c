import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Route descriptors: the one statement of a call — method, where it lives, what it takes and what it answers
 * (issue 18 item 4). The server registers its routes from them (apps/server/src/lib/serve.ts) and the
 * console calls them through one typed function (apps/console/src/shared/http/call.ts), so a URL and its
 * types cannot drift apart.
 *
 * A descriptor carries its schemas as *types* only; the schema values sit beside it in a `…Schemas` object
 * of type `SchemasOf<typeof …Api>`, which the compiler holds to exactly those types. The console imports the
 * descriptors and never the schema objects, so TypeBox and the schemas stay out of its bundle (the login
 * page's budget), while the server reads both.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a route takes (params, query string, body) and answers (`data` of the envelope), as schema types. */
export interface RouteTypes {
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  response: TSchema;
}

export interface Route<T extends RouteTypes = RouteTypes> {
  readonly method: Method;
  /** The service's base, which is the server module's prefix (`MESSAGE_BASE`). */
  readonly base: string;
  /** Below the base, Fastify's syntax for parameters (`/orders/:id`). */
  readonly path: string;
  /** A role the caller must hold (checked by the auth plugin before validation); none: any signed-in user. */
  readonly role?: 'operator';
  /** Callable without a session. */
  readonly public?: boolean;
  /**
   * Answers a file's bytes (`FileBytes`) instead of the JSON envelope: the server sends them as they are and
   * the console receives a Blob.
   */
  readonly bytes?: boolean;
  /** Never set at run time: carries `T` for the compiler. */
  readonly types?: T;
}

/** A descriptor is plain data; calls of it are marked free of side effects so unused ones drop out of the console bundle. */
/* @__NO_SIDE_EFFECTS__ */
export function route<T extends RouteTypes>(method: Method, base: string, path: string, access: { role?: 'operator'; public?: boolean; bytes?: boolean } = {}): Route<T> {
  return { method, base, path, ...access };
}

/** The schema values of one route, held to the descriptor's types, plus its OpenAPI summary (and description). */
export type RouteSchemas<T extends RouteTypes> = { summary: string; description?: string } & { [K in keyof T as K extends 'query' ? 'querystring' : K]-?: T[K] };

/** The schemas object beside an API: one entry per descriptor, each exactly the descriptor's types. */
export type SchemasOf<A extends Record<string, Route>> = { [K in keyof A]: A[K] extends Route<infer T> ? RouteSchemas<T> : never };

type Part<T, K extends keyof RouteTypes> = T extends { [P in K]: infer S extends TSchema } ? Static<S> : never;

/** What a caller passes: `params`, `query` and `body` where the route has them. */
export type RouteInput<T extends RouteTypes> = ([Part<T, 'params'>] extends [never] ? unknown : { params: Part<T, 'params'> }) &
  ([Part<T, 'query'>] extends [never] ? unknown : { query: Part<T, 'query'> }) &
  ([Part<T, 'body'>] extends [never] ? unknown : { body: Part<T, 'body'> });

/** The `data` a route answers. */
export type RouteOutput<T extends RouteTypes> = Static<T['response']>;

export type TypesOf<R> = R extends Route<infer T> ? T : never;

/** The URL of a call: the base, the path with its `:params` filled in (encoded). */
/* @__NO_SIDE_EFFECTS__ */
export function routeUrl(r: Route, params?: Record<string, string | number>): string {
  const path = r.path.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined) throw new Error(`${r.method} ${r.base}${r.path}: parameter ${name} missing`);
    return encodeURIComponent(String(v));
  });
  return r.base + path;
}
