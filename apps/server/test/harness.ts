import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { buildApp } from '../src/app';
import type { Config } from '../src/config';
import { migrate, openDb, sqliteFileIn, type Engine } from '../src/db/db';
import { setPasswordCostForTests } from '../src/modules/user/password';
import { removeAfterJobs } from './local-jobs';

/** Every api test file runs once per engine. PostgreSQL is required under CI (never silently skipped). */
export const engines: Engine[] = ['sqlite', 'postgres'];

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/**
 * Password hashes in the apps of this process (the api test files) use argon2id at m = 64 KiB, t = 1 instead
 * of production's m = 19 MiB, t = 2: ~0.2 CPU-ms a hash or a verify instead of ~12, where the api tier hashes
 * and verifies thousands of times (registrations, logins, seeded accounts; issue 26). Still argon2id, still a
 * real hash and verify on every login. The production parameters are checked by
 * src/modules/user/password.test.ts, and gateways a test starts as processes (process.ts) hash with them.
 */
setPasswordCostForTests({ memoryCost: 64, timeCost: 1, parallelism: 1 });

/** A clock tests can move: `clock.advance(31 * 60_000)` expires an idle session. */
export class TestClock {
  constructor(public now = Date.now()) {}
  readonly fn = () => this.now;
  advance(ms: number) {
    this.now += ms;
  }
}

/**
 * A fresh PostgreSQL database for one test app (or a benchmark run, which names its own server), empty or a
 * copy of `template`; dropped by the returned cleanup.
 */
export async function createPgDatabase(adminUrl = PG_ADMIN_URL, template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `suanli_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      // pg's Pool.end() resolves before the server has seen every connection close; give them a moment
      // so FORCE only ever terminates stragglers, never a connection a test still uses.
      for (let i = 0; i < 40; i++) {
        const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (r.rows[0].n === 0) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The migrations' own source, hashed: a template database is named by it, so a worktree whose migrations
 * differ (another branch, a new migration) never starts from a template built by other migrations.
 */
const migrationsDir = path.join(repoRoot, 'apps/server/src/db/migrations');
const migrationsHash = (() => {
  const h = createHash('sha256');
  for (const f of fs.readdirSync(migrationsDir).filter((n) => n.endsWith('.ts') && !n.includes('.test.')).sort()) {
    h.update(f).update(fs.readFileSync(path.join(migrationsDir, f)));
  }
  return h.digest('hex').slice(0, 16);
})();

async function untilNoConnections(c: pg.Client, name: string): Promise<void> {
  // pg's Pool.end() resolves before the server has seen every connection close.
  for (let i = 0; i < 100; i++) {
    const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    if (r.rows[0].n === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
}

let pgTemplate: Promise<string> | null = null;

/**
 * A migrated PostgreSQL database to copy test databases from (issue 26): `CREATE DATABASE … TEMPLATE` takes
 * ~35 ms where creating and migrating took ~250–330 ms, for every app of every api file. Built once per
 * migration set under an advisory lock (parallel workers and other checkouts on this server share it), under
 * a temporary name renamed when complete, so a half-built template is never copied. `suanli_tpl_*` databases
 * can be dropped whenever no tests run; the next run builds its template again.
 */
function migratedPgTemplate(adminUrl: string): Promise<string> {
  pgTemplate ??= (async () => {
    const name = `suanli_tpl_${migrationsHash}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        const url = new URL(adminUrl);
        url.pathname = `/${building}`;
        const handle = openDb({ databaseUrl: url.toString(), sqliteFile: '' });
        try {
          await migrate(handle.db);
        } finally {
          await handle.close();
        }
        await untilNoConnections(admin, building);
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
      return name;
    } finally {
      await admin.end();
    }
  })();
  pgTemplate.catch(() => (pgTemplate = null));
  return pgTemplate;
}

/**
 * What migrations write from the clock of their run, set again to now on a copy of a template (built earlier):
 * 0024 starts metering (`metering_cursors` `*`) when it runs. A migration that writes the time it runs adds
 * its row here, or a copied database would differ from a freshly migrated one.
 */
const RUN_TIME_ROWS = ["UPDATE metering_cursors SET since = $1 WHERE sub_center_id = '*'"];

/** A fresh PostgreSQL database already migrated (a copy of the template), dropped by the returned cleanup. */
export async function createMigratedPgDatabase(adminUrl = PG_ADMIN_URL): Promise<{ url: string; drop: () => Promise<void> }> {
  const created = await createPgDatabase(adminUrl, await migratedPgTemplate(adminUrl));
  const c = new pg.Client({ connectionString: created.url });
  await c.connect();
  try {
    for (const q of RUN_TIME_ROWS) await c.query(q, [Date.now()]);
  } finally {
    await c.end();
  }
  return created;
}

let sqliteTemplate: string | null = null;

/** A migrated SQLite file of this process to copy into fresh data dirs (~1 ms instead of ~110–180 ms). */
async function migratedSqliteTemplate(): Promise<string> {
  if (sqliteTemplate && fs.existsSync(sqliteTemplate)) return sqliteTemplate;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `suanli-tpl-${migrationsHash}-`));
  const file = sqliteFileIn(dir);
  const handle = openDb({ sqliteFile: file });
  await migrate(handle.db);
  await handle.close();
  // The last connection's close checkpoints the WAL into the file; a template with WAL left is not used.
  if (fs.existsSync(`${file}-wal`)) throw new Error(`the SQLite template ${file} kept its WAL`);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  sqliteTemplate = file;
  return file;
}

/** The harness's default welcome grant: 10 000 卡时 per card type, a year. */
export const TEST_WELCOME_GRANT = { cardHours: 10_000, validDays: 365 };

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  clock: TestClock;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A gateway on a temp data dir and a fresh database of the given engine. `overrides` can set redisUrl,
 * mail, rate limits… Pass `databaseUrl`/`dataDir` to share state between two apps (two gateway processes).
 */
export async function createTestApp(engine: Engine, overrides: Partial<Config> = {}): Promise<TestApp> {
  const clock = new TestClock();
  const dataDir = overrides.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-test-'));
  // A fresh database starts as a copy of a migrated one (buildApp's migrate then finds nothing to do); a
  // database or data dir passed in is used as it is.
  // TEST_DB_TEMPLATE=0: every app migrates its own empty database (to compare, or to rule the templates out).
  const fromTemplate = process.env.TEST_DB_TEMPLATE !== '0';
  const pgDb = engine === 'postgres' && !overrides.databaseUrl ? await (fromTemplate ? createMigratedPgDatabase() : createPgDatabase()) : null;
  if (fromTemplate && engine === 'sqlite' && !overrides.dataDir && !overrides.databaseUrl) {
    fs.copyFileSync(await migratedSqliteTemplate(), sqliteFileIn(dataDir));
    const copy = new SQLite(sqliteFileIn(dataDir));
    for (const q of RUN_TIME_ROWS) copy.prepare(q.replace('$1', '?')).run(Date.now());
    copy.close();
  }
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    publicUrl: 'http://127.0.0.1',
    dataDir,
    databaseUrl: overrides.databaseUrl ?? pgDb?.url,
    centersFile: path.join(repoRoot, 'config/centers.yaml'),
    consoleDist: undefined,
    trustProxy: false,
    allowedOrigins: ['http://127.0.0.1', 'http://localhost'],
    mail: { kind: 'outbox' },
    rateLimit: { max: 100_000, timeWindowMs: 60_000 },
    clock: clock.fn,
    logLevel: 'warn',
    seedDemo: false,
    compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000 },
    // Every test user may run tasks (ADR 0015): a welcome grant far beyond any test's needs on every card
    // type. Tests of balances and metering pass `metering` without it.
    metering: { welcomeGrant: TEST_WELCOME_GRANT },
    ...overrides,
  };
  const app = await buildApp(config);
  return {
    app,
    config,
    clock,
    dataDir,
    close: async () => {
      await app.close();
      await pgDb?.drop();
      // A develop task's job outlives its gateway (by design) and would go on writing into the data dir (CI31:
      // ENOTEMPTY): its group is killed first.
      if (!overrides.dataDir) await removeAfterJobs(dataDir);
    },
  };
}

/** `{message, data}` of an inject response, typed loosely for assertions. */
export function body<T = any>(res: { body: string }): { message: { code: number; message: string }; data: T } {
  return JSON.parse(res.body);
}

/** Polls until `check` gives a value (for work that runs on its own: timers, writes after a socket closes). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
