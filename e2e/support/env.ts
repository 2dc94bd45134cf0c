import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { buildApp } from '../../apps/server/src/app';
import type { Config } from '../../apps/server/src/config';
// The gateway's `fileServices` is declared by the file service's plugin; e2e reads the server's declarations
// (tsc -b), which load that one only through an import of it.
import type {} from '../../apps/server/src/file-service/app';
import { removeAfterJobs } from '../../apps/server/test/local-jobs';
import { openBrowser } from './chromium';

const repoRoot = path.resolve(import.meta.dirname, '../..');
export const ARTIFACTS = path.join(repoRoot, 'e2e/artifacts');
/**
 * What every journey's browser context starts with: Chinese, and less motion (the console honours
 * `prefers-reduced-motion`, apps/console/src/app/motion.ts): no journey is about an animation, and every
 * dialog's zoom, dropdown's slide, toast's fade and button's wave was frames Chromium drew and `settled`
 * waited out (issue 26). Screenshots show the same end states.
 */
export const CONTEXT_DEFAULTS = { locale: 'zh-CN', reducedMotion: 'reduce' } as const satisfies BrowserContextOptions;

/** The Chromium instances of the running file (support/failure-shots.ts photographs their pages). */
export const browsers = new Set<Browser>();

export interface E2eEnv {
  app: FastifyInstance;
  baseUrl: string;
  dataDir: string;
  browser: Browser;
  /**
   * A new context (1440 × 900, `CONTEXT_DEFAULTS`) and its page. `storageState` starts it signed in (support/auth.ts
   * `signedInPage`).
   */
  newPage(opts?: { storageState?: BrowserContextOptions['storageState'] }): Promise<{ context: BrowserContext; page: Page }>;
  shot(page: Page, name: string): Promise<void>;
  /** The newest verification code the outbox holds for a target. */
  outboxCode(target: string): string;
  close(): Promise<void>;
}

/**
 * A real gateway (embedded default: SQLite, local storage, outbox mail) serving the built console on a
 * free port, and a real Chromium. The server runs in the test process so a test can create a message for a
 * user (`app.ctx.notify`) the way any module does.
 */
export async function startE2e(overrides: Partial<Config> = {}): Promise<E2eEnv> {
  const consoleDist = path.join(repoRoot, 'apps/console/dist');
  if (!fs.existsSync(path.join(consoleDist, 'index.html'))) throw new Error('console not built: npm run build -w apps/console');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-'));
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    publicUrl: 'http://127.0.0.1',
    dataDir,
    centersFile: path.join(repoRoot, 'config/centers.yaml'),
    consoleDist,
    trustProxy: false,
    allowedOrigins: [],
    mail: { kind: 'outbox' },
    rateLimit: { max: 100_000, timeWindowMs: 60_000 },
    clock: Date.now,
    logLevel: 'warn',
    seedDemo: false,
    // Journeys submit tasks as new users: a welcome grant lets them (ADR 0015); a journey about the balance
    // itself passes `metering` without it.
    metering: { welcomeGrant: { cardHours: 10_000, validDays: 365 } },
    ...overrides,
  };
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // The socket's Origin check needs the origin the browser really uses.
  config.allowedOrigins.push(baseUrl);
  config.publicUrl = baseUrl;

  const browser = await openBrowser();
  browsers.add(browser);
  fs.mkdirSync(ARTIFACTS, { recursive: true });

  return {
    app,
    baseUrl,
    dataDir,
    browser,
    async newPage(opts = {}) {
      const context = await browser.newContext({ ...CONTEXT_DEFAULTS, viewport: { width: 1440, height: 900 }, baseURL: baseUrl, storageState: opts.storageState });
      const page = await context.newPage();
      return { context, page };
    },
    async shot(page, name) {
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    outboxCode(target) {
      const file = path.join(dataDir, 'outbox/messages.jsonl');
      const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
      for (const line of lines.reverse()) {
        const m = JSON.parse(line) as { target: string; code: string };
        if (m.target === target) return m.code;
      }
      throw new Error(`no outbox code for ${target}`);
    },
    async close() {
      browsers.delete(browser);
      await browser.close();
      await app.close();
      // A develop task's job outlives its gateway by design: killed with the file's data.
      await removeAfterJobs(dataDir);
    },
  };
}
