/**
 * 运营管理 › 分中心 in a real Chromium against the real gateway (issue 20, acceptance 3/4): an operator puts
 * 深圳算力分中心 into 维护 with a notice; a user's open 购买算力 page loses that center's packages at once (the
 * socket's `center.changed`), and their submit of a training task there is refused with the notice; back to
 * 正常, the packages return without a reload. The audit log holds both changes. Every page fits 375 px.
 * Screenshots: e2e/artifacts/admin-centers-{list,status-modal,packages-modal}-{1440,375}.png, admin-orders-{1440,375}.png,
 * admin-centers-{pay-closed,submit-refused,audit}-1440.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signedInPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled, settledShot, speaksChinese } from './support/page';

const NOTICE = '11 月 30 日 02:00–06:00 存储扩容，暂停服务';

describe('运营管理 › 分中心 journey', () => {
  let env: E2eEnv;
  let operator: Page;
  let user: Page;
  /** The same user in a second tab: the training form, filled in before the maintenance began. */
  let form: Page;
  let op: Awaited<ReturnType<typeof createOperator>>;
  let u: Awaited<ReturnType<typeof createUser>>;

  beforeAll(async () => {
    env = await startE2e();
    op = await createOperator(env);
    u = await createUser(env);
    ({ page: operator } = await signedInPage(env, op.user.username, op.password));
    ({ page: user } = await signedInPage(env, u.user.username, u.password));
    ({ page: form } = await signedInPage(env, u.user.username, u.password));
  });
  afterAll(() => env?.close());

  const shot = (p: Page, name: string) => settledShot(env, p, name);
  const card = (p: Page) => p.locator('[data-testid="center-card"][data-id="sz-a100"]');
  async function pick(p: Page, testId: string, text: RegExp | string) {
    await p.getByTestId(testId).click();
    await p.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
  }

  it('the operator opens 分中心 from the 运营管理 menu: status and packages from the centers file', async () => {
    // Where a sign-in lands.
    await operator.goto('/console/training');
    await operator.getByTestId('menu-group-admin').hover();
    await operator.locator('.ant-menu-submenu-popup:visible [data-testid="menu-admin-centers"]').click();
    await operator.waitForURL('**/console/admin/centers');
    await card(operator).waitFor();
    expect(await card(operator).getByTestId('center-status').getAttribute('data-status')).toBe('online');
    expect(await card(operator).innerText()).toContain('A100 体验卡 10 卡时');
    await shot(operator, 'admin-centers-list-1440');
    await speaksChinese(operator, '分中心');
  });

  it('维护 with a notice: the user\'s 购买算力 loses the packages live, and their submit is refused with the notice', async () => {
    await user.goto('/console/pay');
    await user.getByTestId('pay-product').first().waitFor();
    // A training task on A100 (only 深圳 has it), filled in while the center is still 正常.
    await form.goto('/console/training');
    await form.getByTestId('training-create').click();
    await form.waitForURL(/\/console\/training\/task\/train/, { waitUntil: 'commit' });
    await form.getByTestId('training-form-name').fill('维护期间的任务');
    // 深圳 chosen by name: once it is in 维护 the list shows it disabled, and the choice made stands.
    await pick(form, 'training-form-center', '深圳算力分中心');
    await pick(form, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(form, 'training-form-image', /PyTorch 2.3/);
    await form.getByTestId('training-form-command').fill('python train.py');
    await form.getByTestId('training-form-workdir').fill('/work');

    await card(operator).getByTestId('center-set-status').click();
    await operator.getByTestId('center-status-form').waitFor();
    await settled(operator).catch(() => undefined);
    await operator.getByTestId('center-status-radio').getByText('维护').click();
    await operator.getByTestId('center-status-notice').fill(NOTICE);
    await operator.getByTestId('center-status-reason').fill('计划内维护');
    await shot(operator, 'admin-centers-status-modal-1440');
    await speaksChinese(operator, '设置状态');
    await operator.getByTestId('center-status-save').click();
    await expect.poll(() => card(operator).getByTestId('center-status').getAttribute('data-status')).toBe('maintenance');
    expect(await card(operator).getByTestId('center-notice').innerText()).toContain(NOTICE);

    // No reload: the socket's event makes the page read the centers again.
    await user.getByTestId('pay-center-closed').waitFor({ timeout: 10_000 });
    expect(await user.getByTestId('pay-center-closed').innerText()).toContain(NOTICE);
    expect(await user.getByTestId('pay-product').count()).toBe(0);
    await shot(user, 'admin-centers-pay-closed-1440');

    // The form opened before: its submit is refused by the gateway, naming the notice, and nothing is created.
    await expect.poll(() => form.getByTestId('training-form-center').innerText(), { timeout: 10_000 }).toContain('维护中');
    await form.getByTestId('training-form-submit').click();
    const refused = form.locator('.ant-message-notice').filter({ hasText: NOTICE });
    await refused.waitFor();
    expect(await refused.innerText()).toContain('深圳算力分中心维护中，暂停提交任务和购买算力');
    expect(form.url()).toMatch(/\/console\/training\/task\/train/);
    // The user's form, its selects used, says everything in Chinese (their option ids are not read out).
    await speaksChinese(form, '训练任务表单');
    await shot(form, 'admin-centers-submit-refused-1440');
  });

  it('back to 正常: the packages return on the user\'s page; the audit log holds both changes', async () => {
    await user.goto('/console/pay');
    await user.getByTestId('pay-center-closed').waitFor();
    await card(operator).getByTestId('center-set-status').click();
    await operator.getByTestId('center-status-form').waitFor();
    await settled(operator).catch(() => undefined);
    await operator.getByTestId('center-status-radio').getByText('正常').click();
    await operator.getByTestId('center-status-save').click();
    await expect.poll(() => card(operator).getByTestId('center-status').getAttribute('data-status')).toBe('online');
    await user.getByTestId('pay-product').first().waitFor({ timeout: 10_000 });

    await operator.goto('/console/admin/audit-logs');
    await expect.poll(() => operator.locator('[data-testid="audit-row"][data-action="center.status"]').count()).toBe(2);
    const text = await operator.locator('[data-testid="audit-row"][data-action="center.status"]').last().innerText();
    for (const part of [op.user.username, '深圳算力分中心', '状态：正常 → 维护', `公告：（无） → ${NOTICE}`, '计划内维护']) expect(text).toContain(part);
    await shot(operator, 'admin-centers-audit-1440');
    await speaksChinese(operator, '审计日志');
  });

  it('the packages editor, and every page at 375 px without sideways scroll, in Chinese', async () => {
    await operator.goto('/console/admin/centers');
    await card(operator).getByTestId('center-edit-packages').click();
    await operator.getByTestId('center-packages-form').waitFor();
    await shot(operator, 'admin-centers-packages-modal-1440');
    await speaksChinese(operator, '编辑算力卡');
    await operator.locator('.ant-modal .ant-btn').filter({ hasText: '取' }).click();

    await operator.setViewportSize({ width: 375, height: 812 });
    await operator.goto('/console/admin/centers');
    await card(operator).waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-centers-list-375');
    await speaksChinese(operator, '分中心 375');
    await card(operator).getByTestId('center-set-status').click();
    await operator.getByTestId('center-status-form').waitFor();
    await settled(operator).catch(() => undefined);
    await operator.getByTestId('center-status-radio').getByText('下线').click();
    await operator.getByTestId('center-status-notice').waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-centers-status-modal-375');
    await operator.locator('.ant-modal .ant-btn').filter({ hasText: '取' }).click();
    await card(operator).getByTestId('center-edit-packages').click();
    await operator.getByTestId('center-packages-form').waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-centers-packages-modal-375');
    await operator.locator('.ant-modal .ant-btn').filter({ hasText: '取' }).click();

    await operator.goto('/console/admin/orders');
    await operator.getByTestId('order-filter-buyer').waitFor();
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-orders-375');
    await speaksChinese(operator, '订单 375');
    await operator.setViewportSize({ width: 1440, height: 900 });
    await operator.reload();
    await operator.getByTestId('order-filter-buyer').waitFor();
    await shot(operator, 'admin-orders-1440');
  });
});
