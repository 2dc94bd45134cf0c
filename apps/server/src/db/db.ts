import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider, type Transaction } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index';
import type { Database } from './schema';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
/**
 * An open transaction. A write that must commit or roll back together with another module's write (an
 * operator action and its audit entry) is a repository method taking `Tx` — its caller's transaction — never
 * `Db`, so it cannot run on its own by mistake.
 */
export type Tx = Transaction<Database>;
/** Work another module adds to a repository's transaction (the audit entry of an operator action). */
export type InTx = (tx: Tx) => Promise<void>;

// int8 (bigint) columns hold epoch ms and counters, all far below 2^53: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbHandle {
  db: Db;
  engine: Engine;
  close(): Promise<void>;
}

/** The embedded default's database file in a data dir (the gateway and the server command open the same). */
export const sqliteFileIn = (dataDir: string) => path.join(dataDir, 'suanli.db');

export function openDb(opts: { databaseUrl?: string; sqliteFile: string }): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client whose server connection dies (restart, failover, admin kill) emits 'error' on the
    // pool; unhandled, that would crash the process. The pool replaces the client on next use.
    pool.on('error', (err) => console.warn(`postgres idle client error: ${err.message}`));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(path.dirname(opts.sqliteFile), { recursive: true });
  const sqlite = new SQLite(opts.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  // FULL: ledger rows (orders, buckets, records) must survive a power cut once committed.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // WAL lets a second connection read beside the writer, and it only ever sees committed data.
  const reader = withStatementCache(new SQLite(opts.sqliteFile, { readonly: true }));
  readers.set(db, reader);
  return {
    db,
    engine: 'sqlite',
    close: async () => {
      reader.close();
      await db.destroy();
    },
  };
}

type StatementSource = ReturnType<typeof withStatementCache>;
const readers = new WeakMap<Db, StatementSource>();

/**
 * The read-only SQLite connection of a database opened here, for hot-path reads (db/prepared.ts): they
 * skip Kysely's driver pipeline and its single-connection mutex, and — unlike a raw statement on the
 * writer's connection — can never observe another request's uncommitted transaction.
 */
export function sqliteReader(db: Db): StatementSource | undefined {
  return readers.get(db);
}

/**
 * Kysely prepares every query anew; on SQLite that parse is a large share of a small query's cost. Queries
 * are built from a fixed set of shapes, so their SQL strings repeat: reuse the prepared statements.
 */
// The return type is spelled out for the declarations tsc -b emits (docs/testing.md, "Type-checking"): inferred,
// it names better-sqlite3's internal namespace, which a declaration file cannot.
function withStatementCache(sqlite: SQLite.Database, max = 500): { close: () => SQLite.Database; prepare(sql: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        // Schema changes (migrations) invalidate nothing here: better-sqlite3 re-prepares internally.
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Db): Promise<void> {
  // Numbers are handed out to parallel work ahead of time (0006…0009 in issue 10), so a database may have
  // run a later number before an earlier one lands; each migration touches only its own tables.
  const { error, results } = await new Migrator({ db, provider, allowUnorderedMigrations: true }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`migration failed: ${failed?.migrationName ?? ''} ${String(error)}`);
}
