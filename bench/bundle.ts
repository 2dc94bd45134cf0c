// bench/bundle: the console's first-load JS per route, gzip, as a real browser loads it (budgets: /console/login
// ≤ 200 KiB, /console/training ≤ 350 KiB, issue 26), plus every chunk of the build, and each route's stylesheets (antd's
// static CSS since its zero-runtime mode, docs/performance.md; no budget). Needs a built console (npm run build).
// Run: npm run bundle -w bench   (writes bench/results/bundle.json; CONSOLE_DIST=<dir> measures another build as is)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { startJsonProcess, stop } from './support/proc';

const dist = path.resolve(process.env.CONSOLE_DIST ?? path.join(import.meta.dirname, '../apps/console/dist'));
const gz = (buf: Buffer) => zlib.gzipSync(buf, { level: 9 }).length;
const kib = (n: number) => Math.round((n / 1024) * 10) / 10;

const ROUTES = ['/console/login', '/console/login/register', '/console/training', '/console/message', '/console/user-center', '/console/storage'];

const gw = await startJsonProcess<{ port: number; token: string }>(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'support/gateway.ts')], {
  CONSOLE_DIST: dist,
  BENCH_SEED_DEMO: '1',
});
const base = `http://127.0.0.1:${gw.info.port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// Signed-in routes are measured signed in (else they would measure the layout plus a redirect to login):
// sign in once through the login page, then load every route in a fresh context (empty HTTP cache) that
// carries only the stored session.
const login = await browser.newContext({ baseURL: base });
const loginPage = await login.newPage();
await loginPage.goto('/console/login');
await loginPage.getByTestId('login-account').fill('demo');
await loginPage.getByTestId('login-password').fill('Demo@123456');
await loginPage.getByTestId('login-submit').click();
await loginPage.getByTestId('app-header').waitFor();
const session = await login.storageState();
await login.close();

const routes: Record<string, { files: number; gzipKiB: number; rawKiB: number; css: { files: number; gzipKiB: number; rawKiB: number }; scripts: { file: string; gzipKiB: number }[] }> = {};
for (const route of ROUTES) {
  const signedIn = !route.startsWith('/console/login');
  const context = await browser.newContext(signedIn ? { storageState: session } : {});
  const page = await context.newPage();
  const js = new Map<string, Buffer>();
  const css = new Map<string, Buffer>();
  // Every body is read before the context closes (a chunk loaded late, e.g. by an effect, raced the close).
  const reads: Promise<void>[] = [];
  page.on('response', (res) => {
    const type = res.request().resourceType();
    if ((type === 'script' || type === 'stylesheet') && res.ok())
      reads.push(res.body().then((b) => void (type === 'script' ? js : css).set(res.url(), b), (e) => console.error('LATE', route, res.url(), String(e).slice(0, 80))));
  });
  await page.goto(base + route, { waitUntil: 'networkidle' });
  await Promise.all(reads);
  if (signedIn && !page.url().endsWith(route)) throw new Error(`${route} ended at ${page.url()}`);
  let gzip = 0;
  let raw = 0;
  // Which chunks a route loads, heaviest first: what to look at when a route grows.
  const scripts: { file: string; gzipKiB: number }[] = [];
  for (const [url, body] of js) {
    const size = gz(body);
    gzip += size;
    raw += body.length;
    scripts.push({ file: path.basename(new URL(url).pathname), gzipKiB: kib(size) });
  }
  scripts.sort((a, b) => b.gzipKiB - a.gzipKiB);
  const cssBodies = [...css.values()];
  const cssSizes = { files: css.size, gzipKiB: kib(cssBodies.reduce((n, b) => n + gz(b), 0)), rawKiB: kib(cssBodies.reduce((n, b) => n + b.length, 0)) };
  routes[route] = { files: js.size, gzipKiB: kib(gzip), rawKiB: kib(raw), css: cssSizes, scripts };
  await context.close();
}
await browser.close();
await stop(gw.child);

const chunks = fs
  .readdirSync(path.join(dist, 'assets'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => {
    const buf = fs.readFileSync(path.join(dist, 'assets', f));
    return { file: f, rawKiB: kib(buf.length), gzipKiB: kib(gz(buf)) };
  })
  .sort((a, b) => b.gzipKiB - a.gzipKiB);

const budget = { loginGzipKiB: 200, trainingGzipKiB: 350 };
const pass = routes['/console/login'].gzipKiB <= budget.loginGzipKiB && routes['/console/training'].gzipKiB <= budget.trainingGzipKiB;
const result = { date: new Date().toISOString(), budget, pass, routes, chunks };
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results/bundle.json'), JSON.stringify(result, null, 2));
const summary = Object.fromEntries(Object.entries(routes).map(([r, v]) => [r, { files: v.files, gzipKiB: v.gzipKiB, rawKiB: v.rawKiB, css: v.css }]));
console.log(JSON.stringify({ pass, routes: summary, chunkCount: chunks.length, largest: chunks.slice(0, 8) }, null, 2));
