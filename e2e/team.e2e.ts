/**
 * 团队管理 in a real Chromium against the real gateway: an owner creates a team and invites a user found by
 * the search; the invitee accepts from 消息中心 (接受 on the invitation message) and lands on the team; the
 * owner's open team page shows the new member without a reload; the owner buys for the team by 线下转账 and an
 * operator confirms it; the member runs a task paid by the team (付费方), the owner sees the member's usage this
 * month and sets their limit; the owner shares a dataset with the team; the member sees the team with the 成员 role and leaves it. Pages read Chinese and
 * fit a 375 px phone. Screenshots: e2e/artifacts/team-{list,detail,invite,message}-{1440,375}.png,
 * team-pay-1440.png, team-payer-1440.png, team-compute-1440.png (团队算力; at 375 it is part of team-detail-375.png),
 * team-share-1440.png (a dataset shared with the team from its 共享 dialog), team-storage-{1440,375}.png (团队空间 in 存储管理:
 * the member uploads, the owner opens it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, createUser, signedInPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settledShot, speaksChinese } from './support/page';
import { DATASET_BASE, type AssetDetail } from '@suanli/contracts';
import { call } from '../apps/server/test/users';

/** Opens an antd Select and picks the visible option whose text matches. */
async function pick(page: Page, testId: string, text: RegExp | string) {
  await page.getByTestId(testId).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}

const NAME = '蛋白质结构课题组';
/** A package of the seeded catalogue (深圳 · A100), as order.e2e buys it. */
const PACKAGE = 'A100 体验卡 10 卡时';
const DESCRIPTION = '结构预测与分子动力学，共享数据与算力。';

describe('团队 journey', () => {
  let env: E2eEnv;
  let owner: Page;
  let invitee: Page;
  let operator: Page;
  let inviteeName = '';
  let teamUrl = '';
  let ownerToken = '';
  let ownerId = '';

  beforeAll(async () => {
    env = await startE2e();
    const o = await createUser(env);
    const i = await createUser(env);
    ownerToken = o.token;
    ownerId = o.user.id;
    inviteeName = i.user.username;
    // The member's work directory for the team-paid task.
    const acc = await env.app.ctx.clusterAccounts.ensure(i.user.id, 'sz-a100');
    fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
    const op = await createOperator(env);
    ({ page: owner } = await signedInPage(env, o.user.username, o.password));
    ({ page: invitee } = await signedInPage(env, i.user.username, i.password));
    ({ page: operator } = await signedInPage(env, op.user.username, op.password));
    // The owner's first step is the header's avatar menu, where the sign-in lands (the others start with a goto).
    await owner.goto('/console/training');
    await owner.getByTestId('app-header').waitFor();
  });
  afterAll(() => env?.close());

  const confirmPop = (p: Page) => p.locator('.ant-popconfirm:visible .ant-btn-primary').click();
  const shot = (p: Page, name: string) => settledShot(env, p, name);
  const member = (p: Page, username: string) => p.getByTestId('team-member').and(p.locator(`[data-user="${username}"]`));

  it('the owner creates a team from 团队管理 (the avatar menu) and invites a user found by the search', async () => {
    await owner.getByTestId('header-avatar').click();
    await owner.getByTestId('user-menu-team').click();
    await owner.waitForURL(/\/console\/team$/);
    await owner.getByText('您还没有加入任何团队').waitFor();
    await speaksChinese(owner, '团队管理（空）');
    await owner.getByTestId('team-create').click();
    await owner.getByTestId('team-name').fill(NAME);
    await owner.getByTestId('team-description').fill(DESCRIPTION);
    await owner.getByTestId('team-create-ok').click();
    await owner.waitForURL(/\/console\/team\/detail\//);
    teamUrl = new URL(owner.url()).pathname;
    await owner.getByTestId('team-member').first().waitFor();
    expect(await owner.getByTestId('team-member').first().getByTestId('team-role').innerText()).toBe('所有者');

    await owner.getByTestId('team-invite').click();
    await owner.getByTestId('team-invite-user').locator('input').fill(inviteeName.slice(0, 12));
    await owner.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: inviteeName }).click();
    await speaksChinese(owner, '邀请成员');
    await shot(owner, 'team-invite-1440');
    await owner.getByTestId('team-invite-ok').click();
    await owner.locator('.ant-message-notice').filter({ hasText: `已向 ${inviteeName} 发出邀请` }).waitFor();
    await owner.getByTestId('team-pending').filter({ hasText: inviteeName }).waitFor();
  });

  it('the invitee accepts in 消息中心 and lands on the team; the owner sees the new member live', async () => {
    await invitee.goto('/console/message');
    const msg = invitee.getByTestId('msg-row').filter({ hasText: `邀请您加入团队「${NAME}」` });
    await msg.waitFor();
    expect(await msg.innerText()).toContain('团队消息');
    // Opened in place (the title itself leads to 团队管理, where the invitation also waits).
    await msg.locator('.ant-table-row-expand-icon').click();
    await invitee.getByTestId('team-invitation-accept').waitFor();
    await speaksChinese(invitee, '消息中心（团队邀请）');
    await shot(invitee, 'team-message-1440');
    await invitee.getByTestId('team-invitation-accept').click();
    await invitee.waitForURL(new RegExp(`${teamUrl}$`));
    await member(invitee, inviteeName).waitFor();
    expect(await member(invitee, inviteeName).getByTestId('team-role').innerText()).toBe('成员');
    // A member may neither invite nor remove anybody.
    expect(await invitee.getByTestId('team-invite').count()).toBe(0);
    expect(await invitee.getByTestId('team-member-remove').count()).toBe(0);

    // The owner's page was not reloaded: team.changed brought the member and took the pending invitation.
    await member(owner, inviteeName).waitFor({ timeout: 10_000 });
    await expect.poll(() => owner.getByTestId('team-pending').count()).toBe(0);
    // 团队空间 (ADR 0018): the team's folder on each center, and nothing shared with the team yet.
    expect(await owner.getByTestId('team-area-path').first().innerText()).toMatch(/\/teams\/[A-Za-z0-9_-]+$/);
    await owner.getByText('暂无共享给团队的数据集').waitFor();
    await speaksChinese(owner, '团队详情');
    await shot(owner, 'team-detail-1440');
  });

  it('the owner shares a dataset with the team from its 共享 dialog; the member sees it on 团队详情 without a reload', async () => {
    // The owner's dataset (made through the API: dataset.e2e.ts walks its creation in the browser).
    const home = (await env.app.ctx.clusterAccounts.ensure(ownerId, 'sz-a100')).homeDir;
    fs.mkdirSync(path.join(home, '结构库'), { recursive: true });
    fs.writeFileSync(path.join(home, '结构库/1abc.pdb'), 'ATOM\n');
    const made = await call<AssetDetail>(env.app, 'POST', `${DATASET_BASE}/datasets`, { token: ownerToken, payload: { name: '蛋白结构库', source: { subCenterId: 'sz-a100', path: '/结构库' } } });
    expect(made.message.code, made.message.message).toBe(0);
    await expect
      .poll(async () => (await call<AssetDetail>(env.app, 'GET', `${DATASET_BASE}/datasets/${made.data.id}`, { token: ownerToken })).data.versions[0]?.state, { timeout: 30_000 })
      .toBe('ready');

    await owner.goto(`/console/dataset/detail/${made.data.id}`);
    await owner.getByTestId('asset-share-open').click();
    await pick(owner, 'asset-share-team', NAME);
    await owner.getByTestId('asset-share-team-ok').click();
    await owner.getByTestId('asset-team-shares').getByText(NAME).waitFor();
    await speaksChinese(owner, '共享对话框（共享给团队）');
    await shot(owner, 'team-share-1440');

    // The member's open 团队详情 lists it (team.changed), and it opens.
    const item = invitee.getByTestId('team-shared-dataset').filter({ hasText: '蛋白结构库' });
    await item.waitFor({ timeout: 10_000 });
    await item.getByRole('link').click();
    await invitee.waitForURL(new RegExp(`/console/dataset/detail/${made.data.id}$`));
    await invitee.getByText('蛋白结构库').first().waitFor();
    await invitee.goto(teamUrl);
    await owner.goto(teamUrl);
  });

  it('团队空间 in 存储管理: the member uploads into the team\'s folder, the owner finds it there and downloads it', async () => {
    await invitee.goto('/console/storage');
    await pick(invitee, 'storage-space-select', `团队「${NAME}」空间`);
    await invitee.waitForURL(/\/console\/storage\?space=team%3A/);
    await invitee.getByText(`团队「${NAME}」在各算力分中心的共享文件夹`).waitFor();
    await invitee.getByTestId('storage-upload-input').setInputFiles({ name: '实验记录.txt', mimeType: 'text/plain', buffer: Buffer.from('第一轮：收敛\n') });
    await invitee.locator('[data-testid="storage-row"][data-name="实验记录.txt"]').waitFor({ timeout: 20_000 });
    // On the center's disk in the team's folder, never in the member's home.
    const teamId = teamUrl.split('/').pop()!;
    const dir = path.join(env.dataDir, 'centers/sz-a100/teams', teamId);
    expect(fs.readFileSync(path.join(dir, '实验记录.txt'), 'utf8')).toBe('第一轮：收敛\n');
    // The upload panel opened over the header: closed for the shots, which show the space switch.
    await invitee.getByTestId('upload-panel-button').click();
    await invitee.getByTestId('upload-panel').waitFor({ state: 'hidden' });
    await speaksChinese(invitee, '存储管理（团队空间）');
    await shot(invitee, 'team-storage-1440');
    await invitee.setViewportSize({ width: 375, height: 812 });
    await noHorizontalScroll(invitee);
    await shot(invitee, 'team-storage-375');
    await invitee.setViewportSize({ width: 1440, height: 900 });

    await owner.goto('/console/storage');
    await pick(owner, 'storage-space-select', `团队「${NAME}」空间`);
    const row = owner.locator('[data-testid="storage-row"][data-name="实验记录.txt"]');
    await row.waitFor();
    await row.getByTestId('storage-open').click();
    await owner.waitForURL(/\/console\/storage\/detail\?.*space=team%3A/);
    await owner.getByTestId('storage-preview').getByText('第一轮：收敛').waitFor();
    await owner.goto(teamUrl);
  });

  it('the owner buys for the team by 线下转账 and an operator confirms it; the member runs a task paid by the team (付费方); the owner sees the member\'s usage this month and sets a limit', async () => {
    // The owner buys for the team from 团队算力 (为团队购买算力 → 购买算力 with the team named) by 线下转账; an
    // operator confirms the transfer in 全部订单 and the package lands in the team's buckets.
    await owner.goto(teamUrl);
    await owner.getByTestId('team-buy').click();
    await owner.waitForURL(/\/console\/pay\?teamId=/);
    await expect.poll(() => owner.getByTestId('pay-for-team').innerText()).toContain(`为团队「${NAME}」购买`);
    await owner.getByTestId('pay-product').filter({ hasText: PACKAGE }).click();
    await owner.getByTestId('pay-submit').click();
    const orderNo = (await owner.getByTestId('pay-order-no').innerText()).trim();
    await expect.poll(() => owner.getByTestId('pay-team').innerText()).toBe(`团队「${NAME}」`);
    await owner.getByTestId('pay-offline').click();
    expect(await owner.getByTestId('pay-transfer').innerText()).toContain(orderNo);
    await speaksChinese(owner, '为团队购买算力（线下转账）');
    await shot(owner, 'team-pay-1440');
    const order = operator.getByTestId('order-row').filter({ hasText: orderNo });
    await operator.goto('/console/order');
    await operator.getByTestId('order-scope-all').click();
    expect(await order.getByTestId('order-for-team').innerText()).toContain('团队算力');
    await order.getByTestId('order-confirm').click();
    await operator.locator('.ant-popconfirm:visible .ant-btn-primary').click();
    await expect.poll(() => order.getByTestId('order-status').innerText()).toBe('已支付');
    await owner.goto(teamUrl);
    await expect.poll(async () => /(\d+\.\d{2})\s*$/.exec(await owner.getByTestId('team-balance').innerText())?.[1], { timeout: 10_000 }).toBe('10.00');

    await invitee.goto('/console/training/task/train');
    await invitee.getByTestId('training-form-name').fill('团队付费任务');
    await pick(invitee, 'training-form-center', '深圳算力分中心');
    await pick(invitee, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(invitee, 'training-form-image', /PyTorch 2.3/);
    // 8 cards for ~10 s: 80 card-seconds, 0.02 卡时 — enough to read above 0.00.
    await invitee.locator('[data-testid="training-form-card-num"] input, input[data-testid="training-form-card-num"]').first().fill('8');
    await invitee.getByTestId('training-form-command').fill('echo 团队付费; sleep 10');
    await pick(invitee, 'training-form-payer', `团队：${NAME}（成员）`);
    // 预计最多消耗 reads the team's balance (10 卡时 on 深圳 A100), not the member's own (none).
    const estimate = invitee.getByTestId('training-form-estimate');
    await expect.poll(() => estimate.getAttribute('data-payer')).toBe('team');
    await expect.poll(() => estimate.getAttribute('data-state')).toBe('covered');
    expect(await estimate.innerText()).toContain(`团队「${NAME}」在 深圳算力分中心 · NVIDIA A100 80G 剩余 10.00 卡时`);
    // The form with its Selects opened and closed: no English shown or read out (the checker reads rc-select's
    // clipped accessible listbox as its labels now).
    await speaksChinese(invitee, '训练任务表单（付费方 团队）');
    await shot(invitee, 'team-payer-1440');
    await invitee.getByTestId('training-form-submit').click();
    await invitee.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });
    const state = invitee.getByTestId('training-detail-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 40_000 }).toBe('SUCCEEDED');
    await env.app.metering.pass('sz-a100');

    await owner.goto(teamUrl);
    const table = owner.getByTestId('team-usage-table');
    await table.waitFor();
    const row = table.locator('tr').filter({ hasText: inviteeName });
    await expect.poll(async () => Number((await row.locator('td').nth(1).innerText()).trim()), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => owner.locator('[data-testid="team-usage-chart"][data-drawn="yes"] svg').count()).toBeGreaterThan(0);
    await owner.getByTestId('team-record').filter({ hasText: '团队付费任务' }).waitFor();
    // The Statistic reads its title, then the figure.
    expect(Number(/(\d+\.\d{2})\s*$/.exec(await owner.getByTestId('team-balance').innerText())?.[1])).toBeLessThanOrEqual(9.98);
    await row.locator('[data-testid="team-limit-input"] input, input[data-testid="team-limit-input"]').first().fill('20');
    await row.getByTestId('team-limit-save').click();
    await owner.locator('.ant-message-notice').filter({ hasText: '每月限额已设为 20 卡时' }).waitFor();
    await speaksChinese(owner, '团队详情（团队算力）');
    await shot(owner, 'team-compute-1440');
  });

  it('the member sees the team on 团队管理 with its role; list and detail fit a 375 px phone', async () => {
    await invitee.goto('/console/team');
    const row = invitee.getByTestId('team-row').filter({ hasText: NAME });
    await row.waitFor();
    expect(await row.getByTestId('team-role').innerText()).toBe('成员');
    expect(await row.getByTestId('team-meta').innerText()).toContain('2 名成员');
    await speaksChinese(invitee, '团队管理');
    await shot(invitee, 'team-list-1440');
    await invitee.setViewportSize({ width: 375, height: 812 });
    await noHorizontalScroll(invitee);
    await shot(invitee, 'team-list-375');
    await owner.setViewportSize({ width: 375, height: 812 });
    await owner.goto(teamUrl);
    await member(owner, inviteeName).waitFor();
    await noHorizontalScroll(owner);
    await speaksChinese(owner, '团队详情 375');
    await shot(owner, 'team-detail-375');
    await owner.setViewportSize({ width: 1440, height: 900 });
    await invitee.setViewportSize({ width: 1440, height: 900 });
  });

  it('the member leaves the team (with a confirmation); the owner sees them gone', async () => {
    await invitee.goto(teamUrl);
    await invitee.getByTestId('team-leave').click();
    await confirmPop(invitee);
    await invitee.waitForURL(/\/console\/team$/);
    await invitee.getByText('您还没有加入任何团队').waitFor();
    await expect.poll(() => member(owner, inviteeName).count(), { timeout: 10_000 }).toBe(0);
    // The team is no longer the former member's to open, nor its folder in 存储管理.
    await invitee.goto(teamUrl);
    await invitee.getByText('无法打开此团队').waitFor();
    await invitee.goto(`/console/storage?space=team%3A${teamUrl.split('/').pop()}`);
    await invitee.getByText('团队空间不存在或您已不是该团队的成员').waitFor();
  });

  it('an operator dissolves the team from 运营管理 › 团队 with a reason; the owner is told why; the audit log has it', async () => {
    const teamId = teamUrl.split('/').pop()!;
    await operator.goto('/console/admin/teams');
    const row = operator.getByTestId('admin-team-row').and(operator.locator(`[data-id="${teamId}"]`));
    await row.waitFor();
    await operator.setViewportSize({ width: 375, height: 812 });
    await noHorizontalScroll(operator);
    await shot(operator, 'admin-teams-375');
    await operator.setViewportSize({ width: 1440, height: 900 });
    await row.getByTestId('admin-team-dissolve').click();
    const modal = operator.getByTestId('admin-team-dissolve-modal');
    await modal.waitFor();
    expect(await modal.innerText()).toContain(`「${NAME}」`);
    await operator.getByTestId('admin-team-dissolve-reason').fill('课题结束，按所有者申请解散');
    await speaksChinese(operator, '解散团队（运营管理）');
    await shot(operator, 'admin-team-dissolve-1440');
    await operator.getByTestId('admin-team-dissolve-confirm').click();
    await operator.locator('.ant-message-notice').filter({ hasText: `已解散团队「${NAME}」` }).waitFor();
    await expect.poll(() => row.count()).toBe(0);

    await owner.goto('/console/message');
    const msg = owner.getByTestId('msg-row').filter({ hasText: `团队「${NAME}」已解散` });
    await msg.waitFor({ timeout: 10_000 });
    await owner.goto(teamUrl);
    await owner.getByText('无法打开此团队').waitFor();

    await operator.goto(`/console/admin/audit-logs?target=${teamId}`);
    const entry = operator.getByTestId('audit-row').filter({ hasText: '解散团队' });
    await entry.waitFor();
    expect(await entry.innerText()).toContain('课题结束，按所有者申请解散');
  });
});
