/**
 * Issue 10, criterion 3 in Chromium: a develop task (the platform's default Jupyter command) opened with 打开
 * from its detail page lands in Jupyter through the gateway's proxy with a clean URL (no ticket left), a cell
 * printing 2+2 shows 4; another signed-in user is refused at the proxy; stopping the task ends the IDE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOP_JUPYTER_COMMAND, TRAINING_BASE } from '@suanli/contracts';
import { createUser, signIn } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';

describe('development environment', () => {
  let env: E2eEnv;
  let user: { username: string; password: string; id: string };

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    user = { username: u.user.username, password: u.password, id: u.user.id };
  });
  afterAll(() => env?.close());

  it('打开 opens Jupyter through the proxy, a cell prints 4, another user is refused, stop ends it', async () => {
    const { token } = await env.app.ctx.sessions.create(user.id);
    const created = await env.app.inject({
      method: 'POST',
      url: `${TRAINING_BASE}/tasks`,
      headers: { token },
      payload: { name: '我的 Notebook', type: 'develop', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: DEVELOP_JUPYTER_COMMAND, workDir: '/', env: [], maxDurationMinutes: 60 },
    });
    const id = JSON.parse(created.body).data.id as string;

    const { context, page } = await env.newPage();
    await signIn(page, user.username, user.password);
    await page.goto(`/console/training/detail/develop/${id}`);
    const open = page.getByTestId('training-detail-open-ide');
    await open.waitFor({ timeout: 30_000 });
    // 打开 works once the job has reported its IDE's address (2011 before).
    await expect.poll(async () => (await env.app.inject({ method: 'POST', url: `${TRAINING_BASE}/tasks/${id}/ide-ticket`, headers: { token } })).json().message.code, { timeout: 30_000 }).toBe(0);
    await env.shot(page, 'develop-detail-1440');

    const [tab] = await Promise.all([context.waitForEvent('page'), open.click()]);
    await tab.waitForURL(new RegExp(`/gateway/training/proxy/${id}/tree`), { timeout: 60_000 });
    expect(tab.url()).not.toContain('ticket=');
    // A new notebook through Jupyter's own API (same origin, the proxy's cookie), then run a cell in its UI.
    await tab.waitForFunction(() => document.body.innerText.includes('Files'), undefined, { timeout: 60_000 });
    const nb = await tab.evaluate(async (base) => {
      const xsrf = document.cookie.split('; ').find((c) => c.startsWith('_xsrf='))?.slice(6) ?? '';
      const r = await fetch(`${base}api/contents`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-XSRFToken': xsrf }, body: JSON.stringify({ type: 'notebook' }) });
      return ((await r.json()) as { path: string }).path;
    }, `/gateway/training/proxy/${id}/`);
    await tab.goto(`/gateway/training/proxy/${id}/notebooks/${nb}`);
    await tab.locator('.CodeMirror').first().waitFor({ timeout: 60_000 });
    await tab.waitForFunction(() => (window as unknown as { Jupyter?: { notebook?: { kernel?: { is_connected(): boolean } } } }).Jupyter?.notebook?.kernel?.is_connected() === true, undefined, { timeout: 60_000 });
    await tab.locator('.CodeMirror').first().click();
    await tab.keyboard.type('print(2+2)');
    await tab.keyboard.press('Shift+Enter');
    await expect.poll(() => tab.locator('.output_area .output_text').first().textContent(), { timeout: 60_000 }).toContain('4');
    await env.shot(tab, 'develop-jupyter-1440');

    // Another signed-in user reaching the same address is refused.
    const other = await createUser(env);
    const { context: c2, page: p2 } = await env.newPage();
    await signIn(p2, other.user.username, other.password);
    const refused = await p2.goto(`/gateway/training/proxy/${id}/tree`);
    expect(refused?.status()).toBe(403);
    expect(await p2.textContent('body')).toContain('无权访问该开发环境');
    await c2.close();

    // Stop: the IDE ends, the proxy says so.
    await page.getByTestId('training-detail-stop').click();
    // The header re-renders every second (running time), so the popover can keep re-aligning on a loaded
    // machine and never look "stable" to Playwright (seen in CI): wait until it shows, then click it.
    const confirmStop = page.locator('.ant-popconfirm .ant-btn-dangerous');
    await confirmStop.waitFor();
    await confirmStop.click({ force: true });
    await page.getByTestId('training-detail-state').filter({ hasText: '已停止' }).waitFor({ timeout: 30_000 });
    const gone = await tab.goto(`/gateway/training/proxy/${id}/tree`);
    expect(gone?.status()).toBe(503);
    expect(await tab.textContent('body')).toContain('开发环境已停止');
    await context.close();
  });
});
