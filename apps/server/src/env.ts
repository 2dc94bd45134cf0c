import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { checkConfig } from './lib/config-check';

/*
 * The environment of each process, one schema per entry point: the gateway (config.ts `loadConfig`), the
 * standalone file service (file-service/main.ts) and its launcher (file-service/accounts/launcher-main.ts).
 * Every variable README's configuration table and .env.example list is here (env.test.ts holds them to it).
 * Values are converted (decimal numbers, true/false) and checked before any is used: `PORT=abc` stops the start with
 * `environment: PORT must be an integer ≥ 0 and ≤ 65535 (got "abc")`. An empty value counts as unset.
 */

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Ms = (description: string) => Type.Integer({ minimum: 1, description });
const HttpUrl = Type.String({ pattern: '^https?://[^\\s/]+', expected: 'an http:// or https:// URL' });
const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));
const Text = Type.String();

const shared = {
  HOST: Type.Optional(Text),
  DATA_DIR: Type.Optional(Text),
  CENTERS_FILE: Type.Optional(Text),
  ALLOWED_ORIGINS: Type.Optional(Text),
  LOG_LEVEL: Type.Optional(LogLevel),
};

export const GatewayEnv = Type.Object({
  ...shared,
  PORT: Type.Optional(Port),
  PUBLIC_URL: Type.Optional(HttpUrl),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', expected: 'a postgres:// URL' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', expected: 'a redis:// or rediss:// URL' })),
  REDIS_CHANNEL: Type.Optional(Text),
  CONSOLE_DIST: Type.Optional(Text),
  GUIDE_DIST: Type.Optional(Text),
  TRUST_PROXY: Type.Optional(Text),
  IDE_ORIGIN: Type.Optional(Text),
  SMTP_HOST: Type.Optional(Text),
  SMTP_PORT: Type.Optional(Port),
  SMTP_SECURE: Type.Optional(Type.Boolean()),
  SMTP_USER: Type.Optional(Text),
  SMTP_PASS: Type.Optional(Text),
  SMTP_FROM: Type.Optional(Text),
  RATE_LIMIT_MAX: Type.Optional(Type.Integer({ minimum: 1 })),
  SEED_DEMO: Type.Optional(Type.Boolean()),
  REGISTRY_URL: Type.Optional(HttpUrl),
  REGISTRY_ADDRESS: Type.Optional(Text),
  REGISTRY_SERVICE: Type.Optional(Text),
  REGISTRY_ISSUER: Type.Optional(Text),
  ALIPAY_APP_ID: Type.Optional(Text),
  ALIPAY_PRIVATE_KEY_FILE: Type.Optional(Text),
  ALIPAY_PUBLIC_KEY_FILE: Type.Optional(Text),
  ALIPAY_GATEWAY: Type.Optional(HttpUrl),
  ALIPAY_RETURN_URL: Type.Optional(HttpUrl),
  ALIPAY_SELLER_ID: Type.Optional(Text),
  TASK_POLL_MS: Type.Optional(Ms('poll interval per center')),
  TASK_LEASE_MS: Type.Optional(Ms('poller lease across replicas')),
  TASK_SUBMIT_RETRY_MS: Type.Optional(Ms('retry of a submit that failed for a transient reason')),
  METERING_PERIOD_MS: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3_600_000, description: 'running tasks are drawn from at least this often' })),
  /** 卡时 per card type given once to every account (0: none); default 10 on SQLite (the embedded default), else 0. */
  WELCOME_GRANT_CARD_HOURS: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  WELCOME_GRANT_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  SHELL_IDLE_TIMEOUT_MS: Type.Optional(Ms('a web shell without input is closed after this')),
  SHELL_MAX_SESSIONS: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Shell工具's local terminal on the embedded centers: an explicit opt-in, never implied by HOST. */
  LOCAL_SHELL: Type.Optional(Type.Boolean()),
});
export type GatewayEnv = Static<typeof GatewayEnv>;

export const FileServiceEnv = Type.Object({
  ...shared,
  CENTER_ID: Type.String({ minLength: 1 }),
  GATEWAY_URL: HttpUrl,
  PORT: Type.Optional(Port),
  FS_LAUNCHER_SOCKET: Type.Optional(Text),
  // How long a positive identity/membership answer of the gateway is reused (ms). At most a minute: a revoked
  // session or a team member who left must stop working soon (the kernel's ACLs refuse a leaver at once anyway).
  IDENTITY_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
});
export type FileServiceEnv = Static<typeof FileServiceEnv>;

export const LauncherEnv = Type.Object({
  LAUNCHER_SOCKET: Type.String({ minLength: 1 }),
  CLIENT_USER: Type.String({ minLength: 1 }),
  STORAGE_ROOT: Type.String({ pattern: '^/', expected: 'an absolute path' }),
  // Never 0: the launcher must not act as root for a client.
  ACCOUNT_UID_MIN: Type.Integer({ minimum: 1 }),
  ACCOUNT_UID_MAX: Type.Integer({ minimum: 1 }),
});
export type LauncherEnv = Static<typeof LauncherEnv>;

/**
 * The schema's variables of `env`, converted and checked; anything else in the environment is ignored.
 * Throws a ConfigError (source `environment`) naming every wrong variable.
 */
export function readEnv<P extends TProperties>(schema: TObject<P>, env: NodeJS.ProcessEnv): Static<TObject<P>> {
  const picked: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(schema.properties)) {
    const v = env[k];
    if (v !== undefined && v !== '') picked[k] = convert(s, v);
  }
  return checkConfig(schema, picked, 'environment');
}

/**
 * A number only when the whole value is one written in decimal, true/false only as those words: anything
 * else stays text and fails the check (TypeBox's Value.Convert reads `80.5` as the integer 80 and `1e3` as 1).
 */
function convert(schema: TSchema, v: string): unknown {
  const type = (schema as { type?: string }).type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}
