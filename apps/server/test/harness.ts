import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app';
import type { Config } from '../src/config';
import type { Engine } from '../src/db/db';

/** Every api test file runs once per engine. PostgreSQL is required under CI (never silently skipped). */
export const engines: Engine[] = ['sqlite', 'postgres'];

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** A clock tests can move: `clock.advance(31 * 60_000)` expires an idle session. */
export class TestClock {
  constructor(public now = Date.now()) {}
  readonly fn = () => this.now;
  advance(ms: number) {
    this.now += ms;
  }
}

/**
 * A fresh PostgreSQL database for one test app (or a benchmark run, which names its own server);
 * dropped by the returned cleanup.
 */
export async function createPgDatabase(adminUrl = PG_ADMIN_URL): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `suanli_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
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
  const pgDb = engine === 'postgres' && !overrides.databaseUrl ? await createPgDatabase() : null;
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
      // Supervisors of local-executor jobs may still be writing exit files: rmSync retries ENOTEMPTY.
      if (!overrides.dataDir) fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
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
