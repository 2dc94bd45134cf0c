// `npm start`'s server entry as a real process on a fresh data dir: it migrates, seeds and prints the demo
// account; the demo account signs in through Chromium, and curl + openssl log in over plain HTTP.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../apps/server/test/process';
import { openBrowser } from './support/chromium';
import { ARTIFACTS } from './support/env';

const repoRoot = path.resolve(import.meta.dirname, '..');
let server: ChildProcess;
let output = '';
let base = '';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-start-'));

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const up = await fetch(`${base}/gateway/user/api/v1/user/rsa-key`).then((r) => r.ok, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not start:\n${output}`);
});

afterAll(async () => {
  server?.kill('SIGTERM');
  await new Promise((r) => server?.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('prints the demo account and migrates a fresh SQLite database under DATA_DIR', () => {
  expect(output).toContain('演示账号: demo');
  expect(output).toContain('Demo@123456');
  // No operator yet: the banner says how to make the first one (README "Operators").
  expect(output).toContain('运营管理: 还没有运营人员，设置第一位：npm run admin -- operator add demo');
  expect(fs.existsSync(path.join(dataDir, 'suanli.db'))).toBe(true);
});

it('logs in with curl + openssl pkeyutl (PKCS#1 v1.5); a wrong password answers 1024', () => {
  const good = JSON.parse(execFileSync(path.join(repoRoot, 'scripts/curl-login.sh'), [base, 'demo', 'Demo@123456'], { encoding: 'utf8' }));
  expect(good.message.code).toBe(0);
  expect(good.data.username).toBe('demo');
  expect(good.data.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  const bad = JSON.parse(execFileSync(path.join(repoRoot, 'scripts/curl-login.sh'), [base, 'demo', 'Wrong@123456'], { encoding: 'utf8' }));
  expect(bad.message).toEqual({ code: 1024, message: '用户名或密码错误' });
});

it('the demo account signs in through Chromium', async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.newPage({ baseURL: base, viewport: { width: 1440, height: 900 } });
    await page.goto('/');
    await page.waitForURL(/\/console\/login/);
    await page.getByTestId('login-account').fill('demo');
    await page.getByTestId('login-password').fill('Demo@123456');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/console\/training/);
    await expect(page.getByTestId('header-nickname').textContent()).resolves.toBe('演示用户');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, '08-npm-start-demo.png') });
  } finally {
    await browser.close();
  }
});

it('runs the demo training task to 运行成功 with its log and loss curve (no Slurm needed)', async () => {
  const login = JSON.parse(execFileSync(path.join(repoRoot, 'scripts/curl-login.sh'), [base, 'demo', 'Demo@123456'], { encoding: 'utf8' }));
  const token = login.data.token as string;
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${base}/gateway/training/api/v1${p}`, { ...init, headers: { token, 'content-type': 'application/json' } }).then((r) => r.json());
  const link = /示例训练任务: \S+\/training\/detail\/train\/(\S+)/.exec(output);
  expect(link, output).not.toBeNull();
  const id = link![1];
  await expect.poll(async () => (await api(`/tasks/${id}`)).data.state, { timeout: 60_000, interval: 500 }).toBe('SUCCEEDED');
  const page = (await api('/tasks/action/page', { method: 'POST', body: JSON.stringify({ pageNum: 1, pageSize: 10 }) })).data;
  expect(page.list.map((t: { name: string }) => t.name)).toContain('示例：线性回归训练');
  expect((await api(`/tasks/${id}/log`)).data.content).toContain('训练完成');
  const metrics = (await api(`/tasks/${id}/metrics`)).data.points as { step: number; loss: number }[];
  expect(metrics).toHaveLength(40);
  expect(metrics[39].loss).toBeLessThan(metrics[0].loss / 100);
});
