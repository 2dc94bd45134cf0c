import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
interface RouteSchemaDef {
  schema: unknown;
  httpPart?: string;
  method?: string;
  url?: string;
}
type Compile = (route: RouteSchemaDef) => unknown;
type Build = (externalSchemas: unknown, options: unknown) => Compile;

/**
 * Fastify's own default compilers — Ajv for request validation, fast-json-stringify for responses — resolved
 * from fastify's package, so they are exactly the versions fastify would build for itself.
 */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const ajvCompiler = fromFastify('@fastify/ajv-compiler') as () => Build;
const fjsCompiler = fromFastify('@fastify/fast-json-stringify-compiler') as () => Build;

/** The options as a cache key, or null when they hold a function (Ajv plugins, onCreate): not cached then. */
function keyOf(externalSchemas: unknown, options: unknown): string | null {
  try {
    return JSON.stringify([externalSchemas, options], (_k, v: unknown) => {
      if (typeof v === 'function') throw new Error('not a plain value');
      return v;
    });
  } catch {
    return null;
  }
}

/**
 * A compilers factory that remembers, per schema object and options, what fastify's default compiler made of
 * it. Fastify builds its compilers per instance, so every `buildApp` compiled each route's validators and
 * serializers again: ~0.5 CPU-s per app, about a third of an api test file's app setup (issue 26; every api
 * test file builds one to eight apps in one worker). A compiled validator or serializer is a pure function of
 * its schema and the compiler options, and the schemas are module-level constants of the contracts, so the
 * same compiled function serves every app of the process. A gateway process builds one app: what it serves is
 * unchanged (the same compiler makes the same function), it only compiles a schema shared by two routes (a GET
 * and its HEAD) once.
 *
 * `fresh` builds fastify's default compiler for one app, used on a miss (a schema made per app — a route's
 * inline schema — is compiled by that app's own compiler and forgotten with it: the cache holds schema objects
 * weakly).
 */
function remembering(fresh: () => Build, opts: { headers: boolean }): Build {
  const byOptions = new Map<string, WeakMap<object, unknown>>();
  return (externalSchemas, options) => {
    let compiler: Compile | undefined;
    const compile: Compile = (route) => (compiler ??= fresh()(externalSchemas, options))(route);
    const key = keyOf(externalSchemas, options);
    if (key === null) return compile;
    let compiled = byOptions.get(key);
    if (!compiled) byOptions.set(key, (compiled = new WeakMap()));
    const cache = compiled;
    return (route) => {
      // With its own compilers fastify lowercases a headers schema's property names before compiling it; with a
      // compilers factory it compiles the schema as given. No route declares one: refuse one rather than
      // validate headers differently from fastify's default.
      if (opts.headers && route.httpPart === 'headers') {
        throw new Error(`${route.method} ${route.url}: a headers schema is not supported by the shared compilers (lib/schema-compilers.ts)`);
      }
      const schema = route.schema;
      if (schema === null || typeof schema !== 'object') return compile(route);
      if (!cache.has(schema)) cache.set(schema, compile(route));
      return cache.get(schema);
    };
  };
}

/**
 * The compilers of every Fastify instance of this process (`schemaController.compilersFactory`): one per
 * process, so a schema compiled for one app is not compiled again for the next (tests build hundreds).
 */
export const sharedCompilers = {
  buildValidator: remembering(() => ajvCompiler(), { headers: true }),
  buildSerializer: remembering(() => fjsCompiler(), { headers: false }),
} as unknown as CompilersFactory;
