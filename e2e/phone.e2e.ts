/**
 * Issue 22, item 1: a new user on a 375 px phone. The top menu's submenu closes once a second-level entry is
 * tapped (it used to stay open over the new page), and no console route scrolls sideways
 * (`scrollWidth == clientWidth`; the open submenu stuck out 17 px: 392 on 375). Every route of the console's
 * route table (apps/console/src/app/route-table.ts) is visited, parameters filled with real records where the
 * page has one to show. Screenshots: e2e/artifacts/phone-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAYOUT_ROUTES, PLAIN_ROUTES, REDIRECTS } from '../apps/console/src/app/route-table';
import { submitDemoTask } from '../apps/server/src/modules/training/demo-task';
import { createUser, signIn } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { settled } from './support/page';

const PHONE = { width: 375, height: 800 };

let env: E2eEnv;
let page: Page;
/** Values for the route table's parameters, by route path. */
let params: Record<string, Record<string, string>>;

beforeAll(async () => {
  env = await startE2e();
  const { user, password } = await createUser(env);
  const p = { userId: user.id, sessionId: 'e2e', roles: ['user'] as const };
  const task = await submitDemoTask(env.app.tasks.service, env.app.ctx.clusterAccounts, env.app.ctx.storage, p);
  const dataset = await env.app.assets.datasets.create(p, { name: '手机上的数据集', description: '窄屏检查', tags: ['入门'], license: '' });
  const model = await env.app.assets.models.create(p, { name: '手机上的模型', description: '窄屏检查', tags: [], license: '' });
  params = {
    '/training/task/:type': { type: 'train' },
    '/training/detail/:type/:id': { type: 'train', id: task!.id },
    '/image/detail/:id': { id: 'missing' },
    '/workorder/detail/:id': { id: 'missing' },
    '/dataset/detail/:id': { id: dataset.id },
    '/model/detail/:id': { id: model.id },
    '/team/detail/:id': { id: 'missing' },
    '/slurm-template/form/:id': { id: 'missing' },
    '/slurm-task/task/:type': { type: 'template' },
    '/slurm-task/detail/:type/:id': { type: 'template', id: 'missing' },
    '/public-data/detail/:type/:id': { type: 'dataset', id: dataset.id },
    // A normal user: 运营管理's pages show 没有权限 (their operator views are in admin.e2e.ts at 375 px).
    '/admin/users/:id': { id: 'missing' },
  };
  const context = await env.browser.newContext({ viewport: PHONE, locale: 'zh-CN', baseURL: env.baseUrl, hasTouch: true, isMobile: true });
  page = await context.newPage();
  await signIn(page, user.username, password);
});
afterAll(() => env?.close());

/** A route of the table with its parameters filled in. */
function fill(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => {
    const value = params[path]?.[name];
    if (!value) throw new Error(`no value for :${name} of ${path}`);
    return encodeURIComponent(value);
  });
}

/** What sticks out of the page's width: document sizes and the element reaching furthest right. */
async function overflow(p: Page) {
  return p.evaluate(() => {
    let widest = '';
    let right = 0;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > right) {
        right = r.right;
        widest = `${el.tagName.toLowerCase()}.${String(el.className).split(' ').slice(0, 2).join('.')} [${el.getAttribute('data-testid') ?? ''}] right=${Math.round(r.right)}`;
      }
    }
    const d = document.documentElement;
    return { scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, widest };
  });
}

/** What of the menu is still drawn over the page: open popups and an open menu drawer. */
const openMenus = (p: Page) => p.locator('.ant-menu-submenu-popup:visible, .ant-drawer-open').count();

/** Taps through the top menu to a second-level entry, the way a thumb does: the menu, the group, the entry. */
async function tapMenu(p: Page, group: string, entryKey: string) {
  await p.getByTestId('top-menu-toggle').tap();
  const drawer = p.getByTestId('top-menu-drawer');
  const entry = drawer.getByTestId(`menu-${entryKey}`);
  // The current page's group is already unfolded; another one is tapped open.
  if (!(await entry.isVisible())) await drawer.locator('.ant-menu-submenu-title', { hasText: group }).tap();
  await entry.waitFor();
  await settled(p).catch(() => undefined);
  await env.shot(p, `phone-menu-open-${entryKey}`);
  await entry.tap();
}

describe('a 375 px phone', () => {
  it('the top menu closes after a second-level entry is tapped, and the page does not scroll sideways', async () => {
    await page.goto('/console/storage');
    await page.getByTestId('storage-table').waitFor();
    for (const [group, key, path, ready] of [
      ['AI计算', 'training', '/console/training', 'training-create'],
      ['公共服务', 'keypair', '/console/keypair', 'kp-create'],
    ] as const) {
      await tapMenu(page, group, key);
      await page.waitForURL(`**${path}`);
      await page.getByTestId(ready).first().waitFor();
      await settled(page).catch(() => undefined);
      await expect.poll(() => openMenus(page), { timeout: 3_000 }).toBe(0);
      const o = await overflow(page);
      expect(o.scrollWidth, `${path}: ${o.widest}`).toBe(o.clientWidth);
      await env.shot(page, `phone-menu-closed-${key}`);
    }
  });

  it('on a tablet (horizontal menu, touch) a tapped entry closes its popup', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1024, height: 768 }, locale: 'zh-CN', baseURL: env.baseUrl, hasTouch: true, isMobile: true });
    await context.addCookies(await page.context().cookies());
    const tablet = await context.newPage();
    await tablet.goto('/console/user-agreement');
    await tablet.evaluate((state) => Object.entries(state).forEach(([k, v]) => localStorage.setItem(k, v)), await page.evaluate(() => ({ ...localStorage })));
    await tablet.goto('/console/storage');
    await tablet.getByTestId('storage-table').waitFor();
    await tablet.getByTestId('top-menu').locator('.ant-menu-overflow-item:not([aria-hidden="true"]) > .ant-menu-submenu-title', { hasText: '公共服务' }).tap();
    await tablet.locator('.ant-menu-submenu-popup:visible [data-testid="menu-keypair"]').tap();
    await tablet.waitForURL('**/console/keypair');
    await tablet.getByTestId('kp-create').first().waitFor();
    await expect.poll(() => openMenus(tablet), { timeout: 3_000 }).toBe(0);
    await settled(tablet).catch(() => undefined);
    await env.shot(tablet, 'phone-menu-closed-keypair-1024');
    await context.close();
  });

  it('no route of the console scrolls sideways', async () => {
    const paths = [...LAYOUT_ROUTES, ...PLAIN_ROUTES].map((r) => fill(r.path)).concat(REDIRECTS.map((r) => r.path));
    expect(paths.length).toBeGreaterThan(40);
    const wide: string[] = [];
    for (const path of paths) {
      await page.goto(`/console${path}`);
      await page.waitForLoadState('networkidle');
      await settled(page).catch(() => undefined);
      // Layout that is still arriving (charts, lazy lists) counts once it has settled.
      let o = await overflow(page);
      for (let i = 0; i < 10 && o.scrollWidth !== o.clientWidth; i++) {
        await page.waitForTimeout(300);
        o = await overflow(page);
      }
      if (o.scrollWidth !== o.clientWidth) wide.push(`${path}: scrollWidth ${o.scrollWidth} ≠ clientWidth ${o.clientWidth}; widest ${o.widest}`);
    }
    expect(wide).toEqual([]);
  });
});
