import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { FileServiceEnv, GatewayEnv, LauncherEnv, readEnv } from './env';
import { ConfigError } from './lib/config-check';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-env-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The ConfigError `load` throws (fails the test when it throws nothing or something else). */
function mistakes(load: () => unknown): ConfigError {
  try {
    load();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('loaded without an error');
}

describe('gateway environment (loadConfig)', () => {
  it('PORT=abc stops the start naming PORT', () => {
    expect(mistakes(() => loadConfig({ PORT: 'abc' })).message).toBe('environment: PORT must be an integer ≥ 0 and ≤ 65535 (got "abc")');
  });

  it('names every wrong variable at once', () => {
    const e = mistakes(() =>
      loadConfig({
        PORT: '80.5',
        TASK_POLL_MS: '0',
        TASK_LEASE_MS: '6s',
        RATE_LIMIT_MAX: '-3',
        SHELL_IDLE_TIMEOUT_MS: 'soon',
        SHELL_MAX_SESSIONS: 'many',
        SMTP_PORT: '99999',
        SMTP_SECURE: 'yes',
        SEED_DEMO: 'maybe',
        LOG_LEVEL: 'loud',
        PUBLIC_URL: 'localhost:8080',
        DATABASE_URL: 'mysql://root@127.0.0.1/suanli',
        REDIS_URL: '127.0.0.1:6379',
        REGISTRY_URL: 'registry.example.com',
      }),
    );
    expect(e.source).toBe('environment');
    expect(e.message.split('\n')[0]).toBe('environment: 14 mistakes');
    expect(e.issues.sort()).toEqual(
      [
        'PORT must be an integer ≥ 0 and ≤ 65535 (got 80.5)',
        'TASK_POLL_MS must be an integer ≥ 1 (got 0)',
        'TASK_LEASE_MS must be an integer ≥ 1 (got "6s")',
        'RATE_LIMIT_MAX must be an integer ≥ 1 (got -3)',
        'SHELL_IDLE_TIMEOUT_MS must be an integer ≥ 1 (got "soon")',
        'SHELL_MAX_SESSIONS must be an integer ≥ 1 (got "many")',
        'SMTP_PORT must be an integer ≥ 0 and ≤ 65535 (got 99999)',
        'SMTP_SECURE must be true or false (got "yes")',
        'SEED_DEMO must be true or false (got "maybe")',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
        'PUBLIC_URL must be an http:// or https:// URL (got "localhost:8080")',
        'DATABASE_URL must be a postgres:// URL (got "mysql://root@127.0.0.1/suanli")',
        'REDIS_URL must be a redis:// or rediss:// URL (got "127.0.0.1:6379")',
        'REGISTRY_URL must be an http:// or https:// URL (got "registry.example.com")',
      ].sort(),
    );
  });

  it('IDE_ORIGIN and the Alipay key files are named too', () => {
    expect(mistakes(() => loadConfig({ IDE_ORIGIN: 'https://ide.example.cn' })).message).toMatch(/^environment: IDE_ORIGIN must look like https:\/\/\{task\}\.ide\.example\.cn/);
    expect(mistakes(() => loadConfig({ ALIPAY_APP_ID: '2021' })).message).toBe('environment: ALIPAY_PRIVATE_KEY_FILE is required when ALIPAY_APP_ID is set');
    const missing = path.join(dir, 'nope.pem');
    expect(mistakes(() => loadConfig({ ALIPAY_APP_ID: '2021', ALIPAY_PRIVATE_KEY_FILE: missing })).message).toMatch(
      new RegExp(`^environment: ALIPAY_PRIVATE_KEY_FILE names a file that cannot be read \\(ENOENT.*${missing}`),
    );
  });

  it('converts what is right; an empty value counts as unset; other variables are ignored', () => {
    const c = loadConfig({
      PORT: '9000',
      TASK_POLL_MS: '500',
      TASK_LEASE_MS: '4000',
      SHELL_IDLE_TIMEOUT_MS: '60000',
      SHELL_MAX_SESSIONS: '2',
      RATE_LIMIT_MAX: '50',
      SEED_DEMO: 'false',
      SMTP_HOST: 'smtp.example.com',
      SMTP_PORT: '465',
      SMTP_SECURE: 'true',
      LOG_LEVEL: 'warn',
      DATA_DIR: dir,
      REDIS_URL: '',
      EDITOR: 'vi',
    });
    expect(c).toMatchObject({
      port: 9000,
      publicUrl: 'http://localhost:9000',
      dataDir: dir,
      redisUrl: undefined,
      rateLimit: { max: 50 },
      seedDemo: false,
      logLevel: 'warn',
      mail: { kind: 'smtp', host: 'smtp.example.com', port: 465, secure: true },
      compute: { pollIntervalMs: 500, leaseMs: 4000, submitRetryMs: undefined },
      shell: { idleTimeoutMs: 60_000, maxSessionsPerUser: 2 },
    });
    const d = loadConfig({ PORT: '' });
    expect(d).toMatchObject({ port: 8080, host: '0.0.0.0', seedDemo: true, rateLimit: { max: 1200 }, mail: { kind: 'outbox' }, centersFile: path.join(repoRoot, 'config/centers.yaml') });
  });
});

describe('metering settings (ADR 0015)', () => {
  it('the welcome grant is on by default only in the embedded default (SQLite); the period defaults to the pass', () => {
    expect(loadConfig({}).metering).toEqual({ periodMs: undefined, welcomeGrant: { cardHours: 10, validDays: 30 } });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/suanli' }).metering?.welcomeGrant).toEqual({ cardHours: 0, validDays: 30 });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/suanli', WELCOME_GRANT_CARD_HOURS: '5', WELCOME_GRANT_DAYS: '7', METERING_PERIOD_MS: '30000' }).metering).toEqual({
      periodMs: 30_000,
      welcomeGrant: { cardHours: 5, validDays: 7 },
    });
    expect(loadConfig({ WELCOME_GRANT_CARD_HOURS: '0' }).metering?.welcomeGrant?.cardHours).toBe(0);
  });

  it('wrong values are named', () => {
    expect(mistakes(() => loadConfig({ METERING_PERIOD_MS: '500', WELCOME_GRANT_CARD_HOURS: '-1', WELCOME_GRANT_DAYS: 'soon' })).issues.sort()).toEqual(
      [
        'METERING_PERIOD_MS must be an integer ≥ 1000 and ≤ 3600000 (got 500)',
        'WELCOME_GRANT_CARD_HOURS must be an integer ≥ 0 and ≤ 100000 (got -1)',
        'WELCOME_GRANT_DAYS must be an integer ≥ 1 and ≤ 3650 (got "soon")',
      ].sort(),
    );
  });
});

describe('file service and launcher environments', () => {
  it('the file service needs CENTER_ID and a GATEWAY_URL', () => {
    expect(mistakes(() => readEnv(FileServiceEnv, { PORT: '8081' })).issues).toEqual(['CENTER_ID is required', 'GATEWAY_URL is required']);
    expect(mistakes(() => readEnv(FileServiceEnv, { CENTER_ID: 'sz-a100', GATEWAY_URL: 'gateway:8080', PORT: 'x' })).issues).toEqual([
      'GATEWAY_URL must be an http:// or https:// URL (got "gateway:8080")',
      'PORT must be an integer ≥ 0 and ≤ 65535 (got "x")',
    ]);
    expect(readEnv(FileServiceEnv, { CENTER_ID: 'sz-a100', GATEWAY_URL: 'http://127.0.0.1:8080', PORT: '0' })).toEqual({ CENTER_ID: 'sz-a100', GATEWAY_URL: 'http://127.0.0.1:8080', PORT: 0 });
  });

  it('the launcher never serves uid 0 and needs its socket, client and storage root', () => {
    expect(mistakes(() => readEnv(LauncherEnv, { ACCOUNT_UID_MIN: '0', ACCOUNT_UID_MAX: 'x', STORAGE_ROOT: 'srv' })).issues).toEqual([
      'LAUNCHER_SOCKET is required',
      'CLIENT_USER is required',
      'STORAGE_ROOT must be an absolute path (got "srv")',
      'ACCOUNT_UID_MIN must be an integer ≥ 1 (got 0)',
      'ACCOUNT_UID_MAX must be an integer ≥ 1 (got "x")',
    ]);
  });
});

describe('the documented variables are the checked ones', () => {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const example = fs.readFileSync(path.join(repoRoot, '.env.example'), 'utf8');
  /** Upper-case names in backticks in the first column of README's "Configuration (environment)" table. */
  const readmeVars = () => {
    const section = readme.slice(readme.indexOf('## Configuration (environment)'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|')));
    return new Set(table.split('\n').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
  };
  const exampleVars = new Set([...example.matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));

  it("README's table lists exactly the gateway's variables", () => {
    expect([...readmeVars()].sort()).toEqual(Object.keys(GatewayEnv.properties).sort());
  });

  it('.env.example lists every variable of the gateway, the file service and the launcher', () => {
    const all = new Set([...Object.keys(GatewayEnv.properties), ...Object.keys(FileServiceEnv.properties), ...Object.keys(LauncherEnv.properties)]);
    expect([...all].filter((v) => !exampleVars.has(v))).toEqual([]);
    expect([...exampleVars].filter((v) => !all.has(v) && !v.startsWith('VITE_'))).toEqual([]);
  });
});
