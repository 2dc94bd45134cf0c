import type { AccessLogOptions } from './modules/access-log/access-log.service';
import type { SyncRunnerOptions } from './modules/sync/sync.runner';
import path from 'node:path';
import type { LocalExecutorOptions } from './executors/local/local-executor';
import type { RegistrySettings } from './modules/image/image.service';
import fs from 'node:fs';
import { ORDER_BASE } from '@suanli/contracts';
import type { AlipaySettings } from './modules/order/alipay';
import { checkIdeOrigin } from './modules/training/ide-origin';
import { GatewayEnv, readEnv } from './env';
import { ConfigError } from './lib/config-check';

const ALIPAY_SANDBOX_GATEWAY = 'https://openapi-sandbox.dl.alipaydev.com/gateway.do';

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
  /**
   * Where develop tasks' IDEs are served: a template with `{task}` in the host (IDE_ORIGIN, e.g.
   * `https://{task}.ide.example.cn`; default `{task}.ide.<PUBLIC_URL's host>`, `{task}.ide.localhost` for a
   * console reached as localhost or by address). Never the console's origin (ADR 0014).
   */
  ideOrigin?: string;
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
  /** Timings of the task engine (modules/task); defaults in task.module.ts. Tests shorten them. */
  compute?: ComputeConfig;
  /** Metering and grants (modules/order, ADR 0015). */
  metering?: MeteringConfig;
  /** The platform's OCI registry (REGISTRY_URL …); images answer 2401 without it. See docs/adr/0009-image-registry.md. */
  registry?: RegistrySettings;
  /** Alipay page pay (ALIPAY_APP_ID …); without it the channel is not offered. See docs/adr/0012-orders-and-payment.md. */
  alipay?: AlipaySettings;
  /** Web shell (modules/eshell); defaults in eshell.service.ts. Tests shorten the idle timeout. */
  shell?: ShellConfig;
  /** Cross-center sync retries (modules/sync); defaults in sync.runner.ts. Tests shorten them. */
  sync?: SyncRunnerOptions;
  /** Renewal of held access records and the end of a dead gateway's (modules/access-log); tests shorten them. */
  access?: AccessLogOptions;
}

export interface ShellConfig {
  /**
   * Shell工具's local terminal on the centers whose shell is `local` (the embedded default): a shell of the
   * gateway's own OS user, in the account's home, for every signed-in user. Only for a single-user machine;
   * off unless set, whatever address the gateway listens on. LOCAL_SHELL=true.
   */
  local?: boolean;
  /** No input for this long closes a shell (default 30 min). SHELL_IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number;
  /** Open shells per user and gateway process (default 8). SHELL_MAX_SESSIONS. */
  maxSessionsPerUser?: number;
}

export interface MeteringConfig {
  /** Running tasks draw at least this often; a submit needs compute power for one period. METERING_PERIOD_MS, default 60 000. */
  periodMs?: number;
  /**
   * Compute power every account gets once, on every card type of every center, the first time it reads its
   * balance or submits (WELCOME_GRANT_CARD_HOURS, WELCOME_GRANT_DAYS). Absent or 0 卡时: none. On by default
   * only in the embedded default (SQLite).
   */
  welcomeGrant?: { cardHours: number; validDays: number };
}

export interface ComputeConfig {
  /** Each center's poll interval (≤ 2 s budget). TASK_POLL_MS. */
  pollIntervalMs?: number;
  /** A center with no task to watch is polled this often until a task event wakes it. Default 5 poll intervals. */
  idlePollMs?: number;
  /** Poller lease: a dead leader's centers are taken over after this (+ one interval). TASK_LEASE_MS. */
  leaseMs?: number;
  /** A submit that failed for a transient reason is retried after this. TASK_SUBMIT_RETRY_MS. */
  submitRetryMs?: number;
  /** This replica's name in the lease table (default: random per process). */
  holder?: string;
  /**
   * Knobs of the local executor (poll interval, kill grace, minute length). Tests shorten the minute so a
   * time limit (最长运行时长, in minutes) can be reached through the API in seconds; unset in production.
   */
  local?: Omit<LocalExecutorOptions, 'stateDir' | 'clock'>;
  /** How long before a develop task's 最长运行时长 its owner is warned. Default 10 min. */
  expiryWarnMs?: number;
  /** How often a center's inventory is sampled for 资源 (after a poll, by the leader). Default 30 000. */
  resourceSampleMs?: number;
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/**
 * The gateway's settings from the environment (GatewayEnv in env.ts: every variable is checked before any is
 * used). A wrong value throws a ConfigError naming the variable; main.ts prints it and exits.
 */
export function loadConfig(processEnv: NodeJS.ProcessEnv = process.env): Config {
  const env = readEnv(GatewayEnv, processEnv);
  const port = env.PORT ?? 8080;
  const host = env.HOST ?? '0.0.0.0';
  const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`;
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(repoRoot, 'data'));
  return {
    host,
    port,
    publicUrl,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisChannel: env.REDIS_CHANNEL,
    centersFile: path.resolve(env.CENTERS_FILE ?? path.join(repoRoot, 'config/centers.yaml')),
    consoleDist: path.resolve(env.CONSOLE_DIST ?? path.join(repoRoot, 'apps/console/dist')),
    guideDist: path.resolve(env.GUIDE_DIST ?? path.join(repoRoot, 'dist/guide')),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    ideOrigin: env.IDE_ORIGIN ? ideOriginOf(env.IDE_ORIGIN) : undefined,
    allowedOrigins: (env.ALLOWED_ORIGINS ?? `${publicUrl},http://127.0.0.1:${port},http://localhost:5173`)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    mail: env.SMTP_HOST
      ? {
          kind: 'smtp',
          host: env.SMTP_HOST,
          port: env.SMTP_PORT ?? 587,
          secure: env.SMTP_SECURE ?? false,
          user: env.SMTP_USER,
          pass: env.SMTP_PASS,
          from: env.SMTP_FROM ?? 'noreply@suanli.local',
        }
      : { kind: 'outbox' },
    rateLimit: { max: env.RATE_LIMIT_MAX ?? 1200, timeWindowMs: 60_000 },
    clock: Date.now,
    logLevel: env.LOG_LEVEL ?? 'info',
    seedDemo: env.SEED_DEMO ?? true,
    registry: env.REGISTRY_URL
      ? {
          url: env.REGISTRY_URL.replace(/\/+$/, ''),
          address: env.REGISTRY_ADDRESS ?? new URL(env.REGISTRY_URL).host,
          service: env.REGISTRY_SERVICE ?? 'suanli-registry',
          issuer: env.REGISTRY_ISSUER ?? 'suanli-gateway',
        }
      : undefined,
    alipay: env.ALIPAY_APP_ID
      ? {
          appId: env.ALIPAY_APP_ID,
          privateKey: readKeyFile(env, 'ALIPAY_PRIVATE_KEY_FILE'),
          alipayPublicKey: readKeyFile(env, 'ALIPAY_PUBLIC_KEY_FILE'),
          gateway: env.ALIPAY_GATEWAY ?? ALIPAY_SANDBOX_GATEWAY,
          notifyUrl: `${publicUrl}${ORDER_BASE}/pay/alipay/notify`,
          returnUrl: env.ALIPAY_RETURN_URL ?? `${publicUrl}/console/order`,
          sellerId: env.ALIPAY_SELLER_ID,
        }
      : undefined,
    metering: {
      periodMs: env.METERING_PERIOD_MS,
      // The embedded default (no DATABASE_URL) lets a newcomer run the first tasks; a real deployment decides.
      welcomeGrant: { cardHours: env.WELCOME_GRANT_CARD_HOURS ?? (env.DATABASE_URL ? 0 : 10), validDays: env.WELCOME_GRANT_DAYS ?? 30 },
    },
    compute: {
      pollIntervalMs: env.TASK_POLL_MS,
      leaseMs: env.TASK_LEASE_MS,
      submitRetryMs: env.TASK_SUBMIT_RETRY_MS,
    },
    shell: {
      local: env.LOCAL_SHELL ?? false,
      idleTimeoutMs: env.SHELL_IDLE_TIMEOUT_MS,
      maxSessionsPerUser: env.SHELL_MAX_SESSIONS,
    },
  };
}

function ideOriginOf(template: string): string {
  try {
    return checkIdeOrigin(template);
  } catch (e) {
    throw new ConfigError('environment', [(e as Error).message]);
  }
}

/** A PEM file named by the env; Alipay without its keys stops the start with the reason. */
function readKeyFile(env: GatewayEnv, name: 'ALIPAY_PRIVATE_KEY_FILE' | 'ALIPAY_PUBLIC_KEY_FILE'): string {
  const file = env[name];
  if (!file) throw new ConfigError('environment', [`${name} is required when ALIPAY_APP_ID is set`]);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError('environment', [`${name} names a file that cannot be read (${(e as Error).message})`]);
  }
}

function parseTrustProxy(v: string | undefined): boolean | string[] {
  if (!v || v === 'false') return false;
  if (v === 'true') return true;
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}
