/**
 * Issue 9, acceptance criterion 6 — compute in a real Chromium against the real gateway on the local executor
 * (the embedded default): a train task created with 智能调度 through the form goes live to 运行成功 in the list
 * and the detail without a reload, with its log and training curve; a running task is stopped → 已停止; a
 * Slurm task from a platform template shows its output. Screenshots at desktop and phone widths.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, userPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';

/** Opens an antd Select and picks the visible option whose text matches. */
async function pick(page: Page, testId: string, text: RegExp | string) {
  await page.getByTestId(testId).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click();
}

describe('compute journeys', () => {
  let env: E2eEnv;
  let username: string;
  let password: string;
  let userId: string;

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    username = u.user.username;
    password = u.password;
    userId = u.user.id;
    // The work the user brings: a training script in their home on the A100 center (as an upload would put it).
    const acc = await env.app.ctx.clusterAccounts.ensure(userId, 'sz-a100');
    const work = path.join(acc.homeDir, 'mnist');
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(
      path.join(work, 'train.sh'),
      [
        'echo "开始训练 on GPU $CUDA_VISIBLE_DEVICES"',
        'for s in $(seq 1 12); do',
        '  echo "step $s"',
        '  echo "{\\"step\\":$s,\\"loss\\":0.$(printf %03d $((1000 - s * 70))),\\"acc\\":0.$((50 + s * 4))}" >> "$SUANLI_METRICS_FILE"',
        '  sleep 0.3',
        'done',
        'echo "训练完成"',
      ].join('\n'),
    );
  });
  afterAll(() => env?.close());

  it('a train task placed by 智能调度 goes live to 运行成功 with its log and training curve', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/training');
    await page.getByTestId('training-create').click();
    await page.waitForURL(/\/console\/training\/task\/train/, { waitUntil: 'commit' });

    await page.getByTestId('training-form-name').fill('MNIST 示例训练');
    // 智能调度 is the default center; pick the card type.
    await pick(page, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(page, 'training-form-image', /PyTorch 2.3/);
    await page.getByTestId('training-form-command').fill('bash train.sh');
    await page.getByTestId('training-form-workdir').fill('/mnist');
    await expect.poll(() => page.getByTestId('training-placement-center').textContent()).toContain('深圳算力分中心');
    expect(await page.getByTestId('training-placement-reason').textContent()).toContain('空闲');
    await env.shot(page, 'training-01-form-auto-placement');
    await page.getByTestId('training-form-submit').click();
    await page.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });

    // Live: no reload from here on.
    const state = page.getByTestId('training-detail-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('SUCCEEDED');
    expect(await state.textContent()).toContain('运行成功');
    await expect.poll(() => page.getByTestId('training-log').textContent(), { timeout: 15_000 }).toContain('训练完成');
    await expect.poll(() => page.getByTestId('training-chart').getAttribute('data-points'), { timeout: 15_000 }).toBe('12');
    expect(await page.getByTestId('training-chart').getAttribute('data-series')).toContain('loss');
    const events = await page.getByTestId('training-event').evaluateAll((els) => els.map((e) => e.getAttribute('data-state')));
    expect(events[0]).toBe('CREATED');
    expect(events.at(-1)).toBe('SUCCEEDED');
    await env.shot(page, 'training-02-detail-succeeded');

    await page.goto('/console/training');
    const row = page.getByTestId('training-row').first();
    expect(await row.getAttribute('data-state')).toBe('SUCCEEDED');
    await env.shot(page, 'training-03-list');
    await page.setViewportSize({ width: 375, height: 812 });
    // A phone never scrolls the page sideways (the table scrolls inside its card).
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await env.shot(page, 'training-04-list-375');
  });

  it('a running task is stopped → 已停止, the list follows without a reload', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/training/task/train');
    await page.getByTestId('training-form-name').fill('长时间任务');
    await pick(page, 'training-form-center', '深圳算力分中心');
    await pick(page, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(page, 'training-form-image', /PyTorch 2.3/);
    await page.getByTestId('training-form-command').fill('echo 运行中; sleep 300');
    await page.getByTestId('training-form-workdir').fill('/mnist');
    await page.getByTestId('training-form-submit').click();
    await page.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });
    await page.goto('/console/training');
    const row = page.getByTestId('training-row').filter({ hasText: '长时间任务' }).first();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 20_000 }).toBe('RUNNING');
    await row.getByTestId('training-stop').click();
    await page.getByRole('button', { name: /确\s*定|停\s*止/ }).last().click();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 20_000 }).toBe('STOPPED');
    expect(await row.getByTestId('training-state').textContent()).toContain('已停止');
    await env.shot(page, 'training-05-stopped');
  });

  it('a task without 工作目录 gets a folder of its own: its files land there, and 文件管理 opens it (issue 22)', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/training/task/train');
    await page.getByTestId('training-form-name').fill('文件夹示例');
    await pick(page, 'training-form-center', '深圳算力分中心');
    await pick(page, 'training-form-card-type', /NVIDIA A100 80G/);
    await pick(page, 'training-form-image', /PyTorch 2.3/);
    await page.getByTestId('training-form-command').fill('echo 结果 > result.txt');
    // Left empty: the field says what the task gets instead.
    const workdir = page.getByTestId('training-form-workdir');
    expect(await workdir.inputValue()).toBe('');
    expect(await workdir.getAttribute('placeholder')).toBe('留空则新建本任务自己的目录 /tasks/<名称>-<编号>');
    await workdir.scrollIntoViewIfNeeded();
    // The pointer off the top menu, so the shot shows the form and not a hovered submenu.
    await page.mouse.move(700, 860);
    await env.shot(page, 'training-06-form-workdir-empty');
    await page.getByTestId('training-form-submit').click();
    await page.waitForURL(/\/console\/training\/detail\/train\//, { waitUntil: 'commit' });
    const taskId = page.url().split('/').at(-1)!;
    await expect.poll(() => page.getByTestId('training-detail-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('SUCCEEDED');
    const folder = `/tasks/文件夹示例-${taskId}`;
    const info = page.getByTestId('training-detail-info');
    expect(await info.textContent()).toContain(folder);

    // On disk: everything of the task in its folder, nothing new in the home's root.
    const home = (await env.app.ctx.clusterAccounts.ensure(userId, 'sz-a100')).homeDir;
    expect(fs.readFileSync(path.join(home, folder, 'result.txt'), 'utf8')).toBe('结果\n');
    expect(fs.existsSync(path.join(home, folder, `suanli-${taskId}.log`))).toBe(true);
    expect(fs.existsSync(path.join(home, 'result.txt'))).toBe(false);
    expect(fs.readdirSync(home).filter((n) => n.startsWith('suanli-'))).toEqual([]);
    await page.getByTestId('training-detail-workdir-open').scrollIntoViewIfNeeded();
    await env.shot(page, 'training-07-detail-workdir');

    await page.getByTestId('training-detail-workdir-open').click();
    await page.waitForURL(/\/console\/storage\?/, { waitUntil: 'commit' });
    const table = page.getByTestId('storage-table');
    // The table lists the task's folder: its output and its log.
    const inFolder = fs.readdirSync(path.join(home, folder)).sort();
    expect(inFolder).toEqual(expect.arrayContaining(['result.txt', `suanli-${taskId}.log`]));
    await expect.poll(() => table.locator('[data-testid="storage-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')).sort()), { timeout: 15_000 }).toEqual(inFolder);
    expect(await page.getByTestId('storage-breadcrumb').textContent()).toContain(`文件夹示例-${taskId}`);
    await env.shot(page, 'training-08-storage-task-folder');
    await page.setViewportSize({ width: 375, height: 812 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await env.shot(page, 'training-08-storage-task-folder-375');
    await page.goBack();
    await expect.poll(() => page.getByTestId('training-detail-info').textContent(), { timeout: 15_000 }).toContain(folder);
    await page.getByTestId('training-detail-workdir-open').scrollIntoViewIfNeeded();
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await env.shot(page, 'training-07-detail-workdir-375');
  });
});
