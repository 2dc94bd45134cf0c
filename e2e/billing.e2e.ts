/**
 * Issue 19, acceptance 4 — a new user pays for compute, end to end in a real Chromium against the real gateway
 * (local executor, metering every 2 s, no welcome grant): the first submit is refused with 购买算力; the user
 * buys a package by transfer; an operator confirms it; the form then shows 预计最多消耗; the running task's
 * detail shows 已消耗 rising and the header's 剩余算力 falling, live; 费用明细's 消费记录 lists the task, its chart
 * shows today, its detail links the task, and the CSV downloads as UTF-8 with a BOM. Then issue 20's 算力发放:
 * an operator grants the user 昇腾 卡时 and the user's header rises without a reload; 平台概览 shows the day's
 * figures and the running task's cards. Screenshots at 1440 and 375: e2e/artifacts/billing-*-{1440,375}.png,
 * admin-overview-{1440,375}.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signedInPage } from './support/auth';
import { downloadedFile } from './support/chromium';
import { englishWords } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { headerBalance, noHorizontalScroll, readingShot, speaksChinese } from './support/page';

const PACKAGE = 'A100 体验卡 10 卡时';
const TASK = '计费验收任务';
const CARDS = 4;

/** Opens an antd Select and picks the visible option whose text matches. */
async function pick(page: Page, testId: string, text: RegExp | string) {
  await page.getByTestId(testId).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}

describe('计费 journey (acceptance 4 of issue 19, 算力发放 of issue 20)', () => {
  let env: E2eEnv;
  let user: Page;
  let operator: Page;
  let username = '';
  let orderNo = '';
  let taskUrl = '';

  beforeAll(async () => {
    // No welcome grant: the user starts with nothing. A short metering period so spend shows within seconds.
    env = await startE2e({ metering: { periodMs: 2000 } });
    const u = await createUser(env);
    username = u.user.username;
    const acc = await env.app.ctx.clusterAccounts.ensure(u.user.id, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
    const op = await createOperator(env);
    ({ page: user } = await signedInPage(env, u.user.username, u.password));
    ({ page: operator } = await signedInPage(env, op.user.username, op.password));
    // The first test reads the header's balance where the sign-in lands (the operator's first step is a goto).
    await user.goto('/console/training');
    await user.getByTestId('app-header').waitFor();
  });
  afterAll(() => env?.close());

  const shot = (p: Page, name: string) => readingShot(env, p, name);
  const remaining = headerBalance;
  async function fillForm(p: Page) {
    await p.goto('/console/training/task/train');
    await p.getByTestId('training-form-name').fill(TASK);
    await pick(p, 'training-form-center', '深圳算力分中心');
    await pick(p, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(p, 'training-form-image', /PyTorch 2.3/);
    // Long enough for a few metering periods, short enough for the journey.
    // 4 cards for ~25 s: 100 card-seconds, enough for 已消耗 (two decimals of 卡时) to move within the run.
    await p.locator('[data-testid="training-form-card-num"] input, input[data-testid="training-form-card-num"]').first().fill(String(CARDS));
    await p.getByTestId('training-form-command').fill('echo 开始; sleep 25; echo 结束');
    await p.getByTestId('training-form-workdir').fill('/work');
  }

  it('a new user\'s first submit is refused with 算力不足 and a 购买算力 link', async () => {
    await expect.poll(() => remaining(user)).toBe(0);
    await fillForm(user);
    await user.getByTestId('training-form-submit').click();
    const refusal = user.getByTestId('training-form-underpowered');
    await refusal.waitFor();
    expect(await refusal.innerText()).toContain('算力不足');
    expect(await refusal.innerText()).toContain('深圳算力分中心');
    expect(await user.getByTestId('training-form-buy').getAttribute('href')).toBe('/console/pay');
    expect(user.url()).toMatch(/\/console\/training\/task\/train$/);
    // (Not the whole page: closed selects keep their option values in a hidden list.)
    expect(englishWords(await refusal.innerText())).toEqual([]);
    await shot(user, 'billing-refused-1440');
    await user.setViewportSize({ width: 375, height: 812 });
    try {
      await refusal.scrollIntoViewIfNeeded();
      await noHorizontalScroll(user);
      await shot(user, 'billing-refused-375');
    } finally {
      await user.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('buys a package by transfer; an operator confirms; the header shows the 卡时 without a reload', async () => {
    await user.getByTestId('training-form-buy').click();
    await user.waitForURL(/\/console\/pay$/);
    const card = user.getByTestId('pay-product').filter({ hasText: PACKAGE });
    await card.waitFor();
    await card.click();
    await user.getByTestId('pay-submit').click();
    orderNo = (await user.getByTestId('pay-order-no').innerText()).trim();
    await user.getByTestId('pay-offline').click();
    await user.getByTestId('pay-transfer').waitFor();

    await operator.goto('/console/order');
    await operator.getByTestId('order-scope-all').click();
    const row = operator.getByTestId('order-row').filter({ hasText: orderNo });
    await row.waitFor();
    await row.getByTestId('order-confirm').click();
    await operator.locator('.ant-popconfirm:visible .ant-btn-primary').click();
    await expect.poll(() => row.getByTestId('order-status').innerText()).toBe('已支付');
    await expect.poll(() => remaining(user), { timeout: 10_000 }).toBeCloseTo(10, 2);
  });

  it('the form shows 预计最多消耗; the running task shows 已消耗 rising while the header falls, live', async () => {
    await fillForm(user);
    const estimate = user.getByTestId('training-form-estimate');
    await expect.poll(() => estimate.getAttribute('data-state'), { timeout: 10_000 }).toBe('covered');
    expect(await estimate.innerText()).toContain(`预计最多消耗 ${CARDS}.00 卡时`);
    expect(await estimate.innerText()).toContain('剩余 10.00 卡时');
    await shot(user, 'billing-estimate-1440');
    await user.getByTestId('training-form-submit').click();
    await user.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });
    taskUrl = new URL(user.url()).pathname;
    const state = user.getByTestId('training-detail-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('RUNNING');
    const consumed = async () => Number((await user.getByTestId('training-detail-consumed').innerText()).replace(/[^\d.]/g, ''));
    // A period (2 s) of 4 cards is 0.002 卡时: the figure (rounded down) leaves 0.00 after ~9 s of draws.
    await expect.poll(consumed, { timeout: 30_000, interval: 500 }).toBeGreaterThan(0);
    await expect.poll(() => remaining(user), { timeout: 15_000, interval: 500 }).toBeLessThan(10);
    expect(await state.getAttribute('data-state')).toBe('RUNNING');
    await shot(user, 'billing-task-running-1440');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 40_000 }).toBe('SUCCEEDED');
    // After the final draw: what the task consumed is what the header lost (each figure rounded down to the
    // hundredth, so the loss reads at most 0.01 more), and the task's card-seconds cover its run.
    await expect.poll(async () => Number((10 - (await remaining(user))).toFixed(2)), { timeout: 15_000 }).toBeGreaterThanOrEqual(await consumed());
    expect(Number((10 - (await remaining(user))).toFixed(2))).toBeLessThanOrEqual((await consumed()) + 0.01);
    expect(await consumed()).toBeGreaterThanOrEqual(0.02);
  });

  it('费用明细 › 消费记录 lists the task, charts today, opens its detail and downloads the CSV', async () => {
    await user.goto('/console/expense');
    const row = user.getByTestId('consume-row').filter({ hasText: TASK });
    await row.first().waitFor();
    expect(await row.first().innerText()).toContain('深圳算力分中心 · NVIDIA A100 80G');
    const chart = user.getByTestId('consume-chart');
    await chart.waitFor();
    await expect.poll(() => user.locator('[data-testid="consume-chart"] [data-drawn="yes"] svg').count()).toBeGreaterThan(0);
    expect(await chart.getAttribute('data-days')).toBe('1');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()).slice(5);
    expect(await chart.innerText()).toContain(today);
    await user.getByTestId('consume-share').waitFor();
    expect(await user.getByTestId('consume-share').getAttribute('data-centers')).toBe('1');
    await speaksChinese(user, '消费记录');
    await shot(user, 'billing-consume-1440');

    await row.first().getByTestId('consume-task').click();
    const link = user.getByTestId('consume-detail-task');
    await link.waitFor();
    expect(await user.getByTestId('consume-detail-cards').innerText()).toBe(`${CARDS} 卡（每节点 ${CARDS} 卡 × 1 节点）`);
    expect(await link.getAttribute('href')).toBe(taskUrl);
    await shot(user, 'billing-consume-detail-1440');
    await speaksChinese(user, '消费记录详情');
    await user.keyboard.press('Escape');

    const [download] = await Promise.all([user.waitForEvent('download'), user.getByTestId('consume-export').click()]);
    expect(download.suggestedFilename()).toMatch(/^消费记录-\d{8}-\d{4}\.csv$/);
    const bytes = fs.readFileSync(await downloadedFile(download));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toBe('日期,任务名称,任务类别,任务编号,算力分中心,卡型,计费卡数,开始时间,结束时间,消耗卡时,消耗卡秒,消费记录编号');
    expect(lines[1]).toContain(`,${TASK},训练任务,`);
    expect(lines[1]).toContain(`,深圳算力分中心,NVIDIA A100 80G,${CARDS},`);
    const seconds = lines.slice(1).filter(Boolean).reduce((s, l) => s + Number(l.split(',')[10]), 0);
    expect(seconds).toBeGreaterThanOrEqual(CARDS * 25);
  });

  it('算力发放: an operator grants 昇腾 卡时 by username; the user\'s header rises without a reload; the audit log has it', async () => {
    const before = await remaining(user);
    await operator.goto('/console/admin/grants');
    await operator.getByTestId('grant-form').waitFor();
    await operator.locator('[data-testid="grant-username"] input, input[data-testid="grant-username"]').first().fill(username);
    await pick(operator, 'grant-center', '广州算力分中心');
    await pick(operator, 'grant-card-type', '昇腾 910B');
    await operator.locator('[data-testid="grant-hours"] input, input[data-testid="grant-hours"]').first().fill('5');
    await operator.locator('[data-testid="grant-days"] input, input[data-testid="grant-days"]').first().fill('7');
    await operator.getByTestId('grant-reason').fill('验收补偿');
    await speaksChinese(operator, '算力发放');
    await shot(operator, 'billing-grant-1440');
    await operator.getByTestId('grant-submit').click();
    await operator.getByTestId('grant-summary').waitFor();
    await operator.getByTestId('grant-confirm').click();
    const granted = operator.getByTestId('grant-row').filter({ hasText: '验收补偿' });
    await granted.waitFor();
    expect(await granted.getAttribute('data-username')).toBe(username);
    // 昇腾 910B counts 0.8 标准卡时 per 卡时.
    await expect.poll(() => remaining(user), { timeout: 10_000 }).toBeCloseTo(before + 4, 2);
    await shot(operator, 'billing-grant-list-1440');

    await operator.goto('/console/admin/audit-logs');
    const entry = operator.getByTestId('audit-row').filter({ hasText: '发放算力' }).first();
    await entry.waitFor();
    expect(await entry.innerText()).toContain(username);
  });

  it('平台概览: the operator reads today\'s sold, granted and consumed 卡时 and the running task\'s cards, at 1440 and 375', async () => {
    // A second task holds the A100 cards while the operator reads the overview.
    await fillForm(user);
    await user.getByTestId('training-form-command').fill('sleep 120');
    await user.getByTestId('training-form-submit').click();
    await user.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });
    await expect.poll(() => user.getByTestId('training-detail-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('RUNNING');

    // 运营管理 opens on 平台概览.
    await operator.goto('/console/admin');
    await operator.waitForURL(/\/console\/admin\/overview$/);
    const a100 = operator.locator('[data-testid="overview-center"][data-id="sz-a100"] [data-testid="overview-card-type"][data-id="a100-80g"]');
    await expect.poll(() => a100.getByTestId('overview-card-usage').innerText(), { timeout: 15_000 }).toMatch(new RegExp(`^在用 ${CARDS} / \\d+ 张$`));
    expect(await operator.getByTestId('overview-users').innerText()).toMatch(/用户总数\s*2\s*人/);
    // Today: the 10 卡时 package sold, the 5 卡时 granted, what the first task drew (and the second so far).
    const sums = await operator.getByTestId('overview-sums').innerText();
    expect(sums).toMatch(/^售出卡时合计 10\.00\s*赠送卡时合计 5\.00\s*消耗卡时合计 \d+\.\d\d$/);
    expect(Number(/消耗卡时合计 ([\d.]+)/.exec(sums)![1])).toBeGreaterThanOrEqual(0.02);
    await operator.locator('[data-testid="overview-chart"][data-days="30"] [data-drawn="yes"] svg').waitFor();
    await operator.getByTestId('overview-range').getByText('近 7 天').click();
    await operator.locator('[data-testid="overview-chart"][data-days="7"] [data-drawn="yes"] svg').waitFor();
    await speaksChinese(operator, '平台概览');
    await shot(operator, 'admin-overview-1440');
    await operator.setViewportSize({ width: 375, height: 812 });
    try {
      await operator.getByTestId('overview-center').first().waitFor();
      await noHorizontalScroll(operator);
      await speaksChinese(operator, '平台概览（手机）');
      await shot(operator, 'admin-overview-375');
    } finally {
      await operator.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('fits a 375 px phone: 消费记录 with its charts, its detail and 算力发放, nothing sideways', async () => {
    await user.setViewportSize({ width: 375, height: 812 });
    await operator.setViewportSize({ width: 375, height: 812 });
    try {
      await user.goto('/console/expense');
      await user.getByTestId('consume-row').first().waitFor();
      await user.getByTestId('consume-share').waitFor();
      await expect.poll(() => user.locator('[data-testid="consume-share"] [data-drawn="yes"] svg').count()).toBe(2);
      await noHorizontalScroll(user);
      await shot(user, 'billing-consume-375');
      await user.getByTestId('consume-task').first().click();
      await user.getByTestId('consume-detail-task').waitFor();
      await noHorizontalScroll(user);
      await shot(user, 'billing-consume-detail-375');
      await user.keyboard.press('Escape');

      await operator.goto('/console/admin/grants');
      await operator.getByTestId('grant-row').first().waitFor();
      await noHorizontalScroll(operator);
      await shot(operator, 'billing-grant-375');
    } finally {
      await user.setViewportSize({ width: 1440, height: 900 });
      await operator.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
