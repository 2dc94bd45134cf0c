// The user guide from the console's header (issue 8 items 11, 12): 帮助文档 and 剩余算力 open the guide the
// gateway serves, in a new window, readable on a phone, with every image and the stylesheet loading.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGuide } from '../scripts/build-guide.mjs';
import { createUser, signedInPage } from './support/auth';
import { CONTEXT_DEFAULTS, startE2e, type E2eEnv } from './support/env';

let env: E2eEnv;
let guideDist: string;
beforeAll(async () => {
  guideDist = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-guide-'));
  buildGuide({ outDir: guideDist });
  env = await startE2e({ guideDist });
});
afterAll(async () => {
  await env?.close();
  if (guideDist) fs.rmSync(guideDist, { recursive: true, force: true });
});

/** Failed requests and script errors of a page, to assert a guide page loads whole and clean. */
function watch(page: Page) {
  const problems: string[] = [];
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return problems;
}

/** Every <img> (lazy ones made eager) loads with real pixels. */
const imagesLoaded = (page: Page) =>
  page.evaluate(async () => {
    const images = Array.from(document.images);
    for (const img of images) img.loading = 'eager';
    await Promise.all(images.map((img) => img.decode().catch(() => undefined)));
    return images.every((img) => img.complete && img.naturalWidth > 0);
  });

describe('user guide from the header', () => {
  it('帮助文档 opens the guide in a new window; 算力说明 opens its compute-power page, whose 购买算力 opens the console\'s; 剩余算力 opens 费用明细', async () => {
    const { password, user } = await createUser(env);
    const { page, context } = await signedInPage(env, user.username, password);
    // Where the sign-in lands: the header's menus are the journey's start.
    await page.goto('/console/training');
    await page.getByTestId('app-header').waitFor();

    await page.getByTestId('header-avatar').click();
    const [help] = await Promise.all([context.waitForEvent('page'), page.getByTestId('user-menu-help').click()]);
    const helpProblems = watch(help);
    await help.waitForLoadState('load');
    expect(new URL(help.url()).pathname).toBe('/guide/');
    await expect(help.locator('h1').textContent()).resolves.toBe('用户指南');
    await expect(help.title()).resolves.toBe('算力调度服务平台 用户指南');
    // The stylesheet applied (the navigation is a styled list, not bullets).
    await expect(help.locator('.toc ul').evaluate((el) => getComputedStyle(el).listStyleType)).resolves.toBe('none');
    // Through the navigation to the storage page: its screenshots load.
    await help.locator('.toc').getByText('存储管理').click();
    await help.waitForURL(/\/guide\/storage\.html$/);
    await expect(help.locator('h1').textContent()).resolves.toBe('存储管理');
    await expect.poll(() => help.locator('img').count()).toBeGreaterThanOrEqual(4);
    await expect.poll(() => imagesLoaded(help), { timeout: 10_000 }).toBe(true);
    await env.shot(help, 'guide-01-storage');
    expect(helpProblems).toEqual([]);

    // 剩余算力's tooltip: 算力说明 opens the guide's compute-power page in a new window.
    await page.getByTestId('header-comp-power').hover();
    const tip = page.getByTestId('header-comp-power-breakdown');
    await tip.waitFor();
    const [power] = await Promise.all([context.waitForEvent('page'), tip.getByText('算力说明').click()]);
    await power.waitForLoadState('load');
    expect(new URL(power.url()).pathname).toBe('/guide/compute-power.html');
    await expect(power.locator('h1').textContent()).resolves.toBe('算力');
    await expect(power.getByText('1 张加速卡运行 1 小时 = 1 卡时').count()).resolves.toBe(1);
    // The console page itself stayed where it was.
    expect(new URL(page.url()).pathname).toBe('/console/training');
    // The guide's 购买算力 opens the console's page (not /pay outside /console, which is JSON 1205).
    await power.getByRole('link', { name: '购买算力' }).first().click();
    await power.waitForURL(/\/console\/pay$/);
    await power.getByTestId('pay-product').first().waitFor();
    // 剩余算力 itself opens 费用明细 in the console.
    await page.getByTestId('header-comp-power').click();
    await page.waitForURL(/\/console\/expense$/);
    await page.getByTestId('expense-balance').waitFor();
    await context.close();
  });

  it('reads on a 375 px phone without horizontal scrolling', async () => {
    const context = await env.browser.newContext({ ...CONTEXT_DEFAULTS, viewport: { width: 375, height: 800 }, baseURL: env.baseUrl, isMobile: true });
    const page = await context.newPage();
    for (const name of ['index', 'account', 'profile', 'messages', 'storage', 'centers', 'compute-power']) {
      await page.goto(`/guide/${name}.html`);
      await expect.poll(() => imagesLoaded(page), { timeout: 10_000 }).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
    }
    await page.goto('/guide/storage.html');
    await env.shot(page, 'guide-02-phone');
    await context.close();
  });
});
