/**
 * The deployment, brought up the way docs/operations/deploy.md says (issue 24, acceptance 2):
 * deploy/local-up.sh follows the document on this machine from a clean state — a fresh PostgreSQL database,
 * Redis, two gateways and one file service per center started from the systemd units' ExecStart lines, the
 * nginx site rendered from deploy/nginx/ in front of them — and this file uses it only through nginx, as a
 * person would: the console loads, a user signs in, the live socket connects through the proxy and messages
 * made on either gateway arrive on it, and an upload (one small file, one in chunks) reaches the center's
 * file service through nginx and lands on its storage byte for byte. Then deploy/local-down.sh.
 *
 * It fails (never skips) when nginx is missing: scripts/provision.sh installs it.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_BASE, USER_BASE } from '@suanli/contracts';
import { loadCentersFile } from '../apps/server/src/centers/centers-file';
import { FileServiceEnv, GatewayEnv, readEnv } from '../apps/server/src/env';
import { encryptWith } from '../apps/server/test/rsa';
import { signIn } from './support/auth';
import { openBrowser } from './support/chromium';
import { ARTIFACTS, browsers, CONTEXT_DEFAULTS } from './support/env';
import { noHorizontalScroll } from './support/page';

const repoRoot = path.resolve(import.meta.dirname, '..');
/** A fixed place: local-up.sh takes down whatever a crashed earlier run left there before it starts. */
const WORK = path.join(os.tmpdir(), 'suanli-deploy-e2e');
const DB = 'suanli_deploy_e2e';
const CENTER = 'sz-a100';
const MiB = 1024 * 1024;

interface Deployment {
  url: string;
  etc: string;
  dataDir: string;
  share: string;
  gateways: string[];
  centers: string[];
}

/** An env file as systemd reads it (KEY=VALUE lines; comments and blanks ignored). */
function envFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2];
  }
  return out;
}

let dep: Deployment;
let browser: Browser;

beforeAll(async () => {
  expect(spawnSync('sh', ['-c', 'command -v nginx']).status, 'nginx is missing: run scripts/provision.sh').toBe(0);
  const up = spawnSync('bash', [path.join(repoRoot, 'deploy/local-up.sh'), WORK], {
    encoding: 'utf8',
    env: { ...process.env, SUANLI_LOCAL_DB: DB },
    timeout: 170_000,
  });
  if (up.status !== 0) throw new Error(`deploy/local-up.sh failed (exit ${up.status ?? up.signal}):\n${up.stdout}\n${up.stderr}`);
  dep = JSON.parse(fs.readFileSync(path.join(WORK, 'deployment.json'), 'utf8')) as Deployment;
  browser = await openBrowser();
  browsers.add(browser);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  if (browser) {
    browsers.delete(browser);
    await browser.close();
  }
  const down = spawnSync('bash', [path.join(repoRoot, 'deploy/local-down.sh'), WORK], { encoding: 'utf8', timeout: 60_000 });
  if (down.status !== 0) throw new Error(`deploy/local-down.sh failed:\n${down.stdout}\n${down.stderr}`);
});

// ---- HTTP through nginx, as the console does it -------------------------------------------------------

async function api<T = any>(origin: string, method: 'GET' | 'POST', url: string, body?: unknown, token?: string) {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { token } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as { message: { code: number; message: string }; data: T };
}

async function encrypt(password: string): Promise<string> {
  const key = await api<{ publicKey: string }>(dep.url, 'GET', `${USER_BASE}/user/rsa-key`);
  return encryptWith(key.data.publicKey, password);
}

/** The register flow through nginx; the code comes from the deployment's outbox (no SMTP here). */
async function register(): Promise<{ username: string; password: string }> {
  const username = `d_${randomBytes(4).toString('hex')}`;
  const password = 'Passw0rd-deploy';
  const email = `${username}@deploy.test`;
  expect((await api(dep.url, 'POST', `${USER_BASE}/user/code`, { scene: 'register', target: email })).message.code).toBe(0);
  const outbox = path.join(dep.dataDir, 'outbox/messages.jsonl');
  let code: string | undefined;
  await expect
    .poll(() => {
      const lines = fs.existsSync(outbox) ? fs.readFileSync(outbox, 'utf8').trim().split('\n') : [];
      code = lines.map((l) => JSON.parse(l) as { target: string; code: string }).findLast((m) => m.target === email)?.code;
      return code;
    })
    .toBeTruthy();
  const reg = await api(dep.url, 'POST', `${USER_BASE}/user/register`, { username, password: await encrypt(password), email, code, agreement: true });
  expect(reg.message).toEqual({ code: 0, message: expect.any(String) });
  return { username, password };
}

async function login(origin: string, username: string, password: string): Promise<string> {
  const res = await api<{ token: string }>(origin, 'POST', `${USER_BASE}/user/login`, { account: username, password: await encrypt(password) });
  expect(res.message.code).toBe(0);
  return res.data.token;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// ---- the journey ------------------------------------------------------------------------------------------

describe('a deployment behind nginx (deploy/local-up.sh)', () => {
  let researcher: { username: string; password: string };
  let operator: { username: string; password: string };
  let page: Page;

  it('ships example configuration that the processes accept', () => {
    // What deploy.md tells a person to copy: the same checks as the processes' start (a wrong key stops them).
    expect(() => readEnv(GatewayEnv, envFile(path.join(repoRoot, 'deploy/etc/gateway.env.example')))).not.toThrow();
    const fsEnv = { ...envFile(path.join(repoRoot, 'deploy/etc/file-service.env.example')), ...envFile(path.join(repoRoot, 'deploy/etc/file-service-sz-a100.env.example')) };
    expect(readEnv(FileServiceEnv, fsEnv).CENTER_ID).toBe('sz-a100');
    const { centers } = loadCentersFile(path.join(repoRoot, 'deploy/etc/centers.yaml.example'), '/var/lib/suanli');
    expect(centers.map((c) => [c.id, c.scheduler.kind, c.fileServiceUrl, c.storageAccess])).toEqual([
      ['sz-a100', 'slurm', 'https://suanli.example.cn/fs/sz-a100', 'fileService'],
      ['gz-ascend', 'slurm', 'https://suanli.example.cn/fs/gz-ascend', 'fileService'],
    ]);
    // The deployment this file runs against: two gateways, a file service per center, all behind one origin.
    expect(dep.gateways).toHaveLength(2);
    expect(dep.centers).toEqual(['sz-a100', 'gz-ascend']);
  });

  it('sends an IDE origin’s requests to the gateways’ IDE proxy, not to the console', async () => {
    // The wildcard server block: a task's host (here *.ide.localhost) reaches the IDE proxy with its Host
    // kept; without the ticket's cookie the proxy answers its own Chinese 403 page.
    const { port } = new URL(dep.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/tree', headers: { host: `k0zq8w2m4n6p1r3t5v7x.ide.localhost:${port}` } }, (r) => {
        let body = '';
        r.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject).end();
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatch(/[\u4e00-\u9fff]/);
    expect(res.body).not.toContain('<div id="root"');
  });

  it('makes the first operator with the admin command, against the deployment’s database', async () => {
    operator = await register();
    researcher = await register();
    // deploy.md "8. First operator": the admin command with the gateways' environment, as the document writes it.
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root' };
    const add = spawnSync('deploy/with-env.sh', [path.join(dep.etc, 'gateway.env'), 'npm', 'run', 'admin', '--', 'operator', 'add', operator.username], {
      cwd: repoRoot,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(add.stderr).not.toMatch(/Error/);
    expect(add.status).toBe(0);
    expect(add.stdout).toContain(`已将 ${operator.username} 设为运营人员（已写入审计日志）`);
  });

  it('loads the console through nginx; the live socket connects through the proxy and gets messages made on either gateway', async () => {
    const context = await browser.newContext({ ...CONTEXT_DEFAULTS, viewport: { width: 1440, height: 900 }, baseURL: dep.url });
    page = await context.newPage();
    const sockets: { url: string; closed: boolean }[] = [];
    page.on('websocket', (ws) => {
      const s = { url: ws.url(), closed: false };
      sockets.push(s);
      ws.on('close', () => (s.closed = true));
    });
    const index = await page.goto('/console/login');
    // The HTML comes from a gateway (its CSP), the bundles straight from the build by nginx.
    expect(index?.headers()['content-security-policy']).toContain("default-src 'self'");
    await signIn(page, researcher.username, researcher.password);
    await expect.poll(() => page.getByTestId('header-bell').getAttribute('data-unread')).toBe('0');
    const wsUrl = `${dep.url.replace(/^http/, 'ws')}/gateway/ws/api/ws`;
    await expect.poll(() => sockets.filter((s) => s.url.startsWith(wsUrl) && !s.closed).length).toBe(1);

    // An operator's grant on each gateway in turn (straight to the process, not through nginx): whichever
    // gateway holds the socket, the other one's message reaches it through Redis — the bell rises live.
    const grant = { username: researcher.username, subCenterId: CENTER, cardTypeId: 'a100-80g', cardHours: 5, validDays: 30, reason: '部署验收' };
    for (const [i, g] of dep.gateways.entries()) {
      const origin = `http://${g}`;
      const token = await login(origin, operator.username, operator.password);
      expect((await api(origin, 'POST', `${ORDER_BASE}/comp-powers/grant`, grant, token)).message.code).toBe(0);
      await expect.poll(() => page.getByTestId('header-bell').getAttribute('data-unread'), { timeout: 15_000 }).toBe(String(i + 1));
    }
    // Still the one socket: nothing was reloaded to see them.
    expect(sockets.filter((s) => s.url.startsWith(wsUrl))).toHaveLength(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'deploy-01-console-through-nginx.png') });
  });

  it('uploads a small file and a chunked one through nginx to the center’s file service; they land on its storage', async () => {
    const fileCalls: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().startsWith(`${dep.url}/fs/${CENTER}/api/v1/`)) fileCalls.push(new URL(r.url()).pathname);
    });
    await page.goto(`/console/storage?center=${CENTER}`);
    await page.getByTestId('storage-dropzone').waitFor();
    const small = { name: '部署说明.txt', text: '经由 nginx 上传的文件\n'.repeat(50) };
    const bigSize = 17 * MiB + 5; // three chunks of UPLOAD_CHUNK_SIZE (8 MiB)
    const seed = 24;
    await page.evaluate(
      ({ small, bigSize, seed }) => {
        const big = new Uint8Array(bigSize);
        let x = seed;
        for (let i = 0; i < bigSize; i++) {
          x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
          big[i] = x >>> 24;
        }
        const dt = new DataTransfer();
        dt.items.add(new File([small.text], small.name));
        dt.items.add(new File([big], 'weights.bin'));
        const zone = document.querySelector('[data-testid="storage-dropzone"]')!;
        for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      },
      { small, bigSize, seed },
    );
    await page.getByTestId('upload-panel').waitFor();
    await expect
      .poll(() => page.$$eval('[data-testid="upload-row"]', (rows) => rows.map((r) => r.getAttribute('data-status')).join(',')), { timeout: 60_000 })
      .toBe('success,success');
    await expect.poll(() => page.locator('[data-testid="storage-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')).sort())).toEqual(
      ['weights.bin', small.name].sort(),
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'deploy-02-upload-through-nginx.png') });

    // Every file call went to the center's path on nginx; the big file in chunks.
    expect(fileCalls.filter((p) => p.endsWith('/file/chunk/upload')).length).toBeGreaterThanOrEqual(3);
    // On the center's storage (the file service's host), in the account's home, byte for byte.
    const homes = path.join(dep.share, CENTER, 'home');
    const [account] = fs.readdirSync(homes);
    const big = new Uint8Array(bigSize);
    let x = seed;
    for (let i = 0; i < bigSize; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      big[i] = x >>> 24;
    }
    expect(sha256(fs.readFileSync(path.join(homes, account, 'weights.bin')))).toBe(sha256(big));
    expect(fs.readFileSync(path.join(homes, account, small.name), 'utf8')).toBe(small.text);
  });

  it('fits a phone through nginx too', async () => {
    const context = await browser.newContext({ ...CONTEXT_DEFAULTS, viewport: { width: 375, height: 812 }, baseURL: dep.url, isMobile: true, hasTouch: true });
    const phone = await context.newPage();
    await signIn(phone, researcher.username, researcher.password);
    await phone.goto(`/console/storage?center=${CENTER}`);
    await phone.locator(`[data-testid="storage-row"][data-name="weights.bin"]`).waitFor();
    await noHorizontalScroll(phone);
    await phone.screenshot({ path: path.join(ARTIFACTS, 'deploy-03-phone-through-nginx.png') });
    await context.close();
  });
});
