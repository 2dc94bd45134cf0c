import { afterAll, beforeAll, expect, it } from 'vitest';
import { startE2e, type E2eEnv } from './support/env';

let env: E2eEnv;
beforeAll(async () => {
  env = await startE2e();
});
afterAll(() => env?.close());

it('serves the console and lands an anonymous visitor on the login page with Chinese text', async () => {
  const { page, context } = await env.newPage();
  await page.goto('/console/');
  await page.waitForURL(/\/console\/login/);
  await expect.poll(() => page.title()).toBe('登录 - 算力调度服务平台');
  await page.getByText('登录').first().waitFor();
  await env.shot(page, '00-login');
  await context.close();
});
