// bench/pageload: CPU seconds Chromium spends on one cold load of a console page (a new browser context: empty
// cache, a new renderer), the cost the e2e tier pays hundreds of times and a visitor's first paint (issue 26).
// CPU, not time: the machines that run it are shared, so a wall-clock figure says more about the neighbours.
//
//   npm run pageload -w bench                                   # apps/console/dist
//   npm run pageload -w bench -- before=/tmp/dist-a after=apps/console/dist   # A/B, alternated in one run
//
// Each named build gets its own gateway (embedded default, demo account); one Chromium (the e2e tier's headless
// shell and flags, its contexts with the journeys' reduced motion) loads every route of every build in turn,
// ROUNDS times. Same-run baseline: a new context loading a one-line static page (a context and a renderer, no
// console JS), so the console's own share is the difference. CPU is utime+stime of the browser's
// whole process tree (/proc), read before the context opens and after the page has settled, before it closes;
// with it the page's own main-thread figures from Chromium (CDP Performance.getMetrics: TaskDuration, of it
// ScriptDuration and RecalcStyleDuration), thread time of one renderer, less diluted by the browser's fixed cost
// per context and by the neighbours' load. Writes bench/results/pageload.json.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startJsonProcess, stop } from './support/proc';

// The e2e tier's browser, flags and journey context (e2e/support/chromium-server.ts, env.ts CONTEXT_DEFAULTS; bench is
// its own TypeScript project and cannot import e2e's files).
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CONTEXT_DEFAULTS = { locale: 'zh-CN', reducedMotion: 'reduce' } as const;
const ROUNDS = Number(process.env.PAGELOAD_ROUNDS ?? 5);
const TICK = 100; // getconf CLK_TCK on Linux

/** The routes measured and what says the page is there. `blank` is the baseline: no console JS. */
const ROUTES = [
  { route: 'blank', path: 'data:text/html;charset=utf-8,<title>空白</title><p>算力调度服务平台</p>', ready: undefined, signedIn: false },
  { route: '/console/login', path: '/console/login', ready: 'login-submit', signedIn: false },
  { route: '/console/training', path: '/console/training', ready: 'app-header', signedIn: true },
] as const;

const builds = (process.argv.slice(2).length ? process.argv.slice(2) : ['dist=apps/console/dist']).map((arg) => {
  const [name, dir] = arg.includes('=') ? arg.split('=', 2) : [path.basename(arg), arg];
  return { name, dist: path.resolve(process.cwd().endsWith('bench') ? '..' : '.', dir) };
});
for (const b of builds) if (!fs.existsSync(path.join(b.dist, 'index.html'))) throw new Error(`${b.dist}: not a built console (npm run build)`);

/** utime+stime (ticks) of `root` and every process below it, by pid and start time (a pid may be reused). */
function treeTicks(root: number): Map<string, number> {
  const children = new Map<number, number[]>();
  const procs = new Map<number, { key: string; ticks: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const s = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(rest[1]);
      procs.set(pid, { key: `${pid}:${rest[19]}`, ticks: Number(rest[11]) + Number(rest[12]) });
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // ended while read
    }
  }
  const out = new Map<string, number>();
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    const p = procs.get(pid);
    if (p) out.set(p.key, p.ticks);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * CPU-s the tree used between two readings: what each process still alive used since the first (a process
 * started since counts whole). A process that ended in between is left out (the renderer of the previous
 * context, closed just before): its last moments are lost, the same for every route and build.
 */
function cpuSince(before: Map<string, number>, after: Map<string, number>): number {
  let ticks = 0;
  for (const [key, t] of after) ticks += t - (before.get(key) ?? 0);
  return ticks / TICK;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round3 = (n: number) => Math.round(n * 1000) / 1000;

const gateways = await Promise.all(
  builds.map(async (b) => {
    const gw = await startJsonProcess<{ port: number }>(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'support/gateway.ts')], {
      CONSOLE_DIST: b.dist,
      BENCH_SEED_DEMO: '1',
    });
    return { ...b, child: gw.child, base: `http://127.0.0.1:${gw.info.port}` };
  }),
);
// Started as the e2e tier starts its one Chromium (a server its files connect to), which also names its pid.
const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const browserPid = server.process().pid;
const browser: Browser = await chromium.connect(server.wsEndpoint());
if (!browserPid) throw new Error('no browser process');

// The demo account's session per gateway, signed in once through its login page (as bench/bundle).
const sessions = new Map<string, Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>>();
for (const gw of gateways) {
  const context = await browser.newContext({ ...CONTEXT_DEFAULTS, baseURL: gw.base });
  const page = await context.newPage();
  await page.goto('/console/login');
  await page.getByTestId('login-account').fill('demo');
  await page.getByTestId('login-password').fill('Demo@123456');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('app-header').waitFor();
  sessions.set(gw.name, await context.storageState());
  await context.close();
}

const loadAvg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = loadAvg();
const samples: Record<string, Record<string, number[]>> = Object.fromEntries(gateways.map((g) => [g.name, Object.fromEntries(ROUTES.map((r) => [r.route, []]))]));
const METRICS = ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration'] as const;
type Metric = (typeof METRICS)[number];
const metrics: Record<string, Record<string, Record<Metric, number[]>>> = Object.fromEntries(
  gateways.map((g) => [g.name, Object.fromEntries(ROUTES.map((r) => [r.route, Object.fromEntries(METRICS.map((m) => [m, [] as number[]])) as Record<Metric, number[]>]))]),
);
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which build goes first, so neither always follows the other's leftovers.
  const order = round % 2 ? [...gateways].reverse() : gateways;
  for (const gw of order) {
    for (const r of ROUTES) {
      const before = treeTicks(browserPid);
      const context = await browser.newContext({ ...CONTEXT_DEFAULTS, viewport: { width: 1440, height: 900 }, baseURL: gw.base, storageState: r.signedIn ? sessions.get(gw.name) : undefined });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.goto(r.path, { waitUntil: 'networkidle' });
      if (r.ready) await page.getByTestId(r.ready).waitFor();
      // What the page still does right after (effects, a late chunk, the socket's connect) belongs to the load.
      await page.waitForTimeout(500);
      if (r.signedIn && !page.url().endsWith(r.path)) throw new Error(`${r.path} ended at ${page.url()}`);
      samples[gw.name][r.route].push(cpuSince(before, treeTicks(browserPid)));
      const got = new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
      for (const m of METRICS) metrics[gw.name][r.route][m].push(round3(got.get(m) ?? NaN));
      await context.close();
    }
  }
}
const loadAfter = loadAvg();
await browser.close();
await server.close();
await Promise.all(gateways.map((g) => stop(g.child)));

const results = Object.fromEntries(
  gateways.map((g) => {
    const blank = median(samples[g.name].blank);
    return [
      g.name,
      Object.fromEntries(
        ROUTES.map((r) => {
          const m = median(samples[g.name][r.route]);
          const main = Object.fromEntries(METRICS.map((k) => [k, round3(median(metrics[g.name][r.route][k]))]));
          return [r.route, { medianCpuS: round3(m), overBlankCpuS: round3(m - blank), samples: samples[g.name][r.route], mainThreadS: main }];
        }),
      ),
    ];
  }),
);
const result = { date: new Date().toISOString(), rounds: ROUNDS, load: { before: loadBefore, after: loadAfter }, builds: gateways.map((g) => ({ name: g.name, dist: g.dist })), results };
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results/pageload.json'), JSON.stringify(result, null, 2));
for (const g of gateways)
  for (const r of ROUTES) {
    const x = results[g.name][r.route];
    const main = METRICS.map((k) => `${k.replace('Duration', '')} ${x.mainThreadS[k].toFixed(2)}`).join(' ');
    console.log(`${g.name.padEnd(8)} ${r.route.padEnd(20)} tree ${x.medianCpuS.toFixed(2)} CPU-s (over blank ${x.overBlankCpuS.toFixed(2)}) [${x.samples.join(' ')}]  main thread s: ${main}`);
  }
console.log(`load ${loadBefore} → ${loadAfter}`);
