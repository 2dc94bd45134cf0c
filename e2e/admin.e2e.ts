/**
 * 运营管理 in a real Chromium against the real gateway: someone at the server makes the first operator with
 * `npm run admin -- operator add` (a real process on the gateway's database); the operator signs in and sees
 * 运营管理, a normal user does not and gets 没有权限 at its URL; the operator finds the user, disables them
 * (the user's open console is sent to the login page at once, and their login is refused), re-enables them
 * from the detail page, and reads the audit log. Every page reads Chinese and fits a 375 px phone.
 * Last, the operator stops a running task of the user with a reason, which the user reads on the task.
 * Screenshots: e2e/artifacts/admin-{users,status-modal,user-detail,audit}-{1440,375}.png, admin-no-permission-1440.png,
 * admin-task-stop-{1440,375}.png, admin-task-stopped-owner-1440.png.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { TRAINING_BASE } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signIn } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled, settledShot, speaksChinese } from './support/page';

const repoRoot = path.resolve(import.meta.dirname, '..');
const REASON = '多次提交挖矿任务，违反用户协议';
const STOP_REASON = '占满全部卡超过 48 小时，影响其他用户排队';

/** `npm run admin -- …` as someone at the server runs it, on the e2e gateway's data dir (SQLite). */
function npmAdmin(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile('npm', ['run', 'admin', '--', ...args], { cwd: repoRoot, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('运营管理 journey', () => {
  let env: E2eEnv;
  let operator: Page;
  let victim: Page;
  let op: Awaited<ReturnType<typeof createUser>>;
  let v: Awaited<ReturnType<typeof createUser>>;

  beforeAll(async () => {
    env = await startE2e();
    op = await createUser(env);
    v = await createUser(env);
    ({ page: operator } = await env.newPage());
    ({ page: victim } = await env.newPage());
  });
  afterAll(() => env?.close());

  const shot = (p: Page, name: string) => settledShot(env, p, name);
  const userRow = (p: Page) => p.locator(`[data-testid="admin-user-row"][data-username="${v.user.username}"]`);
  /** Opens an entry of the 运营管理 group of the desktop top menu, as a person does (hover, click). */
  async function viaMenu(p: Page, entry: string) {
    await p.getByTestId('menu-group-admin').hover();
    await p.locator(`.ant-menu-submenu-popup:visible [data-testid="menu-${entry}"]`).click();
  }

  it('makes the first operator with the server command', async () => {
    const none = await npmAdmin(['operator', 'list'], env.dataDir);
    expect([none.code, none.stdout]).toEqual([0, expect.stringContaining('还没有运营人员')]);
    const added = await npmAdmin(['operator', 'add', op.user.username], env.dataDir);
    expect([added.code, added.stderr.trim()]).toEqual([0, '']);
    expect(added.stdout).toContain(`已将 ${op.user.username} 设为运营人员（已写入审计日志）`);
  });

  it('the operator sees 运营管理; a normal user does not, and gets 没有权限 at its address', async () => {
    await signIn(operator, op.user.username, op.password);
    await operator.getByTestId('menu-group-admin').waitFor();
    await signIn(victim, v.user.username, v.password);
    await victim.getByTestId('menu-group-common').waitFor();
    expect(await victim.getByTestId('menu-group-admin').count()).toBe(0);
    await victim.goto('/console/admin/users');
    await victim.getByTestId('no-permission').waitFor();
    expect(await victim.getByTestId('no-permission').innerText()).toContain('没有权限');
    expect(await victim.getByTestId('admin-user-row').count()).toBe(0);
    await shot(victim, 'admin-no-permission-1440');
    await speaksChinese(victim, '没有权限');
    await victim.goto('/console/training');
    await victim.getByTestId('app-header').waitFor();
  });

  it('finds the user and disables them: their open console goes to the login page, and login is refused', async () => {
    await viaMenu(operator, 'admin-users');
    await operator.waitForURL('**/console/admin/users');
    await operator.getByTestId('admin-user-row').first().waitFor();
    await operator.getByTestId('admin-user-search').locator('input').fill(v.user.username.slice(0, 8));
    await operator.getByTestId('admin-user-search').locator('input').press('Enter');
    await expect.poll(() => operator.getByTestId('admin-user-row').count()).toBe(1);
    expect(await userRow(operator).getAttribute('data-status')).toBe('active');
    expect(await userRow(operator).innerText()).toContain('@test.local');
    await shot(operator, 'admin-users-1440');
    await speaksChinese(operator, '用户');

    await userRow(operator).getByTestId('admin-user-toggle').click();
    await operator.getByTestId('admin-status-modal').waitFor();
    await operator.getByTestId('admin-status-reason').fill(REASON);
    expect(await operator.locator('.ant-modal').innerText()).toContain(`确定要禁用账号 ${v.user.username} 吗？`);
    await shot(operator, 'admin-status-modal-1440');
    await speaksChinese(operator, '禁用账号');
    await operator.getByTestId('admin-status-confirm').click();
    await operator.locator('.ant-message-notice').filter({ hasText: `已禁用账号 ${v.user.username}` }).waitFor();
    await expect.poll(() => userRow(operator).getAttribute('data-status')).toBe('disabled');

    // The user's console was not touched: the socket closed (4001), and the console went to sign in.
    await victim.waitForURL(/\/console\/login/, { timeout: 10_000 });
    await victim.getByTestId('login-account').fill(v.user.username);
    await victim.getByTestId('login-password').fill(v.password);
    await victim.getByTestId('login-submit').click();
    await victim.locator('.ant-message-notice').filter({ hasText: '账号已被禁用，如有疑问请联系平台运营人员' }).waitFor();
    expect(victim.url()).toMatch(/\/console\/login/);
  });

  it('re-enables them from the detail page; they can sign in again', async () => {
    await userRow(operator).getByTestId('admin-user-link').click();
    await operator.waitForURL(/\/console\/admin\/users\//);
    await expect.poll(() => operator.getByTestId('admin-user-title').innerText()).toBe(v.user.username);
    await expect.poll(() => operator.getByTestId('admin-user-info').getByTestId('admin-user-status').getAttribute('data-status')).toBe('disabled');
    await expect.poll(() => operator.getByTestId('admin-user-history-row').count()).toBe(1);
    await shot(operator, 'admin-user-detail-1440');
    await speaksChinese(operator, '用户详情');

    await operator.getByTestId('admin-user-toggle').click();
    await operator.getByTestId('admin-status-modal').waitFor();
    // Clicked once the dialog has finished zooming in, as a person would.
    await settled(operator).catch(() => undefined);
    await operator.getByTestId('admin-status-confirm').click();
    await expect.poll(() => operator.getByTestId('admin-user-info').getByTestId('admin-user-status').getAttribute('data-status')).toBe('active');
    await expect.poll(() => operator.getByTestId('admin-user-history-row').count()).toBe(2);

    await signIn(victim, v.user.username, v.password);
  });

  it('reads the audit log: the command\'s grant and both status changes, with who, what and why', async () => {
    await viaMenu(operator, 'admin-audit');
    await operator.waitForURL('**/console/admin/audit-logs');
    await expect.poll(() => operator.getByTestId('audit-row').count()).toBe(3);
    const actions = await operator.getByTestId('audit-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    expect(actions).toEqual(['user.enable', 'user.disable', 'role.grant']);
    const disable = operator.locator('[data-testid="audit-row"][data-action="user.disable"]');
    const text = await disable.innerText();
    for (const part of [op.user.username, v.user.username, '状态：正常 → 已禁用', REASON, '127.0.0.1']) expect(text).toContain(part);
    expect(await operator.locator('[data-testid="audit-row"][data-action="role.grant"]').innerText()).toContain('服务器命令');
    await shot(operator, 'admin-audit-1440');
    await speaksChinese(operator, '审计日志');

    await operator.getByTestId('audit-action-filter').click();
    await operator.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: '禁用账号' }).click();
    await expect.poll(() => operator.getByTestId('audit-row').count()).toBe(1);
    await shot(operator, 'admin-audit-filtered-1440');
  });

  it('every page fits a 375 px phone and reads Chinese', async () => {
    await operator.setViewportSize({ width: 375, height: 812 });
    await operator.goto('/console/admin/users');
    await userRow(operator).waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-users-375');
    await speaksChinese(operator, '用户 375');

    await userRow(operator).getByTestId('admin-user-toggle').click();
    await operator.getByTestId('admin-status-modal').waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-status-modal-375');
    await operator.locator('.ant-modal .ant-btn').filter({ hasText: '取' }).click();

    await userRow(operator).getByTestId('admin-user-link').click();
    await operator.getByTestId('admin-user-history-row').first().waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-user-detail-375');
    await speaksChinese(operator, '用户详情 375');

    await operator.goto('/console/admin/audit-logs');
    await expect.poll(() => operator.getByTestId('audit-row').count()).toBe(3);
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-audit-375');
    await speaksChinese(operator, '审计日志 375');

    // The phone's menu drawer holds 运营管理 too.
    await operator.getByTestId('top-menu-toggle').click();
    await operator.getByTestId('top-menu-drawer').getByText('运营管理').waitFor();
    await shot(operator, 'admin-menu-375');
    await operator.setViewportSize({ width: 1440, height: 900 });
  });

  // Last: it adds an audit entry the counts above do not expect.
  it('stops a running task of the user with a reason; the user reads it on the task, and the audit log has it', async () => {
    // A session of its own: the disable above revoked the ones the user had.
    const { token } = await env.app.ctx.sessions.create(v.user.id);
    const created = await env.app.inject({
      method: 'POST',
      url: `${TRAINING_BASE}/tasks`,
      headers: { token },
      payload: { name: '长时间占卡的训练', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'echo started; sleep 600', workDir: '/', env: [], maxDurationMinutes: 10 },
    });
    const taskId = JSON.parse(created.body).data.id as string;
    // The page lists what runs when it loads (it asks again only while a task is 停止中): open it once the job runs.
    const state = async () => JSON.parse((await env.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${taskId}`, headers: { token } })).body).data.state as string;
    await expect.poll(state, { timeout: 30_000, interval: 200 }).toBe('RUNNING');

    await operator.goto(`/console/admin/users/${v.user.id}`);
    const row = operator.locator(`[data-testid="admin-running-task"][data-id="${taskId}"]`);
    expect(await row.getAttribute('data-state')).toBe('RUNNING');
    await row.getByTestId('admin-task-stop').click();
    await operator.getByTestId('admin-task-stop-modal').waitFor();
    await settled(operator).catch(() => undefined);
    // No reason, no stop: the confirm stays disabled.
    expect(await operator.getByTestId('admin-task-stop-confirm').isDisabled()).toBe(true);
    await operator.getByTestId('admin-task-stop-reason').fill(STOP_REASON);
    await shot(operator, 'admin-task-stop-1440');
    await speaksChinese(operator, '停止任务');
    await operator.setViewportSize({ width: 375, height: 812 });
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-task-stop-375');
    await operator.setViewportSize({ width: 1440, height: 900 });
    await operator.getByTestId('admin-task-stop-confirm').click();
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(0);

    await victim.goto(`/console/training/detail/train/${taskId}`);
    await victim.getByText(`运营人员停止：${STOP_REASON}`).first().waitFor({ timeout: 30_000 });
    await shot(victim, 'admin-task-stopped-owner-1440');

    await operator.goto('/console/admin/audit-logs');
    const entry = operator.locator('[data-testid="audit-row"][data-action="task.stop"]');
    await entry.waitFor();
    for (const part of [op.user.username, '长时间占卡的训练', STOP_REASON]) expect(await entry.innerText()).toContain(part);
  });
});
