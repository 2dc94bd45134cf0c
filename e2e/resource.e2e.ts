/**
 * Issue 10 item 4 in Chromium: 资源概览 follows a running task's cards live (no reload), 资源大屏 draws its
 * three charts. Screenshots of /resource and /dashboard at phone and desktop widths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE } from '@suanli/contracts';
import { createUser, signedInPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { painted } from './support/page';

describe('资源 pages', () => {
  let env: E2eEnv;
  let username: string;
  let password: string;
  let userId: string;

  beforeAll(async () => {
    // Sample every second so the page moves within the test.
    env = await startE2e({ compute: { pollIntervalMs: 500, resourceSampleMs: 1000 } });
    const u = await createUser(env);
    ({ username: username } = u.user);
    password = u.password;
    userId = u.user.id;
  });
  afterAll(() => env?.close());

  it('the overview shows a running task\'s cards without a reload; the dashboard draws its charts', async () => {
    const { context, page } = await signedInPage(env, username, password);
    await page.goto('/console/resource');
    const a100 = page.locator('[data-testid="res-center"][data-center="sz-a100"] [data-cardtype="a100-80g"]');
    await a100.waitFor();
    expect(await a100.getAttribute('data-total')).toBe('32');

    const { token } = await env.app.ctx.sessions.create(userId);
    const created = await env.app.inject({
      method: 'POST',
      url: `${TRAINING_BASE}/tasks`,
      headers: { token },
      payload: { name: '大屏演示任务', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 4, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'sleep 120', workDir: '/', env: [], maxDurationMinutes: 10 },
    });
    const taskId = JSON.parse(created.body).data.id as string;
    await expect.poll(() => a100.getAttribute('data-allocated'), { timeout: 30_000, interval: 500 }).toBe('4');
    await page.getByTestId('res-my-task').filter({ hasText: '大屏演示任务' }).waitFor();
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `resource-${width}`);
    }

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/console/dashboard');
    for (const id of ['dash-util', 'dash-vendors', 'dash-card-hours']) {
      await page.locator(`[data-testid="${id}"][data-drawn="yes"] svg`).first().waitFor({ timeout: 20_000 });
    }
    // The vendor pie names the vendors; the utilization chart has a line per center.
    await expect.poll(() => page.getByTestId('dash-vendors').textContent(), { timeout: 10_000 }).toContain('NVIDIA');
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 1200 });
      await painted(page);
      await env.shot(page, `dashboard-${width}`);
    }
    // The logo leads to the dashboard; the overview is one click from there (the menu has no entry for it).
    await page.getByTestId('dash-to-overview').click();
    await page.waitForURL(/\/console\/resource$/);
    await page.getByText('加速卡总数').waitFor();
    await env.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks/${taskId}/stop`, headers: { token } });
    await context.close();
  });
});
