/**
 * 工单 in a real Chromium against the real gateway: a user submits a work order with a screenshot (a PNG made
 * here) and sees it 待处理; an operator (own browser context) opens it from 全部工单 and replies; the user's
 * open detail shows the answer without a reload, the list says 待您回复 and a 工单消息 arrives; the operator
 * marks it 已解决; the user closes it and the reply box is gone. List and detail read Chinese and fit a
 * 375 px phone. Screenshots: e2e/artifacts/workorder-{list,detail}-{1440,375}.png.
 */
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signedInPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settledShot, speaksChinese } from './support/page';

const TITLE = '训练任务提交后一直排队';
const DESCRIPTION = '今天上午提交的训练任务已经排队两个小时。\n截图里是任务列表的状态，请帮忙看看原因。';
const ANSWER = '您好，深圳分中心的 A100 资源上午在例行维护，现已恢复。\n您的任务已经开始运行，请查看。';

/** A small real PNG (a blue/grey chequerboard) — the server sniffs the bytes, so they must be a PNG. */
function makePng(width = 96, height = 64): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const on = (Math.floor(x / 16) + Math.floor(y / 16)) % 2 === 0;
      raw.set(on ? [22, 119, 255] : [230, 230, 230], y * (width * 3 + 1) + 1 + x * 3);
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

describe('工单 journey', () => {
  let env: E2eEnv;
  let user: Page;
  let operator: Page;
  let detailUrl = '';

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    const op = await createOperator(env);
    // Each one's first step is a goto.
    ({ page: user } = await signedInPage(env, u.user.username, u.password));
    ({ page: operator } = await signedInPage(env, op.user.username, op.password));
  });
  afterAll(() => env?.close());

  const row = (p: Page) => p.getByTestId('wo-row').filter({ hasText: TITLE });
  const state = (p: Page) => p.getByTestId('wo-detail').getByTestId('wo-state');
  const confirmPop = (p: Page) => p.locator('.ant-popconfirm:visible .ant-btn-primary').click();

  /** A screenshot once the page's fades are over (a shot mid-fade looks washed out). */
  const shot = (p: Page, name: string) => settledShot(env, p, name);


  it('a user submits a work order with a screenshot and sees it 待处理 in the list', async () => {
    await user.goto('/console/workorder');
    await user.getByText(/还没有工单/).waitFor();
    await user.getByTestId('wo-create').click();
    await user.getByTestId('wo-type').click();
    await user.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: '任务问题' }).click();
    await user.getByTestId('wo-title').fill(TITLE);
    await user.getByTestId('wo-description').fill(DESCRIPTION);
    await user.locator('.ant-modal input[type=file]').setInputFiles({ name: '任务列表截图.png', mimeType: 'image/png', buffer: makePng() });
    await user.locator('.ant-modal .ant-upload-list-item-done').waitFor();
    await speaksChinese(user, '新建工单');
    await shot(user, 'workorder-create-1440');
    await user.getByTestId('wo-create-submit').click();
    await user.locator('.ant-message-notice').filter({ hasText: '工单已提交' }).waitFor();
    await user.waitForURL(/\/console\/workorder\/detail\//);
    detailUrl = new URL(user.url()).pathname;
    await expect.poll(() => state(user).textContent()).toBe('待处理');
    const first = user.getByTestId('wo-message').first();
    expect(await first.getByTestId('wo-message-text').innerText()).toBe(DESCRIPTION);
    // The screenshot came back through the transport and decoded as an image.
    const img = first.getByTestId('wo-shots').locator('img');
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(96);

    await user.getByTestId('wo-back').click();
    await expect.poll(() => row(user).getAttribute('data-state')).toBe('PENDING');
    expect(await row(user).getByTestId('wo-state').innerText()).toBe('待处理');
    expect(await row(user).getByTestId('wo-awaiting').count()).toBe(0);
  });

  it('an operator answers from 全部工单; the user sees it live, 待您回复 in the list and a 工单消息', async () => {
    await user.goto(detailUrl);
    await user.getByTestId('wo-message').first().waitFor();

    await operator.goto('/console/workorder');
    await operator.getByTestId('wo-tab-all').click();
    await row(operator).waitFor();
    expect(await row(operator).getByTestId('wo-owner').count()).toBe(1);
    await row(operator).getByTestId('wo-title-link').click();
    await operator.getByTestId('wo-reply-text').fill(ANSWER);
    await operator.getByTestId('wo-reply-submit').click();
    await expect.poll(() => operator.getByTestId('wo-message').count()).toBe(2);

    // The user's page was not reloaded: the socket event brought the answer.
    await expect.poll(() => user.getByTestId('wo-message').count(), { timeout: 10_000 }).toBe(2);
    const answer = user.getByTestId('wo-message').nth(1);
    expect(await answer.getAttribute('data-role')).toBe('operator');
    expect(await answer.getByText('运维人员').count()).toBe(1);
    expect(await answer.getByTestId('wo-message-text').innerText()).toBe(ANSWER);
    await expect.poll(() => state(user).textContent()).toBe('处理中');
    await expect.poll(async () => Number(await user.getByTestId('header-bell').getAttribute('data-unread'))).toBeGreaterThan(0);
    await user.locator('[data-testid="wo-shots"] img').first().waitFor();
    await shot(user, 'workorder-detail-1440');
    // A click on a thumbnail opens it large.
    await user.locator('[data-testid="wo-shots"] img').first().click();
    await user.locator('.ant-image-preview-img').waitFor();
    await speaksChinese(user, '截图大图');
    await user.keyboard.press('Escape');
    await user.locator('.ant-image-preview-img').waitFor({ state: 'hidden' });
    await speaksChinese(user, '工单详情');

    await user.getByTestId('wo-back').click();
    await row(user).getByTestId('wo-awaiting').waitFor();
    expect(await row(user).getByTestId('wo-state').innerText()).toBe('处理中');
    await shot(user, 'workorder-list-1440');
    await speaksChinese(user, '工单系统');

    await user.getByTestId('header-bell').click();
    const msg = user.getByTestId('msg-row').filter({ hasText: '工单有新的回复' });
    await msg.waitFor();
    expect(await msg.innerText()).toContain('工单消息');
  });

  it('list and detail fit a 375 px phone', async () => {
    await user.setViewportSize({ width: 375, height: 812 });
    await user.goto('/console/workorder');
    await row(user).getByTestId('wo-awaiting').waitFor();
    await noHorizontalScroll(user);
    await shot(user, 'workorder-list-375');
    await user.goto(detailUrl);
    await user.getByTestId('wo-message').nth(1).waitFor();
    await user.locator('[data-testid="wo-shots"] img').first().waitFor();
    await noHorizontalScroll(user);
    await shot(user, 'workorder-detail-375');
    await speaksChinese(user, '工单详情 375');
    await user.setViewportSize({ width: 1440, height: 900 });
  });

  it('the operator marks it 已解决; the user closes it and can no longer reply', async () => {
    await user.goto(detailUrl);
    await user.getByTestId('wo-reply-form').waitFor();
    expect(await user.getByTestId('wo-resolve').count()).toBe(0);

    await operator.getByTestId('wo-resolve').click();
    await confirmPop(operator);
    await expect.poll(() => state(operator).textContent()).toBe('已解决');
    await expect.poll(() => state(user).textContent(), { timeout: 10_000 }).toBe('已解决');

    await user.getByTestId('wo-close').click();
    await confirmPop(user);
    await user.getByTestId('wo-closed').waitFor();
    expect(await user.getByTestId('wo-closed').innerText()).toContain('工单已关闭');
    expect(await user.getByTestId('wo-reply-form').count()).toBe(0);
    expect(await user.getByTestId('wo-close').count()).toBe(0);
    await expect.poll(() => state(user).textContent()).toBe('已关闭');
    await shot(user, 'workorder-detail-closed-1440');

    await user.getByTestId('wo-back').click();
    await expect.poll(() => row(user).getAttribute('data-state')).toBe('CLOSED');
    expect(await row(user).getByTestId('wo-awaiting').count()).toBe(0);
  });
});
