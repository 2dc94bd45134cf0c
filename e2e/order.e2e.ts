/**
 * 购买算力 in a real Chromium against the real gateway: a user buys a package with 线下转账 and sees the order
 * 待支付 with its number; an operator (own browser context) confirms it from 全部订单; the user's open /order
 * shows 已支付 without a reload, the header's remaining 卡时 rises by the package's 卡时 and /expense
 * 充值记录 shows the record. Screenshots: e2e/artifacts/{pay,order-list,expense}-{1440,375}.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signIn } from './support/auth';
import { describeLeaks, englishLeaks } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled } from './support/page';

const PACKAGE = 'A100 体验卡 10 卡时';

describe('购买算力 journey', () => {
  let env: E2eEnv;
  let user: Page;
  let operator: Page;
  let orderNo = '';

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    const op = await createOperator(env);
    ({ page: user } = await env.newPage());
    ({ page: operator } = await env.newPage());
    await signIn(user, u.user.username, u.password);
    await signIn(operator, op.user.username, op.password);
  });
  afterAll(() => env?.close());

  async function shot(p: Page, name: string) {
    await settled(p).catch(() => undefined);
    await env.shot(p, name);
  }
  async function speaksChinese(p: Page, what: string) {
    await settled(p).catch(() => undefined);
    expect(describeLeaks(what, await englishLeaks(p))).toEqual([]);
  }
  const remaining = async (p: Page) => Number((await p.getByTestId('header-comp-power').getAttribute('data-value')) || 'NaN');
  const row = (p: Page) => p.getByTestId('order-row').filter({ hasText: orderNo });

  it('a user buys a package with 线下转账 and sees the order 待支付 with its number', async () => {
    await user.goto('/console/pay');
    const card = user.getByTestId('pay-product').filter({ hasText: PACKAGE });
    await card.waitFor();
    await speaksChinese(user, '购买算力');
    await shot(user, 'pay-1440');
    await card.click();
    await user.getByTestId('pay-submit').click();
    orderNo = (await user.getByTestId('pay-order-no').innerText()).trim();
    expect(orderNo).toMatch(/^DD\d{8}/);
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

  it('an operator confirms it from 全部订单; the user sees 已支付, more 卡时 and the charge record without a reload', async () => {
    await expect.poll(() => remaining(user)).not.toBeNaN();
    const before = await remaining(user);
    await operator.goto('/console/order');
    await operator.getByTestId('order-scope-all').click();
    await row(operator).waitFor();
    await row(operator).getByTestId('order-confirm').click();
    await operator.locator('.ant-popconfirm:visible .ant-btn-primary').click();
    await expect.poll(() => row(operator).getByTestId('order-status').innerText()).toBe('已支付');

    await expect.poll(() => row(user).getByTestId('order-status').innerText(), { timeout: 10_000 }).toBe('已支付');
    await expect.poll(() => remaining(user), { timeout: 10_000 }).toBeCloseTo(before + 10, 2);

    await user.goto('/console/expense?tab=charge');
    const record = user.getByTestId('charge-row').filter({ hasText: orderNo });
    await record.waitFor();
    expect(await record.innerText()).toContain('10.00');
    await shot(user, 'expense-1440');
    await speaksChinese(user, '费用明细');
  });

  it('the three pages fit a 375 px phone', async () => {
    await user.setViewportSize({ width: 375, height: 812 });
    await user.goto('/console/pay');
    await user.getByTestId('pay-product').first().waitFor();
    await noHorizontalScroll(user);
    await shot(user, 'pay-375');
    await user.goto('/console/order');
    await row(user).waitFor();
    await noHorizontalScroll(user);
    await shot(user, 'order-list-375');
    await user.goto('/console/expense?tab=charge');
    await user.getByTestId('charge-row').first().waitFor();
    await noHorizontalScroll(user);
    await shot(user, 'expense-375');
    await user.setViewportSize({ width: 1440, height: 900 });
  });
});
