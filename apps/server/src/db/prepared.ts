import { CompiledQuery, type Compilable } from 'kysely';
import { sqliteReader, type Db } from './db';

const SENTINEL = '\u0000arg:';

/**
 * A hot-path **read** built and compiled by Kysely once, then run with new values.
 *
 * Kysely builds an immutable query tree and compiles it to SQL on every call. Under load that was half the
 * CPU of an authenticated request (measured: bare Fastify + the two per-request queries ran at 14.9k req/s
 * with raw statements, 12.1k precompiled through Kysely, 7.6k built per call). `build` receives
 * placeholders for the named arguments; the compiled parameters that are placeholders are replaced by the
 * call's values, every other parameter stays the constant it was built with. Queries whose SQL depends on
 * the values (optional filters) need one prepared query per shape. Only for reads: on SQLite they run on
 * the read-only connection, which sees committed data only.
 */
export function prepare<A extends Record<string, unknown>, R>(db: Db, build: (db: Db, args: A) => Compilable<R>) {
  const args = new Proxy({} as A, { get: (_t, name) => `${SENTINEL}${String(name)}` });
  const compiled = build(db, args).compile();
  // For each compiled parameter: the argument it stands for, or null for a constant of the query.
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(SENTINEL) ? p.slice(SENTINEL.length) : null));
  const bind = (values: A) => slots.map((arg, i) => (arg === null ? compiled.parameters[i] : values[arg]));
  const reader = sqliteReader(db);
  if (reader) {
    // Read-only queries on SQLite run on the dedicated reader connection (db.ts), synchronously.
    return async (values: A): Promise<R[]> => reader.prepare(compiled.sql).all(bind(values)) as R[];
  }
  return async (values: A): Promise<R[]> => (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, bind(values)))).rows;
}
