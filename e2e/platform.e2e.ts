// Issue 2 journeys in real Chromium: sign-up with the outboxed code, the header, the user centre, password
// change revoking the other session, logout, unknown paths, and the live unread badge.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedInPage, signIn } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';

let env: E2eEnv;
beforeAll(async () => {
  // A new account without the journeys' welcome grant: the header shows 0.00 卡时.
  env = await startE2e({ metering: {} });
});
afterAll(() => env?.close());

// A 1×1 PNG: what the avatar upload sniffs for.
const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('account journey', () => {
  const username = `e2e_${Date.now().toString(36)}`;
  const email = `${username}@example.com`;
  // Both pass the server's strength estimate (zxcvbn score ≥ 2; `Start1234` does not).
  let password = 'Start-2046-qiyue';
  const newPassword = 'Changed-5678-huanle';

  it('registers with the emailed (outboxed) code and lands on login with the account filled', async () => {
    const { page, context } = await env.newPage();
    await page.goto('/console/login/register');
    await page.getByTestId('reg-username').fill(username);
    await page.getByTestId('reg-password').fill(password);
    await page.getByTestId('reg-confirm').fill(password);
    await page.getByTestId('reg-email').fill(email);
    await page.getByTestId('reg-send-code').click();
    await expect.poll(() => page.getByTestId('reg-send-code').textContent()).toMatch(/秒后重新获取/);
    await expect.poll(() => { try { return env.outboxCode(email); } catch { return ''; } }).toMatch(/^\d{6}$/);
    await page.getByTestId('reg-code').fill(env.outboxCode(email));
    await page.getByTestId('reg-agreement').check();
    await env.shot(page, '01-register');
    await page.getByTestId('reg-submit').click();
    await page.waitForURL(/\/console\/login\?account=/);
    await expect(page.getByTestId('login-account').inputValue()).resolves.toBe(username);
    await context.close();
  });

  it('signs in: the header shows avatar, nickname, compute power and the unread count', async () => {
    const { page, context } = await env.newPage();
    await signIn(page, username, password);
    await page.waitForURL(/\/console\/training/);
    await expect(page.getByTestId('header-nickname').textContent()).resolves.toBe(username);
    await expect.poll(() => page.getByTestId('header-comp-power').getAttribute('data-value')).toBe('0.00');
    await expect(page.getByTestId('header-comp-power').textContent()).resolves.toContain('卡时');
    await expect.poll(() => page.getByTestId('header-bell').getAttribute('data-unread')).toBe('0');
    await expect(page.getByTestId('header-avatar').locator('img, svg, .ant-avatar').count()).resolves.toBeGreaterThan(0);
    await expect(page.getByTestId('header-title').textContent()).resolves.toBe('算力调度服务平台');
    await env.shot(page, '02-shell-training');
    await context.close();
  });

  it('edits nickname and avatar in the user centre; the header follows', async () => {
    const { page, context } = await signedInPage(env, username, password);
    await page.goto('/console/training');
    await page.getByTestId('header-avatar').click();
    await page.getByTestId('user-menu-profile').click();
    await page.waitForURL(/\/console\/user-center/);
    await page.getByTestId('uc-nickname-edit').click();
    await page.getByTestId('uc-nickname-input').fill('端到端测试员');
    await page.getByTestId('uc-nickname-save').click();
    await expect.poll(() => page.getByTestId('header-nickname').textContent()).toBe('端到端测试员');

    const avatar = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'avatar-')), 'me.png');
    fs.writeFileSync(avatar, PNG_1PX);
    await page.getByTestId('uc-avatar-upload').locator('input[type=file]').setInputFiles(avatar);
    await expect
      .poll(() => page.getByTestId('header-avatar').locator('img').first().getAttribute('src'))
      .toMatch(/\/gateway\/user\/api\/v1\/avatar\//);
    const src = await page.getByTestId('header-avatar').locator('img').first().getAttribute('src');
    const served = await fetch(new URL(src!, env.baseUrl));
    expect(served.headers.get('content-type')).toBe('image/png');
    // Stored re-encoded (issue 7), so the bytes differ from the upload; still a PNG.
    expect(Buffer.from(await served.arrayBuffer()).subarray(0, 8).equals(PNG_1PX.subarray(0, 8))).toBe(true);
    await expect(page.getByTestId('uc-email').textContent()).resolves.toContain('***@example.com');
    await env.shot(page, '03-user-center');
    await context.close();
  });

  it('changing the password sends the other session to login', async () => {
    const a = await signedInPage(env, username, password);
    const b = await signedInPage(env, username, password);

    // B sits on a page; the server closes its socket (4001) the moment A's change revokes its session, and
    // the console sends it to login from there, without B doing anything (issue 7).
    await b.page.goto('/console/message');
    await a.page.goto('/console/login/edit');
    await a.page.getByTestId('pwd-old').fill(password);
    await a.page.getByTestId('pwd-new').fill(newPassword);
    await a.page.getByTestId('pwd-confirm').fill(newPassword);
    await a.page.getByTestId('pwd-submit').click();
    await a.page.waitForURL(/\/console\/login\?account=/);
    password = newPassword;

    // The other session ends on the login page keeping its place.
    await b.page.waitForURL(/\/console\/login\?redirect=%2Fmessage|\/console\/login\?redirect=\/message/);
    // Known gap (console, reported with issue 7): when the socket's 4001 ends the session the login page does
    // not yet say why (login-session-ended with 密码已在其他地方修改 appeared only when a page call hit 10307).
    await env.shot(b.page, '04-other-session-revoked');
    await a.context.close();
    await b.context.close();
  });

  it('logs out to /login; an unknown path ends at /console/training', async () => {
    const { page, context } = await signedInPage(env, username, password);
    await page.goto('/console/training');
    await page.getByTestId('header-avatar').click();
    await page.getByTestId('user-menu-logout').click();
    await page.waitForURL(/\/console\/login$/);
    await expect(page.evaluate(() => localStorage.getItem('suanli.userInfo'))).resolves.toBeNull();

    await signIn(page, username, password);
    await page.goto('/console/no/such/page');
    await page.waitForURL(/\/console\/training$/);
    // The page's chunk loads after the redirect: wait for it to show rather than look once.
    await page.getByTestId('training-create').waitFor({ state: 'visible' });
    await context.close();
  });
});

describe('live updates', () => {
  it('the bell badge rises without a reload when a message is created, and falls after reading it', async () => {
    const { user, password } = await createUser(env);
    const { page, context } = await signedInPage(env, user.username, password);
    await page.goto('/console/training');
    await expect.poll(() => page.getByTestId('header-bell').getAttribute('data-unread')).toBe('0');
    // A marker on window survives only if the page is not reloaded.
    await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 42));

    await env.app.ctx.notify(user.id, { type: 'system', title: '系统维护通知', content: '今晚 22:00 进行例行维护。' });
    await env.app.ctx.notify(user.id, { type: 'task', title: '任务运行成功', content: '训练任务已完成。' });
    await expect.poll(() => page.getByTestId('header-unread').textContent(), { timeout: 10_000 }).toBe('2');
    await expect(page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).resolves.toBe(42);
    await env.shot(page, '05-unread-badge');

    await page.getByTestId('header-bell').click();
    await page.waitForURL(/\/console\/message/);
    await expect.poll(() => page.getByTestId('msg-row').count()).toBe(2);
    await page.getByTestId('msg-row').first().getByTestId('msg-mark-one').click();
    await expect.poll(() => page.getByTestId('header-unread').textContent()).toBe('1');
    await env.shot(page, '06-messages');
    await page.getByTestId('msg-mark-all').click();
    await expect.poll(() => page.getByTestId('header-bell').getAttribute('data-unread')).toBe('0');
    await expect.poll(() => page.getByTestId('header-unread').count()).toBe(0);
    await context.close();
  });

  it('coming-soon pages are real pages, never fake lists', async () => {
    const { user, password } = await createUser(env);
    const { page, context } = await signedInPage(env, user.username, password);
    for (const p of ['/console/quantum', '/console/comming-soon/9']) {
      await page.goto(p);
      await page.getByTestId('coming-soon').waitFor();
    }
    await context.close();
  });
});
