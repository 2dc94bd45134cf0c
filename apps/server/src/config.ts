import path from 'node:path';

/** Everything the gateway needs to start; tests build one with `testConfig`, `main.ts` from the env. */
export interface Config {
  host: string;
  port: number;
  /** Absolute origin the browser uses, e.g. http://localhost:8080 — builds fileServiceUrl and avatar URLs. */
  publicUrl: string;
  /** Root of everything the embedded default keeps on disk (SQLite file, centers' storage, outbox, keys). */
  dataDir: string;
  /** postgres://… selects PostgreSQL; otherwise SQLite at `${dataDir}/suanli.db`. */
  databaseUrl?: string;
  /** redis://… fans live events out across gateway processes and shares rate-limit counters. */
  redisUrl?: string;
  /** Pub/sub channel of the live-events bus; every process of one deployment must agree on it. */
  redisChannel?: string;
  centersFile: string;
  /** Built console (`apps/console/dist`); served at /console when it exists. */
  consoleDist?: string;
  /** Built user guide (`dist/guide`, scripts/build-guide.mjs); served at /guide when it exists. */
  guideDist?: string;
  /**
   * Proxies whose X-Forwarded-For is believed (Fastify `trustProxy`: false, true, or a list of addresses/CIDRs). Off by default: trusting any sender would let a client pick its own IP and walk past
   * the per-IP rate limits. Behind nginx on the same host: TRUST_PROXY=127.0.0.1.
   */
  trustProxy: boolean | string[];
  /** Origins allowed to open the live-updates socket. */
  allowedOrigins: string[];
  mail: { kind: 'outbox' } | { kind: 'smtp'; host: string; port: number; secure: boolean; user?: string; pass?: string; from: string };
  rateLimit: { max: number; timeWindowMs: number };
  /** Injectable so tests can move time (session expiry, code expiry, lockouts). */
  clock: () => number;
  logLevel: string;
  /** Where the log goes (stdout when unset); tests capture it to check what is written. */
  logStream?: NodeJS.WritableStream;
  /** Seed the demo account on start (npm start). */
  seedDemo: boolean;
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '0.0.0.0';
  const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`;
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(repoRoot, 'data'));
  return {
    host,
    port,
    publicUrl,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisChannel: env.REDIS_CHANNEL || undefined,
    centersFile: path.resolve(env.CENTERS_FILE ?? path.join(repoRoot, 'config/centers.yaml')),
    consoleDist: path.resolve(env.CONSOLE_DIST ?? path.join(repoRoot, 'apps/console/dist')),
    guideDist: path.resolve(env.GUIDE_DIST ?? path.join(repoRoot, 'dist/guide')),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    allowedOrigins: (env.ALLOWED_ORIGINS ?? `${publicUrl},http://127.0.0.1:${port},http://localhost:5173`)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    mail: env.SMTP_HOST
      ? {
          kind: 'smtp',
          host: env.SMTP_HOST,
          port: Number(env.SMTP_PORT ?? 587),
          secure: env.SMTP_SECURE === 'true',
          user: env.SMTP_USER,
          pass: env.SMTP_PASS,
          from: env.SMTP_FROM ?? 'noreply@suanli.local',
        }
      : { kind: 'outbox' },
    rateLimit: { max: Number(env.RATE_LIMIT_MAX ?? 600), timeWindowMs: 60_000 },
    clock: Date.now,
    logLevel: env.LOG_LEVEL ?? 'info',
    seedDemo: env.SEED_DEMO !== 'false',
  };
}

function parseTrustProxy(v: string | undefined): boolean | string[] {
  if (!v || v === 'false') return false;
  if (v === 'true') return true;
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}
