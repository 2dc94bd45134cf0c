/**
 * Issue 11 item 5 in Chromium: 跨中心同步 from the storage page — pick a folder, the other center and a target
 * folder; the header's task panel opens on the job, shows its progress live (socket, no polling) and ends at
 * 已完成; the copy is on the other center with the same bytes. A second, large job is cancelled from the panel
 * and leaves nothing on the target. Screenshots at desktop and phone widths.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DATASET_BASE, type AssetDetail } from '@suanli/contracts';
import { call } from '../apps/server/test/users';
import { createUser, userPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { settled } from './support/page';

const MiB = 1024 * 1024;

/** Opens an antd Select and picks the visible option whose text matches. */
async function pickOption(page: Page, testId: string, text: RegExp | string) {
  await page.getByTestId(testId).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('跨中心同步 journey', () => {
  let env: E2eEnv;
  let username: string;
  let password: string;
  let sz: string;
  let gz: string;
  let token: string;

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    username = u.user.username;
    password = u.password;
    token = u.token;
    const home = async (c: string) => path.join(env.dataDir, 'centers', c, 'home', (await env.app.ctx.clusterAccounts.ensure(u.user.id, c)).account);
    sz = await home('sz-a100');
    gz = await home('gz-ascend');
    // What a person has in their Shenzhen storage: a small corpus, and a large file for the cancel.
    fs.mkdirSync(path.join(sz, '语料库/train'), { recursive: true });
    fs.writeFileSync(path.join(sz, '语料库/README.md'), '# 中文语料\n');
    fs.writeFileSync(path.join(sz, '语料库/train/part-0.bin'), Buffer.from(Array.from({ length: 24 * MiB }, (_, i) => (i * 7 + 3) & 0xff)));
    fs.writeFileSync(path.join(sz, '语料库/train/labels.csv'), 'id,label\n1,正面\n');
    fs.writeFileSync(path.join(sz, '大文件.bin'), '');
    fs.truncateSync(path.join(sz, '大文件.bin'), 3 * 1024 * MiB);
    fs.mkdirSync(gz, { recursive: true });
  });
  afterAll(() => env?.close());

  const row = (page: Page, name: string) => page.locator(`[data-testid="storage-row"][data-name="${name}"]`);
  const syncRow = (page: Page, name: string) => page.locator(`[data-testid="sync-row"][data-name="${name}"]`);

  async function startSync(page: Page, name: string) {
    await row(page, name).getByRole('checkbox').check();
    await page.getByTestId('sync-action').click();
    await page.getByTestId('sync-modal').waitFor();
    await expect.poll(() => page.getByTestId('sync-source').innerText()).toContain(`/${name}`);
    await expect.poll(() => page.getByTestId('sync-target-center').innerText()).toContain('广州算力分中心');
    await expect.poll(() => page.getByTestId('sync-target-path').innerText()).toContain(`/${name}`);
    await settled(page);
  }

  it('syncs a folder to the other center, followed live in the task panel until 已完成', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/storage?center=sz-a100');
    await row(page, '语料库').waitFor();

    await startSync(page, '语料库');
    await env.shot(page, 'sync-dialog-1440');
    await page.getByTestId('sync-ok').click();

    // The panel opens by itself on the new job and follows it to the end.
    await page.getByTestId('sync-panel').waitFor();
    await syncRow(page, '语料库').waitFor();
    await expect.poll(() => syncRow(page, '语料库').getAttribute('data-state'), { timeout: 60_000 }).toBe('SUCCEEDED');
    await expect.poll(() => syncRow(page, '语料库').getByTestId('sync-state').innerText()).toContain('已完成');
    expect(await syncRow(page, '语料库').getByTestId('sync-route').innerText()).toContain('广州算力分中心');
    await expect.poll(() => syncRow(page, '语料库').getByTestId('sync-bytes').innerText()).toContain('24');
    await env.shot(page, 'sync-panel-done-1440');

    // The same bytes on the other center.
    for (const rel of ['README.md', 'train/part-0.bin', 'train/labels.csv']) expect(sha(path.join(gz, '语料库', rel)), rel).toBe(sha(path.join(sz, '语料库', rel)));
    // And the storage page of that center lists it.
    await page.goto('/console/storage?center=gz-ascend');
    await row(page, '语料库').waitFor();
  });

  it('cancels a large sync from the panel: the job ends 已取消 and nothing arrives on the target', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/storage?center=sz-a100');
    await row(page, '大文件.bin').waitFor();
    await startSync(page, '大文件.bin');
    await page.getByTestId('sync-ok').click();
    const job = syncRow(page, '大文件.bin');
    await job.waitFor();
    // Under way: progress moves on the socket.
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 30_000 }).toBe('RUNNING');
    await expect.poll(async () => Number((await job.getByTestId('sync-progress').getAttribute('aria-valuenow')) ?? (await job.getByTestId('sync-progress').innerText()).replace(/\D/g, '')), { timeout: 30_000 }).toBeGreaterThan(0);
    await env.shot(page, 'sync-panel-running-1440');
    await job.getByTestId('sync-cancel').click();
    await page.getByTestId('sync-cancel-ok').click();
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 30_000 }).toBe('CANCELLED');
    await expect.poll(() => job.getByTestId('sync-state').innerText()).toContain('已取消');
    expect(fs.readdirSync(gz)).toEqual(['语料库']);
  });

  it('a training task on the other center waits while its dataset version is synced there, then runs on the copy', async () => {
    // A dataset made from the Shenzhen corpus: its version 1 lives on Shenzhen.
    const made = await call<AssetDetail>(env.app, 'POST', `${DATASET_BASE}/datasets`, { token, payload: { name: '中文语料', source: { subCenterId: 'sz-a100', path: '/语料库' } } });
    expect(made.message.code, made.message.message).toBe(0);
    let v = made.data.versions[0];
    await expect.poll(async () => (v = (await call<AssetDetail>(env.app, 'GET', `${DATASET_BASE}/datasets/${made.data.id}`, { token })).data.versions[0]).state, { timeout: 60_000 }).toBe('ready');

    const page = await userPage(env, username, password);
    // The dataset's own 用于训练 opens the form with the version chosen; the task goes to Guangzhou, where the
    // version is not.
    await page.goto(`/console/dataset/detail/${made.data.id}`);
    await page.getByTestId('asset-use-for-training').click();
    await page.waitForURL(new RegExp(`/console/training/task/train\\?dataset=${made.data.id}(:|%3A)${v.id}`));
    await page.getByTestId('training-form-name').fill('读取中文语料');
    await pickOption(page, 'training-form-center', '广州算力分中心');
    await pickOption(page, 'training-form-card-type', /昇腾 910B/);
    await pickOption(page, 'training-form-image', /PyTorch 2\.1 \(torch_npu/);
    await page.getByTestId('training-form-command').fill('head -n 1 "$SUANLI_DATASET_1/README.md"; ls "$SUANLI_DATASET_1/train"');
    await page.getByTestId('training-form-workdir').fill('/');
    await expect.poll(() => page.getByTestId('mount-dataset').innerText()).toContain('位于深圳算力分中心，提交后先同步');
    await settled(page);
    await env.shot(page, 'sync-task-form-1440');
    await page.getByTestId('training-form-submit').click();

    // The detail page: it waited (CREATED, with the reason kept in its timeline), then ran on the copy.
    await page.getByTestId('training-detail-state').waitFor();
    const waited = page.locator('[data-testid="training-event"][data-state="CREATED"]');
    await expect.poll(() => waited.innerText(), { timeout: 30_000 }).toContain('等待数据同步：数据集「中文语料」v1（深圳算力分中心） 正在同步到广州算力分中心，完成后自动提交');
    await expect.poll(() => page.getByTestId('training-detail-state').innerText(), { timeout: 90_000 }).toContain('运行成功');
    await expect.poll(() => page.getByTestId('training-log').innerText(), { timeout: 30_000 }).toContain('# 中文语料');
    expect(await page.getByTestId('training-log').innerText()).toContain('labels.csv');
    // The copy was made by a version job: the header's task panel opened on it by itself (跨中心同步) and
    // shows it finished.
    const versionJob = page.locator('[data-testid="sync-row"]').filter({ hasText: '数据集「中文语料」v1' });
    await expect.poll(() => versionJob.getAttribute('data-state'), { timeout: 20_000 }).toBe('SUCCEEDED');
    await settled(page);
    await env.shot(page, 'sync-task-done-1440');
  });

  it('phone width: the dialog and the panel fit 375 px', async () => {
    const page = await userPage(env, username, password);
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/console/storage?center=sz-a100');
    await row(page, '语料库').waitFor();
    await row(page, '语料库').getByRole('checkbox').check();
    // Below 992 px the action is an item of 批量操作.
    if (!(await page.getByTestId('sync-action').isVisible())) await page.getByText('批量操作').click();
    await page.getByTestId('sync-action').click();
    await page.getByTestId('sync-modal').waitFor();
    await settled(page);
    await env.shot(page, 'sync-dialog-375');
    await page.locator('.ant-modal-footer button').filter({ hasText: /取\s*消/ }).click();
    await expect.poll(() => page.getByTestId('sync-modal').isVisible()).toBe(false);
    await page.getByTestId('upload-panel-button').click();
    await page.getByTestId('task-tab-sync').click();
    await syncRow(page, '语料库').waitFor();
    await settled(page);
    await env.shot(page, 'sync-panel-375');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
