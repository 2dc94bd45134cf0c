/**
 * 购买算力 and 费用中心 in a real Chromium against the real gateway (issue 19, items 3, 4, 6, 8): from the
 * header's 购买算力 a user buys a package with 线下转账 (the only channel offered: Alipay is not configured) and
 * sees the order 待支付 with its number; an operator finds it in 全部订单 by the buyer's name and confirms it; the
 * user's open /order shows 已支付 without a reload, the header's 标准卡时 rises by the package's 卡时, 费用明细 shows
 * the bucket, the record with its detail, the day's bar, and its CSV downloads as UTF-8 with a BOM; a training
 * form shows 预计最多消耗 against that balance, and warns when it does not cover. Screenshots at 1440 and 375:
 * e2e/artifacts/{pay,pay-transfer,order-list,order-list-operator,expense,task-estimate,task-estimate-short}-{1440,375}.png.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signedInPage } from './support/auth';
import { downloadedFile } from './support/chromium';
import { englishWords } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { headerBalance, noHorizontalScroll, readingShot, settled, speaksChinese } from './support/page';

const PACKAGE = 'A100 体验卡 10 卡时';

/** Opens an antd Select and picks the visible option whose text matches. */
async function pick(page: Page, testId: string, text: RegExp | string) {
  await page.getByTestId(testId).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}

describe('购买算力 journey', () => {
  let env: E2eEnv;
  let user: Page;
  let operator: Page;
  let buyerName = '';
  let orderNo = '';

  beforeAll(async () => {
    // A journey about the balance itself: no welcome grant (e2e/support/env.ts gives journeys one).
    env = await startE2e({ metering: {} });
    const u = await createUser(env);
    buyerName = u.user.username;
    const op = await createOperator(env);
    ({ page: user } = await signedInPage(env, u.user.username, u.password));
    ({ page: operator } = await signedInPage(env, op.user.username, op.password));
    // The first test starts from the header where the sign-in lands (the operator's first step is a goto).
    await user.goto('/console/training');
    await user.getByTestId('app-header').waitFor();
  });
  afterAll(() => env?.close());

  const shot = (p: Page, name: string) => readingShot(env, p, name);
  const remaining = headerBalance;
  const row = (p: Page) => p.getByTestId('order-row').filter({ hasText: orderNo });

  it('the header\'s 购买算力 opens /console/pay; a user buys with 线下转账 (支付宝 is not configured here) and sees the order 待支付', async () => {
    await user.getByTestId('header-comp-power').hover();
    const buy = user.getByTestId('header-buy-power');
    await buy.waitFor();
    expect(await buy.getAttribute('href')).toBe('/console/pay');
    expect(await user.getByTestId('header-comp-power').getAttribute('href')).toBe('/console/expense');
    await buy.click();
    await user.waitForURL(/\/console\/pay$/);
    const card = user.getByTestId('pay-product').filter({ hasText: PACKAGE });
    await card.waitFor();
    await speaksChinese(user, '购买算力');
    await shot(user, 'pay-1440');
    await card.click();
    await user.getByTestId('pay-submit').click();
    orderNo = (await user.getByTestId('pay-order-no').innerText()).trim();
    expect(orderNo).toMatch(/^DD\d{12}$/);
    await user.getByTestId('pay-offline').waitFor();
    expect(await user.getByTestId('pay-alipay').count()).toBe(0);
    await user.getByTestId('pay-offline').click();
    const transfer = user.getByTestId('pay-transfer');
    await transfer.waitFor();
    expect(await transfer.innerText()).toContain(orderNo);
    await speaksChinese(user, '线下转账');
    await shot(user, 'pay-transfer-1440');

    await user.goto('/console/order');
    await row(user).waitFor();
    expect(await row(user).getByTestId('order-status').innerText()).toBe('待支付');
    await shot(user, 'order-list-1440');
    await speaksChinese(user, '订单明细');
  });

  it('an operator finds it by the buyer\'s name in 全部订单 and confirms; the user sees 已支付 and more 标准卡时 without a reload', async () => {
    await expect.poll(() => remaining(user)).not.toBeNaN();
    const before = await remaining(user);
    await operator.goto('/console/order');
    await operator.getByTestId('order-scope-all').click();
    await row(operator).waitFor();
    const buyer = row(operator).getByTestId('order-buyer');
    expect(await buyer.innerText()).toContain(buyerName);
    await shot(operator, 'order-list-operator-1440');
    await speaksChinese(operator, '全部订单');
    await row(operator).getByTestId('order-confirm').click();
    const pop = operator.locator('.ant-popconfirm:visible');
    expect(await pop.innerText()).toContain(`确认已收到用户 ${buyerName}`);
    await pop.locator('.ant-btn-primary').click();
    await expect.poll(() => row(operator).getByTestId('order-status').innerText()).toBe('已支付');

    await expect.poll(() => row(user).getByTestId('order-status').innerText(), { timeout: 10_000 }).toBe('已支付');
    // An A100 card-hour is the standard (factor 1): 10 卡时 are 10 标准卡时.
    await expect.poll(() => remaining(user), { timeout: 10_000 }).toBeCloseTo(before + 10, 2);
  });

  it('费用明细: the bucket in 卡时 and 标准卡时, the record and its detail, the day\'s bar, and a CSV Excel opens', async () => {
    // The header's tooltip: native 卡时 per bucket and the 标准卡时 total.
    await user.getByTestId('header-comp-power').hover();
    const tip = user.getByTestId('header-comp-power-breakdown');
    await tip.waitFor();
    expect(await tip.innerText()).toContain('深圳算力分中心 · NVIDIA A100 80G：10.00 卡时');
    expect(await tip.innerText()).toContain('合计：10.00 标准卡时');
    await settled(user).catch(() => undefined);
    await env.shot(user, 'header-comp-power-1440');
    await user.getByTestId('header-comp-power').click();
    await user.waitForURL(/\/console\/expense$/);
    const bucket = user.getByTestId('balance-row').first();
    await bucket.waitFor();
    expect(await bucket.getByTestId('balance-remaining').innerText()).toBe('10.00 / 10.00');
    expect(await bucket.getByTestId('balance-standard').innerText()).toBe('10.00');
    expect(await user.getByTestId('expense-standard-total').innerText()).toContain('10.00');
    await user.getByTestId('expense-tab-charge').click();
    const record = user.getByTestId('charge-row').filter({ hasText: orderNo });
    await record.waitFor();
    expect(await record.innerText()).toContain('10.00');
    await user.getByTestId('charge-chart').waitFor();
    await expect.poll(() => user.locator('[data-testid="charge-chart"] [data-drawn="yes"] svg').count()).toBeGreaterThan(0);
    expect(await user.getByTestId('charge-chart').getAttribute('data-days')).toBe('1');
    await shot(user, 'expense-1440');
    await speaksChinese(user, '费用明细');

    await record.getByTestId('charge-order-no').click();
    await expect.poll(() => user.getByTestId('charge-detail-bucket').innerText()).toContain('剩余 10.00 / 10.00 卡时');
    await shot(user, 'expense-detail-1440');
    await speaksChinese(user, '充值记录详情');
    await user.keyboard.press('Escape');

    const [download] = await Promise.all([user.waitForEvent('download'), user.getByTestId('charge-export').click()]);
    expect(download.suggestedFilename()).toMatch(/^充值记录-\d{8}-\d{4}\.csv$/);
    const bytes = fs.readFileSync(await downloadedFile(download));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toBe('充值时间,订单编号,算力分中心,卡型,卡时,金额（元）,支付方式,充值记录编号');
    expect(lines[1]).toContain(`,${orderNo},深圳算力分中心,NVIDIA A100 80G,10.00,128.00,线下转账,`);
  });

  it('a training form shows 预计最多消耗 against the A100 balance, and warns with 购买算力 when it does not cover', async () => {
    await user.goto('/console/training/task/train');
    const estimate = user.getByTestId('training-form-estimate');
    await estimate.waitFor();
    await speaksChinese(user, '创建训练任务');
    await pick(user, 'training-form-card-type', /NVIDIA A100 80G/);
    await expect.poll(() => estimate.getAttribute('data-state'), { timeout: 10_000 }).toBe('covered');
    expect(await estimate.innerText()).toContain('预计最多消耗 1.00 卡时（1 卡 × 1 节点 × 60 分钟）');
    expect(await estimate.innerText()).toContain('深圳算力分中心 · NVIDIA A100 80G 剩余 10.00 卡时，运行满最长时长后剩余 9.00 卡时');
    await shot(user, 'task-estimate-1440');
    // (The page as a whole was checked before choosing: a closed select keeps its option values in a hidden list.)
    expect(englishWords(await estimate.innerText())).toEqual([]);
    const field = (id: string) => user.locator(`[data-testid="${id}"] input, input[data-testid="${id}"]`).first();
    await field('training-form-card-num').fill('8');
    await field('training-form-duration').fill('120');
    await field('training-form-duration').blur();
    await expect.poll(() => estimate.getAttribute('data-state')).toBe('short');
    expect(await estimate.innerText()).toContain('还差 6.00 卡时');
    expect(await user.getByTestId('training-form-estimate-buy').getAttribute('href')).toBe('/console/pay');
    expect(englishWords(await estimate.innerText())).toEqual([]);
    await shot(user, 'task-estimate-short-1440');
  });

  it('fits a 375 px phone: the order number wraps whole, nothing scrolls sideways', async () => {
    await user.setViewportSize({ width: 375, height: 812 });
    try {
      await user.goto('/console/pay');
      await user.getByTestId('pay-product').first().waitFor();
      await noHorizontalScroll(user);
      await shot(user, 'pay-375');

      await user.goto('/console/order');
      await row(user).waitFor();
      await noHorizontalScroll(user);
      // One line: the number is never broken inside (its box is as tall as one line of its text).
      const no = row(user).getByTestId('order-no');
      const { height, lineHeight, text } = await no.evaluate((el) => ({ height: el.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(el).lineHeight), text: el.textContent }));
      expect(text).toBe(orderNo);
      expect(height).toBeLessThan(lineHeight * 1.5);
      await shot(user, 'order-list-375');

      await operator.setViewportSize({ width: 375, height: 812 });
      await operator.goto('/console/order');
      await operator.getByTestId('order-scope-all').click();
      await row(operator).waitFor();
      await noHorizontalScroll(operator);
      expect(await row(operator).getByTestId('order-buyer').innerText()).toContain(buyerName);
      await shot(operator, 'order-list-operator-375');

      await user.goto('/console/expense?tab=charge');
      await user.getByTestId('charge-row').first().waitFor();
      await user.getByTestId('charge-chart').waitFor();
      await noHorizontalScroll(user);
      await shot(user, 'expense-375');

      await user.goto('/console/training/task/train');
      await pick(user, 'training-form-card-type', /NVIDIA A100 80G/);
      const estimate = user.getByTestId('training-form-estimate');
      await expect.poll(() => estimate.getAttribute('data-state'), { timeout: 10_000 }).toBe('covered');
      await noHorizontalScroll(user);
        await shot(user, 'task-estimate-375');
    } finally {
      await user.setViewportSize({ width: 1440, height: 900 });
      await operator.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
