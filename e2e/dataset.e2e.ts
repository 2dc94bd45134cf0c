/**
 * Issue 11 criterion 5 (datasets) in Chromium: upload a folder on the storage page, create a dataset from
 * it, add a second version after changing the folder, read the README and browse the files of each version;
 * register a model from a training task that ran to success; find a public dataset in the hall and add it
 * to mine. Screenshots at phone and desktop widths.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE } from '@suanli/contracts';
import { seedPublicAssets } from '../apps/server/src/modules/asset/public-seed';
import { createOperator, createUser, signedInPage, userPage } from './support/auth';
import { downloadedFile } from './support/chromium';
import { startE2e, type E2eEnv } from './support/env';
import { painted } from './support/page';

describe('数据集 journey', () => {
  let env: E2eEnv;
  let username: string;
  let password: string;
  let userId: string;
  let folder: string;

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    username = u.user.username;
    password = u.password;
    userId = u.user.id;
    // The folder a person picks in 上传文件夹.
    folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-ds-')), 'mnist-mini');
    fs.mkdirSync(path.join(folder, 'train'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'README.md'), '# MNIST 迷你版\n\n手写数字图片的**小样本**，用于演示。\n\n| 划分 | 数量 |\n|---|---|\n| 训练 | 3 |\n\n<script>window.__pwned = 1</script>\n');
    fs.writeFileSync(path.join(folder, 'labels.csv'), 'id,label\n1,5\n2,0\n3,4\n');
    fs.writeFileSync(path.join(folder, 'train/images.bin'), Buffer.alloc(64 * 1024, 3));
  });
  afterAll(async () => {
    await env?.close();
    fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  });

  it('creates a dataset from an uploaded folder, adds a second version, reads its README and files', async () => {
    const page = await userPage(env, username, password);

    await page.goto('/console/storage');
    await page.getByTestId('storage-upload-folder').waitFor();
    await page.setInputFiles('[data-testid="storage-upload-folder-input"]', folder);
    await expect.poll(() => page.locator('[data-testid="upload-row"][data-status="success"]').count(), { timeout: 30_000 }).toBe(3);

    await page.goto('/console/dataset');
    await page.getByTestId('asset-empty').waitFor();
    await page.getByTestId('asset-create').click();
    await page.getByTestId('asset-name').fill('MNIST 迷你版');
    await page.getByTestId('asset-description').fill('手写数字小样本，演示用');
    await page.getByTestId('asset-source-center').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click();
    await page.getByTestId('asset-source-path').fill('/mnist-mini');
    await page.getByTestId('asset-source-note').fill('首个版本');
    await page.getByTestId('asset-form-ok').click();

    await page.waitForURL(/\/console\/dataset\/detail\//);
    const versions = page.getByTestId('asset-versions');
    // The copy ends on the server; the page learns it from the socket (no reload).
    await expect.poll(() => versions.locator('.ant-tag').allTextContents(), { timeout: 20_000 }).toEqual(['可用']);

    // A second version after the folder changed: v1 keeps its bytes.
    fs.writeFileSync(path.join(folder, 'labels.csv'), 'id,label\n1,5\n2,0\n3,4\n4,9\n');
    await page.goto('/console/storage');
    await page.getByTestId('storage-upload-folder').waitFor();
    await page.setInputFiles('[data-testid="storage-upload-folder-input"]', folder);
    await page.getByTestId('upload-conflict-overwrite').click();
    await expect.poll(() => page.locator('[data-testid="upload-row"][data-status="success"]').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await page.goBack();
    await page.getByTestId('asset-add-version').click();
    await page.locator('.ant-modal:visible [data-testid="asset-source-center"]').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click();
    await page.locator('.ant-modal:visible [data-testid="asset-source-path"]').fill('/mnist-mini');
    await page.locator('.ant-modal:visible [data-testid="asset-source-note"]').fill('补充一条标注');
    await page.getByTestId('asset-version-ok').click();
    await expect.poll(() => versions.locator('[data-testid="asset-version-no"]').allTextContents(), { timeout: 20_000 }).toEqual(['v2', 'v1']);
    await expect.poll(() => versions.locator('.ant-tag').allTextContents(), { timeout: 20_000 }).toEqual(['可用', '可用']);
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `dataset-detail-versions-${width}`);
    }

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('tab', { name: '说明' }).click();
    const readme = page.getByTestId('asset-readme');
    await readme.locator('h1').waitFor();
    expect(await readme.locator('h1').textContent()).toBe('MNIST 迷你版');
    expect(await readme.locator('table td').first().textContent()).toBe('训练');
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await env.shot(page, 'dataset-detail-readme-1440');
    await page.setViewportSize({ width: 375, height: 900 });
    await painted(page);
    await env.shot(page, 'dataset-detail-readme-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.getByRole('tab', { name: '文件' }).click();
    const files = page.getByTestId('asset-files');
    await files.getByTestId('asset-file-dir').waitFor();
    expect(await files.getByTestId('asset-file').allTextContents()).toEqual(['labels.csv', 'README.md'].map((n) => ` ${n}`));
    await files.getByTestId('asset-file-dir').click();
    await expect.poll(() => files.getByTestId('asset-file').allTextContents()).toEqual([' images.bin']);
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `dataset-detail-files-${width}`);
    }

    // v1 still holds the three labels, v2 the four: download both through the page.
    await page.setViewportSize({ width: 1440, height: 900 });
    const labelsOf = async (versionLabel: string) => {
      await page.getByRole('tab', { name: '文件' }).click();
      await page.locator('[data-testid="asset-version-pick"]:visible').click();
      await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: versionLabel }).click();
      const row = page.getByTestId('asset-files').locator('tr').filter({ hasText: 'labels.csv' });
      await row.waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: /下载/ }).click()]);
      return fs.readFileSync(await downloadedFile(download), 'utf8');
    };
    expect(await labelsOf('v1')).toBe('id,label\n1,5\n2,0\n3,4\n');
    expect(await labelsOf('v2')).toBe('id,label\n1,5\n2,0\n3,4\n4,9\n');

    await page.goto('/console/dataset');
    await page.getByTestId('asset-card').first().waitFor();
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `dataset-list-${width}`);
    }
  });

  it('registers a model from a finished training task in one click', async () => {
    const page = await userPage(env, username, password);
    const { token } = await env.app.ctx.sessions.create(userId);
    const created = await env.app.inject({
      method: 'POST',
      url: `${TRAINING_BASE}/tasks`,
      headers: { token },
      payload: { name: '图像分类训练', type: 'train', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command: 'mkdir -p ckpt && echo weights > ckpt/model.safetensors', workDir: '/', env: [], maxDurationMinutes: 10 },
    });
    const taskId = JSON.parse(created.body).data.id as string;
    await page.goto(`/console/training/detail/train/${taskId}`);
    await page.getByTestId('training-register-model').waitFor({ timeout: 30_000 });
    await page.getByTestId('training-register-model').click();
    await page.getByTestId('register-model-path').fill('/ckpt');
    await page.getByTestId('register-model-ok').click();
    await page.waitForURL(/\/console\/model\/detail\//);
    const versions = page.getByTestId('asset-versions');
    await expect.poll(() => versions.locator('.ant-tag').allTextContents(), { timeout: 20_000 }).toEqual(['可用']);
    expect(await page.getByTestId('asset-title').textContent()).toBe('图像分类训练');
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `model-detail-${width}`);
    }
  });

  it('finds a public dataset in the hall and adds it to mine', async () => {
    const platform = await createUser(env);
    await seedPublicAssets({
      dir: path.resolve(import.meta.dirname, '../config/public-assets'),
      centers: env.app.ctx.centers,
      clusterAccounts: env.app.ctx.clusterAccounts,
      storage: env.app.ctx.storage,
      services: { dataset: env.app.assets.datasets, model: env.app.assets.models },
      platformUser: async () => platform.user.id,
    });
    const page = await userPage(env, username, password);
    await page.goto('/console/public-data');
    await page.waitForURL(/\/console\/public-data\/dataset$/);
    await expect.poll(() => page.getByTestId('asset-card-name').allTextContents()).toHaveLength(2);
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `public-hall-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('hall-tags').getByText('回归').click();
    await expect.poll(() => page.getByTestId('asset-card-name').allTextContents()).toEqual([' 正弦回归数据']);
    await page.getByTestId('hall-tags').getByText('全部').click();
    await page.getByTestId('hall-search').locator('input').fill('螺旋');
    await page.getByTestId('hall-search').locator('input').press('Enter');
    await expect.poll(() => page.getByTestId('asset-card-name').allTextContents()).toEqual([' 三分类螺旋数据']);
    await page.getByTestId('asset-card-name').click();
    await page.waitForURL(/\/console\/public-data\/detail\/dataset\//);
    await page.getByRole('tab', { name: '说明' }).click();
    await page.getByTestId('asset-readme').locator('h1').waitFor();
    await env.shot(page, 'public-detail-readme-1440');
    await page.setViewportSize({ width: 375, height: 900 });
    await painted(page);
    await env.shot(page, 'public-detail-readme-375');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('asset-add-to-mine').click();
    await page.getByText('已添加到“共享数据集”').waitFor();
    // 用于训练: the training form opens with the dataset's newest version to mount.
    await page.getByTestId('asset-use-for-training').click();
    await page.waitForURL(/\/console\/training\/task\/train\?dataset=/);
    await expect.poll(() => page.getByTestId('mount-dataset').textContent(), { timeout: 15_000 }).toContain('三分类螺旋数据 v1');
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 1200 });
      await painted(page);
      await env.shot(page, `training-form-with-dataset-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goBack();
    await page.goto('/console/dataset?tab=shared');
    await expect.poll(() => page.getByTestId('asset-card-name').allTextContents()).toEqual([' 三分类螺旋数据']);
  });

  it('an operator approves a publication request in 运营管理 › 审核; the dataset then shows in the hall, the review in the audit log', async () => {
    const op = await createOperator(env);
    // The owner asks on the detail page.
    const owner = await userPage(env, username, password);
    await owner.goto('/console/dataset');
    await owner.getByTestId('asset-card-name').filter({ hasText: 'MNIST 迷你版' }).click();
    await owner.getByTestId('asset-publish').click();
    await owner.locator('.ant-popconfirm:visible').getByRole('button', { name: /申\s*请/ }).click();
    await owner.getByText('已提交公开申请，等待运营审核').waitFor();
    await owner.getByText('公开审核中').waitFor();

    const { context, page } = await signedInPage(env, op.user.username, op.password);
    // The hall points operators to 运营管理 › 审核, where requests are decided.
    await page.goto('/console/public-data/dataset');
    await page.getByTestId('hall-review-link').click();
    await page.waitForURL(/\/console\/admin\/reviews/);
    const row = page.getByTestId('admin-review-dataset').locator('tr.ant-table-row').filter({ hasText: 'MNIST 迷你版' });
    await row.waitFor();
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `admin-review-${width}`);
    }
    // On a phone too: the decision opens its confirmation, which says what happens.
    await row.getByTestId('admin-review-approve').click();
    await page.getByTestId('admin-review-modal').waitFor();
    await painted(page);
    await env.shot(page, 'admin-review-approve-375');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('admin-review-confirm').click();
    await page.getByText('已通过，已发布到公共资源大厅').waitFor();
    await expect.poll(() => page.getByTestId('admin-review-dataset').textContent()).toContain('没有待审核的数据集公开申请');
    await page.goto('/console/public-data/dataset');
    await expect.poll(() => page.getByTestId('asset-card-name').allTextContents()).toContain(' MNIST 迷你版');
    // The review is in the audit log, with its change in words.
    await page.goto('/console/admin/audit-logs');
    const entry = page.getByTestId('audit-row').filter({ hasText: '审核公开申请' });
    await entry.first().waitFor();
    expect(await entry.first().textContent()).toContain('公开状态：审核中 → 已公开');
    await context.close();
  });
});
