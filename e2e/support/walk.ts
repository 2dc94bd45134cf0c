/**
 * The walk of every route (e2e/walk-*.e2e.ts, split in three files so the e2e tier runs them side by side,
 * issue 26; each file starts its own gateway with the same records through `walkSuite`).
 *
 * Issue 22, acceptance criterion 2: a walk through EVERY route of the console's route table
 * (apps/console/src/app/route-table.ts — a new route is walked without touching this file) at 375 px (a
 * phone: touch, mobile viewport) and 1440 px, as a signed-in user — and, for the route groups whose pages
 * show operators more (a feature that reads the `operator` role), as an operator too; the plain pages also
 * signed out. Each visit fails on:
 *
 * - sideways scroll: the page is wider than the window (support/page.ts `noHorizontalScroll`);
 * - English in the UI: visible text and aria-label/title/placeholder/alt outside code and identifiers
 *   (support/english.ts);
 * - raw ids where a name exists: (a) an id of the platform's records as it is generated (20 characters of
 *   base 36 with digits and letters, apps/server/src/lib/id.ts — a task, dataset, user, order…, each of which
 *   has a name or number to show instead), and (b) the id of anything the configuration names (a center, a
 *   card type, a product, a public image: every object with `id` and `name` in config/centers.yaml) or the
 *   walk created (a Slurm template, a work order, a task, a dataset, a model, the user), found as a whole word
 *   in the same visible texts. Code, terminals and text areas hold the user's own data and are not read;
 * - console errors: `console.error` messages and uncaught page errors.
 *
 * Routes with `:params` get real records the walk creates (`PARAMS`); where none can exist here the value
 * and the reason are written beside it. Findings that need a bigger change than this walk are exempted in
 * `EXEMPT` with their reason (and recorded in docs/plan/22.md). One Chromium; one page per role and width,
 * reused from route to route and test to test: its first route is loaded, the others reached inside the app
 * (support/visit.ts). Screenshots of failures: e2e/artifacts/failed/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CONSOLE_BASE_PATH, DATASET_BASE, SLURM_BASE, TEAM_BASE, WORKORDER_BASE } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { LAYOUT_ROUTES, PLAIN_ROUTES, REDIRECTS, type AppRoute, type PageGroup } from '../../apps/console/src/app/route-table';
import { seedPublicAssets } from '../../apps/server/src/modules/asset/public-seed';
import { submitDemoTask } from '../../apps/server/src/modules/training/demo-task';
import { createOperator, createUser, sessionState, signIn } from './auth';
import { describeLeaks, englishLeaks } from './english';
import { CONTEXT_DEFAULTS, startE2e, type E2eEnv } from './env';
import { noHorizontalScroll, settled, watchRequests } from './page';
import { rawIds } from './raw-ids';
import { openOverlays, visit } from './visit';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const WIDTHS = [
  { name: 'phone', viewport: { width: 375, height: 800 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false },
] as const;

/**
 * Words the pages show as data, not UI: the demo task's folder and the metric its script writes, and the
 * formula in a seeded public dataset's description (`y = sin(x) + 噪声`).
 */
const DATA_WORDS = ['demo', 'loss', 'sin'];
/** The same, by route: the empty template form's example parameter, an identifier the script uses as `{{steps}}`. */
const ALLOW: Record<string, string[]> = {
  '/slurm-template/form': ['steps'],
  // 运营管理's user list shows usernames as they were chosen: the seeded platform account is called `platform`.
  '/admin/users': ['platform'],
};

/** Findings left for a bigger change, by check and route (`*`: every route): the reason, in docs/plan/22.md too. */
const EXEMPT: Record<'scroll' | 'english' | 'ids' | 'errors', Record<string, string>> = {
  scroll: {},
  english: {},
  ids: {},
  errors: {},
};

let env: E2eEnv;
/** Values for the route table's parameters, by route path. */
let PARAMS: Record<string, Record<string, string>>;
/** id → the name the UI should show instead (config and the records of the walk). */
const named = new Map<string, string>();
let user: { username: string; password: string };
let operator: { username: string; password: string };

/** Every object with a string `id` and `name` in a parsed YAML document. */
function namedIn(node: unknown, out: Map<string, string>) {
  if (Array.isArray(node)) for (const n of node) namedIn(n, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.id === 'string' && typeof o.name === 'string') out.set(o.id, o.name);
    for (const v of Object.values(o)) namedIn(v, out);
  }
}

/** A call to the gateway as `token`, answering `data` (fails on a refusal). */
async function api<T = any>(token: string, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T> {
  const res = await env.app.inject({ method, url, payload: payload as object, headers: { token } });
  const body = JSON.parse(res.body) as { message: { code: number; message: string }; data: T };
  if (body.message.code !== 0) throw new Error(`${method} ${url}: ${body.message.code} ${body.message.message}`);
  return body.data;
}

/** The gateway, the accounts and the records the walk looks at (each walk file starts its own). */
async function setUp() {
  walkers.clear(); // files of a worker share this module (vitest.config.ts `isolate`)
  env = await startE2e();
  const u = await createUser(env);
  const op = await createOperator(env);
  user = { username: u.user.username, password: u.password };
  operator = { username: op.user.username, password: op.password };
  const p = { userId: u.user.id, sessionId: 'e2e', roles: ['user'] as const };

  // The public hall as `npm start` seeds it (owned by the platform's account).
  const platform = await env.app.users.createAccount({ username: 'platform', nickname: '算力平台', password: 'x-Unused-1!' });
  await seedPublicAssets({
    dir: path.join(repoRoot, 'config/public-assets'),
    centers: env.app.ctx.centers,
    clusterAccounts: env.app.ctx.clusterAccounts,
    storage: env.app.ctx.storage,
    services: { dataset: env.app.assets.datasets, model: env.app.assets.models },
    platformUser: async () => platform!.id,
  });
  const training = await submitDemoTask(env.app.tasks.service, env.app.ctx.clusterAccounts, env.app.ctx.storage, p);
  const dataset = await env.app.assets.datasets.create(p, { name: '巡检数据集', description: '逐页检查用的数据集', tags: ['入门'], license: '' });
  const model = await env.app.assets.models.create(p, { name: '巡检模型', description: '逐页检查用的模型', tags: [], license: '' });
  const template = await api(u.token, 'POST', `${SLURM_BASE}/templates`, {
    name: '巡检模板',
    description: '逐页检查用的模板',
    category: '测试',
    script: '#!/bin/bash\necho 你好\n',
    params: [],
    defaults: { cardNum: 0, nodeNum: 1, maxDurationMinutes: 5 },
  });
  const slurmTask = await api(u.token, 'POST', `${SLURM_BASE}/tasks`, {
    name: '巡检作业',
    type: 'custom',
    script: '#!/bin/bash\necho 巡检\n',
    subCenterId: 'sz-a100',
    cardTypeId: 'cpu-std',
    cardNum: 1,
    nodeNum: 1,
    workDir: '/',
    env: [],
    maxDurationMinutes: 5,
  });
  const order = await api(u.token, 'POST', `${WORKORDER_BASE}/workorders`, { type: 'task', title: '作业无法启动', description: '提交后一直排队，请帮忙查看。' });
  const team = await api(u.token, 'POST', `${TEAM_BASE}/teams`, { name: '巡检团队', description: '逐页检查用的团队' });
  const publicSets = await api<{ list: { id: string; name: string }[] }>(u.token, 'POST', `${DATASET_BASE}/datasets/action/page`, { scope: 'public', pageNum: 1, pageSize: 10 });
  const templates = await api<{ list: { id: string; name: string }[] }>(u.token, 'POST', `${SLURM_BASE}/templates/action/page`, { pageNum: 1, pageSize: 100 });
  await env.app.ctx.notify(u.user.id, { type: 'task', title: '训练任务「巡检」已完成', content: '请查看训练日志。' });

  namedIn(YAML.parse(fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8')), named);
  for (const t of templates.list) named.set(t.id, t.name);
  for (const [id, name] of [
    [u.user.id, u.user.username],
    [op.user.id, op.user.username],
    [training!.id, training!.name],
    [dataset.id, dataset.name],
    [model.id, model.name],
    [template.id, template.name],
    [slurmTask.id, slurmTask.name],
    [order.id, order.title],
    [team.id, team.name],
  ] as const)
    named.set(id, name);

  expect(publicSets.list.length).toBeGreaterThan(0);
  PARAMS = {
    '/training/task/:type': { type: 'train' },
    '/training/detail/:type/:id': { type: 'train', id: training!.id },
    // A private image needs the platform's registry, which the embedded default has none of (REGISTRY_URL):
    // the page of an id that does not exist is what a user reaches here.
    '/image/detail/:id': { id: 'no-such-image' },
    '/workorder/detail/:id': { id: order.id },
    '/dataset/detail/:id': { id: dataset.id },
    '/model/detail/:id': { id: model.id },
    '/team/detail/:id': { id: team.id },
    '/slurm-template/form/:id': { id: template.id },
    '/slurm-task/task/:type': { type: 'template' },
    '/slurm-task/detail/:type/:id': { type: 'custom', id: slurmTask.id },
    '/public-data/detail/:type/:id': { type: 'dataset', id: publicSets.list[0].id },
    // 运营管理: the walking user's own record (a normal user sees 没有权限, the operator the detail).
    '/admin/users/:id': { id: u.user.id },
  };
}

/** A route of the table with its parameters filled in (a new route with parameters must get values above). */
function fill(route: string): string {
  return route.replace(/:(\w+)/g, (_m, name: string) => {
    const value = PARAMS[route]?.[name];
    if (!value) throw new Error(`e2e/support/walk.ts: no value for :${name} of ${route} — add one to PARAMS (a record the walk creates, or a reason)`);
    return encodeURIComponent(value);
  });
}

/** The route groups whose pages show operators more than users: their feature reads the `operator` role. */
function operatorGroups(): Set<PageGroup> {
  const groups = new Set<PageGroup>();
  const all = new Set([...LAYOUT_ROUTES, ...PLAIN_ROUTES].map((r) => r.group));
  // A group's feature folder, as app/routes.tsx imports it (a folder may hold several groups: training's lists,
  // form and detail load as separate chunks).
  const routesSource = fs.readFileSync(path.join(repoRoot, 'apps/console/src/app/routes.tsx'), 'utf8');
  const folders = new Map([...routesSource.matchAll(/^\s*(\w+): \(\) => import\('\.\.\/features\/([\w-]+)\//gm)].map((m) => [m[1], m[2]]));
  for (const group of all) {
    const folder = folders.get(group);
    if (!folder) throw new Error(`route group ${group}: app/routes.tsx imports no feature folder for it`);
    const dir = path.join(repoRoot, 'apps/console/src/features', folder);
    if (!fs.existsSync(dir)) throw new Error(`route group ${group}: no feature folder ${dir}`);
    const sources = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.includes('test/'));
    if (sources.some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes("'operator'"))) groups.add(group);
  }
  // 运营管理 exists only for operators (the group's pages check the role through shared code).
  groups.add('admin');
  return groups;
}

interface Walker {
  label: string;
  context: BrowserContext;
  page: Page;
  /** The route being looked at (console events are filed under it). */
  at: string;
  /** The next visit loads the page (`goto`): the walker's first, and any after a visit that left an overlay open. */
  load: boolean;
}

const findings = { scroll: [] as string[], english: [] as string[], ids: [] as string[], errors: [] as string[] };
const walkers = new Map<WalkName, Walker>(); // each walk's page, test to test (closed with the file's browser)
const exempt = (check: keyof typeof EXEMPT, route: string) => EXEMPT[check][route] ?? EXEMPT[check]['*'];

/**
 * A page at `width`, signed in as `account` if given. `form: true` signs in through the login page (the probe
 * does, so the form's own console errors are checked once per run); the walkers start from a session the
 * gateway issued (support/auth.ts `sessionState`): the form is not what they test, and it cost a page load and
 * a redirect per walker.
 */
async function walker(label: string, width: (typeof WIDTHS)[number], account?: { username: string; password: string }, form = false): Promise<Walker> {
  const storageState = account && !form ? await sessionState(env, account.username, account.password) : undefined;
  const context = await env.browser.newContext({ ...CONTEXT_DEFAULTS, viewport: width.viewport, isMobile: width.isMobile, hasTouch: width.hasTouch, baseURL: env.baseUrl, storageState });
  const page = await context.newPage();
  watchRequests(page);
  const w: Walker = { label, context, page, at: '(sign-in)', load: true };
  page.on('console', (m) => {
    if (m.type() === 'error' && !exempt('errors', w.at)) findings.errors.push(`${w.label} ${w.at}: console.error: ${m.text().slice(0, 300)}`);
  });
  page.on('pageerror', (e) => {
    if (!exempt('errors', w.at)) findings.errors.push(`${w.label} ${w.at}: uncaught ${e.name}: ${e.message.slice(0, 300)}`);
  });
  if (account && form) await signIn(page, account.username, account.password);
  return w;
}

/** Opens a route and runs every check on what it shows once it has settled. */
async function look(w: Walker, route: string) {
  w.at = route;
  const { page } = w;
  // The walker's first route is loaded (a deep link, as every journey's `goto` and reload.e2e.ts load theirs),
  // the others reached inside the app (support/visit.ts): each costs its chunk and calls, not a page load.
  await visit(page, route, w.load);
  w.load = false;
  // A redirect is checked for where it lands, then the page it lands on as any other.
  const redirect = REDIRECTS.find((r) => r.path === route);
  if (redirect) expect(new URL(page.url()).pathname, `${w.label} ${route} forwards`).toBe(`${CONSOLE_BASE_PATH}${redirect.to}`);
  await settled(page).catch(() => undefined);
  const where = `${w.label} ${route}`;
  if (!exempt('scroll', route)) await noHorizontalScroll(page).catch((e: Error) => findings.scroll.push(`${where}: ${e.message}`));
  if (!exempt('english', route)) findings.english.push(...describeLeaks(where, await englishLeaks(page, [...DATA_WORDS, ...(ALLOW[route] ?? [])])));
  if (!exempt('ids', route)) findings.ids.push(...(await rawIds(page, named)).map((f) => `${where}: ${f}`));
  // What this page left open was checked as its own; carried to the next route it would be read as that page's
  // and cover it, so the next route is loaded instead — as every route was before the walk stayed in the app.
  const left = await openOverlays(page);
  if (left.length) {
    console.log(`walk ${where}: left ${[...new Set(left)].join(', ')} open; the next route is loaded`);
    w.load = true;
  }
}

/** Who walks which routes: the signed-in user every route, the operator its groups, the signed-out the plain pages. */
const ROLES = {
  user: {
    label: '用户',
    count: () => REDIRECTS.length + LAYOUT_ROUTES.length + PLAIN_ROUTES.length,
    routes: () => [...REDIRECTS.map((r) => r.path), ...[...LAYOUT_ROUTES, ...PLAIN_ROUTES].map((r: AppRoute) => fill(r.path))],
  },
  operator: {
    label: '运营',
    count: () => LAYOUT_ROUTES.filter((r) => operatorGroups().has(r.group)).length,
    routes: () => LAYOUT_ROUTES.filter((r) => operatorGroups().has(r.group)).map((r) => fill(r.path)),
  },
  signedOut: { label: '未登录', count: () => PLAIN_ROUTES.length, routes: () => PLAIN_ROUTES.map((r) => r.path) },
} as const;
/** Routes one test visits (`walkSuite`). */
const VISITS_PER_TEST = 20;
type Role = keyof typeof ROLES;
/** Every walk there is, by name (`user@375`…): the walk files together must name each (checked by the probe). */
export const WALKS = Object.fromEntries(
  (Object.keys(ROLES) as Role[]).flatMap((role) => WIDTHS.map((width) => [`${role}@${width.viewport.width}`, { role, width }] as const)),
) as Record<`${Role}@${375 | 1440}`, { role: Role; width: (typeof WIDTHS)[number] }>;
export type WalkName = keyof typeof WALKS;

const clear = () => {
  for (const list of Object.values(findings)) list.length = 0;
};

/**
 * A walk file: its own gateway and records (`setUp`), the detector probe if `probe`, then the walks named —
 * each in tests of at most VISITS_PER_TEST routes, on one page of that role and width per walk, reused from
 * route to route and test to test.
 */
export function walkSuite(opts: { probe?: boolean; walks: WalkName[] }) {
  beforeAll(setUp);
  afterAll(() => env?.close());

  describe('every route of the console at 375 and 1440 px', () => {
    if (opts.probe) {
      it('walks enough routes, each walk file names its walks, and each detector catches what it is for', async () => {
        // What the walk covers, so a broken derivation cannot pass by walking nothing.
        expect(ROLES.user.routes().length).toBeGreaterThan(45);
        expect([...operatorGroups()].sort()).toEqual(expect.arrayContaining(['order', 'workorder']));
        // Split in files, the walk still walks every role at every width: each walk is named by a walk file.
        const e2eDir = path.join(repoRoot, 'e2e');
        const files = fs.readdirSync(e2eDir).filter((f) => /^walk.*\.e2e\.ts$/.test(f));
        const walked = files.flatMap((f) => [...fs.readFileSync(path.join(e2eDir, f), 'utf8').matchAll(/'(\w+@\d+)'/g)].map((m) => m[1]));
        expect([...new Set(walked)].sort()).toEqual(Object.keys(WALKS).sort());

        // The detectors themselves, once, on a page that has the UI loaded: each must catch what it is for. The
        // probe signs in through the form, so the sign-in page's own errors are caught once per run too.
        const probe = await walker('探针', WIDTHS[1], user, true);
        await look(probe, '/storage');
        expect(findings).toEqual({ scroll: [], english: [], ids: [], errors: [] });
        // An id as the server generates them (of nothing the walk knows) and a center's id.
        const [anId, centerId] = ['0mwz9qhd000az1cdla1x', 'sz-a100'];
        await probe.page.evaluate(
          ([a, b]) => {
            const el = document.createElement('div');
            el.textContent = `任务 ${a}，分中心 ${b}，Upload failed`;
            el.style.width = '3000px';
            document.body.append(el);
            console.error('探针');
          },
          [anId, centerId],
        );
        const where = `${probe.label} /storage`;
        await noHorizontalScroll(probe.page).catch((e: Error) => findings.scroll.push(`${where}: ${e.message}`));
        findings.english.push(...describeLeaks(where, await englishLeaks(probe.page, DATA_WORDS)));
        findings.ids.push(...(await rawIds(probe.page, named)));
        expect(findings.scroll).toHaveLength(1);
        expect(findings.english.join('\n')).toMatch(/"Upload".*\n.*"failed"/);
        expect(findings.ids).toEqual([expect.stringContaining(`id "${anId}"`), expect.stringContaining(`"sz-a100" (name: 深圳算力分中心)`)]);
        expect(findings.errors).toEqual([expect.stringContaining('console.error: 探针')]);
        await probe.context.close();
        clear();
      });
    }

    for (const name of opts.walks) {
      const { role, width } = WALKS[name];
      // A test per VISITS_PER_TEST routes (on the walk's page): each stays within the tier's time
      // limit on a loaded machine (one test of ~60 visits took over 180 s at load ~20), and a route added to the
      // table adds a test when it needs one.
      const count = ROLES[role].count();
      for (let from = 0; from < count; from += VISITS_PER_TEST) {
        const to = Math.min(count, from + VISITS_PER_TEST);
        it(`${ROLES[role].label} at ${width.viewport.width} px, routes ${from + 1}–${to} of ${count}: scrolls no page sideways, speaks Chinese, shows names rather than ids, and logs no error`, async () => {
          const started = Date.now();
          const all = ROLES[role].routes();
          expect(all).toHaveLength(count);
          const routes = all.slice(from, to);
          const account = role === 'user' ? user : role === 'operator' ? operator : undefined;
          // One page per walk (issue 26): a new context's first console page costs Chromium ~4× a later `goto`.
          const w = walkers.get(name) ?? (await walker(`${ROLES[role].label}@${width.viewport.width}`, width, account));
          walkers.set(name, w);
          for (const route of routes) await look(w, route);
          const seconds = (Date.now() - started) / 1000;
          console.log(`walk ${name} ${from + 1}–${to}: ${routes.length} visits in ${seconds.toFixed(1)} s (${(seconds / routes.length).toFixed(2)} s each)`);
          const found = structuredClone(findings);
          clear();
          expect(found).toEqual({ scroll: [], english: [], ids: [], errors: [] });
        });
      }
    }
  });
}
