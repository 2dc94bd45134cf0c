/**
 * Issue 22, items 4–6: what a new user trips over, in Chromium at the widths where it was seen (375 and 1440
 * px), on the embedded default without a registry. 推送私有镜像 says in Chinese that private images are not
 * offered and leads back; a message's title opens what it is about; 资源概览 / 资源大屏 are in the menu;
 * a failed task and the payment pages link 工单系统; the wording agrees with the menu.
 * Screenshots: e2e/artifacts/newuser-*.png.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Task } from '@suanli/contracts';
import { seedPublicAssets } from '../apps/server/src/modules/asset/public-seed';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedInPage } from './support/auth';
import { describeLeaks, englishLeaks } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled } from './support/page';

const WIDTHS = [375, 1440];

let env: E2eEnv;
let page: Page;
let userId: string;
/** A training task whose program fails (exit 3), and what the user was told about it. */
let failed: Task;
/** A training task the user stopped while it ran. */
let stopped: Task;

beforeAll(async () => {
  // Shell工具's local terminal is an explicit opt-in (LOCAL_SHELL); this journey reads its note.
  env = await startE2e({ shell: { local: true } });
  const { user, password } = await createUser(env);
  userId = user.id;
  failed = await failingTask();
  stopped = await stoppedTask();
  // The public hall as `npm start` seeds it: owned by the platform's account (nickname 算力平台).
  const platform = await env.app.users.createAccount({ username: 'platform', nickname: '算力平台', password: 'x-Unused-1!' });
  await seedPublicAssets({
    dir: path.resolve(import.meta.dirname, '../config/public-assets'),
    centers: env.app.ctx.centers,
    clusterAccounts: env.app.ctx.clusterAccounts,
    storage: env.app.ctx.storage,
    services: { dataset: env.app.assets.datasets, model: env.app.assets.models },
    platformUser: async () => platform!.id,
  });
  ({ page } = await signedInPage(env, user.username, password));
});
afterAll(() => env?.close());

/** A training task on the first local center running `command`. */
async function trainingTask(name: string, command: string): Promise<Task> {
  const tasks = env.app.tasks.service;
  const center = tasks.centers().find((c) => c.scheduler.kind === 'local' && c.status === 'online')!;
  return tasks.create(
    { userId, sessionId: 'e2e', roles: ['user'] as const },
    {
      kind: 'training',
      type: 'train',
      name,
      subCenterId: center.id,
      placementReason: '',
      cardTypeId: center.cardTypes[0].id,
      cardNum: 1,
      nodeNum: 1,
      imageId: 'pytorch-2.3-cuda12',
      command,
      workDir: '/',
      env: [],
      maxDurationMinutes: 10,
    },
  );
}

/** Waits (in beforeAll, where expect.poll is not available) until the task is in `state`. */
async function reaches(task: Task, state: Task['state']): Promise<Task> {
  for (let i = 0; i < 60; i++) {
    if ((await env.app.tasks.queries.detail({ userId, sessionId: 'e2e', roles: ['user'] as const }, 'training', task.id)).state === state) return task;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${task.name} did not reach ${state}`);
}

/** A task whose program exits 3. */
const failingTask = async () => reaches(await trainingTask('读不到数据的训练', 'echo "找不到数据文件 data/train.csv" >&2; exit 3'), 'FAILED');

/** A task stopped by its user while it ran (the program was killed: no exit code of its own). */
async function stoppedTask(): Promise<Task> {
  const task = await reaches(await trainingTask('中途停止的训练', 'echo 开始训练; sleep 600'), 'RUNNING');
  await env.app.tasks.service.stop({ userId, sessionId: 'e2e', roles: ['user'] as const }, 'training', task.id);
  return reaches(task, 'STOPPED');
}

/** Settled, fits the width, reads Chinese; then the screenshot. */
async function looked(name: string, route: string, allow: string[] = []) {
  await page.waitForLoadState('networkidle');
  await settled(page).catch(() => undefined);
  await noHorizontalScroll(page);
  expect(describeLeaks(route, await englishLeaks(page, allow))).toEqual([]);
  await env.shot(page, name);
}

describe('a new user on the embedded default', () => {
  for (const width of WIDTHS) {
    it(`镜像 without a registry at ${width} px: not offered, said in Chinese, the entry disabled, a way back`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/console/image?tab=mine');
      const note = page.getByTestId('image-no-registry');
      await expect.poll(() => note.textContent()).toContain('本平台暂未提供私有镜像');
      expect(await page.locator('body').innerText()).not.toMatch(/REGISTRY|[A-Z]+_[A-Z]+/);
      expect(await page.getByTestId('image-push-open').isDisabled()).toBe(true);
      await looked(`newuser-image-${width}`, '/image?tab=mine');

      // Someone who reaches the push page anyway (a bookmark, an old link) is told the same and led back.
      await page.goto('/console/image/form');
      await expect.poll(() => page.getByTestId('image-no-registry').textContent()).toContain('本平台暂未提供私有镜像');
      expect(await page.locator('body').innerText()).not.toMatch(/REGISTRY|[A-Z]+_[A-Z]+/);
      await looked(`newuser-image-form-${width}`, '/image/form');
      await page.getByTestId('image-form-back').click();
      await page.waitForURL('**/console/image');
      await page.getByTestId('image-public').waitFor();
    });
  }

  for (const width of WIDTHS) {
    it(`at ${width} px a message's title opens the task it is about, whose failure offers a work order about it`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/console/message');
      // The task's own notice (运行失败), as the task module sent it.
      const title = page.getByTestId('msg-title-link').filter({ hasText: failed.name });
      await title.first().waitFor();
      await looked(`newuser-messages-${width}`, '/message');
      await title.first().click();
      await page.waitForURL(`**/console/training/detail/train/${failed.id}`);
      await page.getByTestId('training-detail-help').waitFor();
      // The command is the user's own (shown as typed).
      await looked(`newuser-failed-task-${width}`, '/training/detail (failed)', ['echo', 'exit']);

      await page.getByTestId('training-detail-help-link').click();
      await page.waitForURL('**/console/workorder');
      await page.getByTestId('wo-create-form').waitFor();
      await expect.poll(() => page.getByTestId('wo-type').textContent()).toContain('任务问题');
      await expect.poll(() => page.getByTestId('wo-task').textContent()).toContain(failed.name);
      await looked(`newuser-workorder-from-task-${width}`, '/workorder (from a failed task)');
    });

    it(`at ${width} px the payment page links 工单系统, and 资源概览 / 资源大屏 are in the menu`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/console/pay');
      await page.getByTestId('pay-help').waitFor();
      await looked(`newuser-pay-${width}`, '/pay');
      await page.getByTestId('pay-help-link').click();
      await page.waitForURL('**/console/workorder');
      await expect.poll(() => page.getByTestId('wo-type').textContent()).toContain('费用问题');

      await page.goto('/console/storage');
      await page.getByTestId('storage-table').waitFor();
      if (width < 768) {
        await page.getByTestId('top-menu-toggle').click();
        await page.getByTestId('top-menu-drawer').locator('.ant-menu-submenu-title', { hasText: '算力资源' }).click();
        await page.getByTestId('top-menu-drawer').getByTestId('menu-dashboard').click();
      } else {
        await page.getByTestId('top-menu').locator('.ant-menu-submenu-title', { hasText: '算力资源' }).hover();
        await page.locator('.ant-menu-submenu-popup:visible [data-testid="menu-dashboard"]').click();
      }
      await page.waitForURL('**/console/resource/dashboard');
      for (const chart of ['dash-util', 'dash-vendors', 'dash-card-hours']) await page.locator(`[data-testid="${chart}"][data-drawn="yes"]`).waitFor();
      await page.mouse.move(0, 600);
      await looked(`newuser-dashboard-${width}`, '/resource/dashboard');
    });
  }

  for (const width of WIDTHS) {
    it(`at ${width} px the words agree with the menu and name things as a user knows them`, async () => {
      await page.setViewportSize({ width, height: 900 });

      // The hall: a model tagged numpy with framework numpy shows numpy once; the owner is 算力平台.
      await page.goto('/console/public-data/model');
      const card = page.getByTestId('asset-card').filter({ hasText: '螺旋分类 MLP' });
      await card.waitFor();
      expect(await card.locator('.ant-tag').filter({ hasText: /^numpy$/i }).count()).toBe(1);
      await looked(`newuser-hall-models-${width}`, '/public-data/model');
      await page.goto('/console/public-data/dataset');
      await page.getByTestId('asset-card-name').filter({ hasText: '正弦回归数据' }).click();
      await page.getByTestId('asset-add-to-mine').waitFor();
      expect(await page.locator('.ant-descriptions').first().innerText()).toContain('算力平台');
      expect(await page.locator('body').innerText()).not.toContain('platform');
      // 添加到我的 says it is done, at once and on the next visit.
      if ((await page.getByTestId('asset-add-to-mine').getAttribute('data-added')) === 'false') {
        await page.getByTestId('asset-add-to-mine').click();
      }
      await expect.poll(() => page.getByTestId('asset-add-to-mine').getAttribute('data-added')).toBe('true');
      await page.reload();
      await expect.poll(() => page.getByTestId('asset-add-to-mine').textContent()).toContain('已添加到我的');
      expect(await page.getByTestId('asset-add-to-mine').isDisabled()).toBe(true);
      // The seed's description is its author's text (a formula).
      await looked(`newuser-hall-detail-${width}`, '/public-data/detail', ['sin']);

      // Vendors in Chinese.
      await page.goto('/console/image');
      await page.getByTestId('image-public').locator('.ant-table-row').first().waitFor();
      const images = await page.getByTestId('image-public').innerText();
      expect(images).toContain('华为');
      expect(images).toContain('海光');
      expect(images).not.toMatch(/Huawei|Hygon/);

      // 费用中心 › 费用明细 opens a page titled 费用明细.
      await page.goto('/console/expense');
      await expect.poll(() => page.locator('h4').first().textContent()).toBe('费用明细');
      await looked(`newuser-expense-${width}`, '/expense');

      // Shell工具 says where the terminal runs, not 嵌入式默认.
      await page.goto('/console/slurm-template/eshell');
      const local = page.getByTestId('eshell-local-note');
      await expect.poll(() => local.textContent()).toContain('平台所在的服务器');
      expect(await page.locator('body').innerText()).not.toContain('嵌入式');
      await looked(`newuser-eshell-${width}`, '/slurm-template/eshell', ['echo', 'exit', 'sleep']);

      // A stopped task shows no exit code (it was killed; 0 read as success).
      await page.goto(`/console/training/detail/train/${stopped.id}`);
      await expect.poll(() => page.getByTestId('training-detail-state').getAttribute('data-state')).toBe('STOPPED');
      expect(await page.getByTestId('training-detail-exit-code').textContent()).toBe('—');
      await looked(`newuser-stopped-task-${width}`, '/training/detail (stopped)', ['echo', 'sleep']);

      // 团队管理: a new user has no team yet and is offered 创建团队.
      await page.goto('/console/team');
      await page.getByText('您还没有加入任何团队').waitFor();
      await page.getByTestId('team-create').waitFor();
      await looked(`newuser-team-${width}`, '/team');
    });
  }
});
