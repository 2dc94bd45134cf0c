/**
 * Issue 23 acceptance 4 — why a job failed, in a real Chromium against the real gateway on the local executor
 * (the embedded default): a script that allocates past its `#SBATCH --mem` is killed and its detail says
 * why (内存超出限制, the peak against the request, the suggestion); 按建议重新提交 makes a new task with more
 * memory that succeeds and shows its 资源使用效率; three training runs of a learning-rate sweep picked in the
 * list open 任务对比 with their curves overlaid and the parameters they differ in highlighted; the failed script
 * and its resubmission compared in 任务管理 the same way. Screenshots at 1440 and 375: e2e/artifacts/diagnosis-*.png.
 */
import { SLURM_BASE, TRAINING_BASE, type Task, type TaskDetail } from '@suanli/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../apps/server/test/users';
import { createUser, userPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, readingShot, speaksChinese } from './support/page';

// Grows by 20 MiB every 0.1 s up to 400 MiB (bytearray zero-fills, so it is resident), then ends 0.
const GROW = [
  'echo "加载数据"',
  'python3 -c "',
  'import time',
  'b = []',
  'for i in range(20):',
  '    b.append(bytearray(20 << 20))',
  "    print('chunk', i, flush=True)",
  '    time.sleep(0.1)',
  "print('grown')",
  '"',
].join('\n');

/** A run of the sweep: `steps` points of loss (and acc) falling at the rate `lr`. */
const sweepRun = (lr: string, steps: number, tail = '') =>
  [
    `for s in $(seq 1 ${steps}); do`,
    `  echo "{\\"step\\":$s,\\"loss\\":$(awk "BEGIN{printf \\"%.4f\\", 2.3/(1+$s*${lr})}"),\\"acc\\":$(awk "BEGIN{printf \\"%.4f\\", 1-0.9/(1+$s*${lr})}")}" >> "$SUANLI_METRICS_FILE"`,
    'done',
    `echo "训练结束 lr=${lr}"`,
    tail,
  ].join('\n');

let env: E2eEnv;
let token: string;
let username: string;
let password: string;

beforeAll(async () => {
  env = await startE2e();
  const u = await createUser(env);
  ({ token, password } = u);
  username = u.user.username;
});
afterAll(() => env?.close());

async function settle(base: string, id: string): Promise<TaskDetail> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const d = (await call<TaskDetail>(env.app, 'GET', `${base}/tasks/${id}`, { token })).data;
    if (['SUCCEEDED', 'FAILED', 'STOPPED', 'SUBMIT_FAILED'].includes(d.state)) return d;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${d.state}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Both widths of a page: 1440 then 375 (no sideways scrolling, still Chinese), back to 1440. */
async function bothWidths(page: Page, name: string, ready: () => Promise<unknown>) {
  await ready();
  await speaksChinese(page, name);
  await readingShot(env, page, `diagnosis-${name}-1440`);
  await page.setViewportSize({ width: 375, height: 812 });
  await ready();
  await noHorizontalScroll(page);
  await speaksChinese(page, `${name} 375`);
  await readingShot(env, page, `diagnosis-${name}-375`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('why did my job fail (issue 23)', () => {
  it('a job over its #SBATCH --mem: the diagnosis, 按建议重新提交, the new task succeeds with its efficiency card', async () => {
    const created = await call<Task>(env.app, 'POST', `${SLURM_BASE}/tasks`, {
      token,
      payload: { name: '特征提取（内存不足）', type: 'custom', script: `#!/bin/bash\n#SBATCH --mem=80M\n${GROW}\n`, subCenterId: 'sz-a100', cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1, workDir: '/', env: [], maxDurationMinutes: 10 },
    });
    expect(created.message.code, created.message.message).toBe(0);
    const failed = await settle(SLURM_BASE, created.data.id);
    expect(failed.state).toBe('FAILED');

    const page = await userPage(env, username, password);
    await page.goto(`/console/slurm-task/detail/custom/${failed.id}`);
    const card = page.getByTestId('slurm-diagnosis');
    await card.waitFor();
    expect(await page.getByTestId('slurm-diagnosis-title').textContent()).toBe('内存超出限制，作业被系统终止');
    const evidence = (await page.getByTestId('slurm-diagnosis-evidence').textContent()) ?? '';
    expect(evidence).toMatch(/内存峰值 \d+ MiB，申请 80 MiB/);
    expect(evidence).toContain('作业因内存超出申请量被终止（内存不足）');
    expect(await card.textContent()).toContain('将创建一个新任务：内存 1 GiB');
    await bothWidths(page, 'memory-failed', () => card.waitFor());

    await page.getByTestId('slurm-diagnosis-apply').click();
    await page.waitForURL((u) => /\/slurm-task\/detail\/custom\//.test(u.pathname) && !u.pathname.endsWith(failed.id), { waitUntil: 'commit' });
    const state = page.getByTestId('slurm-detail-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 60_000 }).toBe('SUCCEEDED');
    const efficiency = page.getByTestId('slurm-efficiency');
    await efficiency.waitFor();
    expect(await page.getByTestId('slurm-efficiency-mem').textContent()).toMatch(/GiB/);
    expect(await efficiency.textContent()).toContain('该分中心未上报加速卡使用情况');
    // A short job's CPU time in tenths of a second, not 0秒 beside a non-zero efficiency.
    expect(await page.getByTestId('slurm-efficiency-cpu').textContent()).toMatch(/^\d+%（CPU 时间 \d\.\d秒，1 核）$/);
    expect(await page.getByTestId('slurm-diagnosis').count()).toBe(0);
    // The new task links the one it was resubmitted from (原任务).
    expect(await page.getByTestId('slurm-detail-original').textContent()).toContain('特征提取（内存不足）');
    const newId = page.url().split('/').pop()!;
    const again = (await call<TaskDetail>(env.app, 'GET', `${SLURM_BASE}/tasks/${newId}`, { token })).data;
    expect(again.command).toContain('#SBATCH --mem=1024M');
    expect(again.efficiency?.maxRssMB).toBeGreaterThan(300);
    await bothWidths(page, 'resubmitted-efficiency', () => efficiency.waitFor());

    // The failed script and its resubmission side by side in 任务管理 › 对比: the --mem line is what differs.
    await page.goto('/console/slurm-task');
    await expect.poll(() => page.getByTestId('slurm-row').count(), { timeout: 15_000 }).toBe(2);
    for (const id of [failed.id, newId]) await page.locator(`[data-testid="slurm-row"][data-id="${id}"] .ant-checkbox-input`).check();
    await page.getByTestId('slurm-compare').click();
    await page.waitForURL(/\/console\/slurm-task\/compare\?ids=/, { waitUntil: 'commit' });
    const scripts = page.locator('[data-testid="compare-row"][data-key="command"]');
    await scripts.waitFor();
    expect(await scripts.getAttribute('data-differs')).toBe('true');
    expect(await scripts.textContent()).toContain('#SBATCH --mem=1024M');
    expect(await page.locator('[data-testid="compare-row"][data-key="result"]').textContent()).toMatch(/运行失败，退出码 137.*运行成功，退出码 0/);
    await bothWidths(page, 'slurm-compare', () => scripts.waitFor());
  }, 180_000);

  it('three runs of a sweep picked in the list: 任务对比 overlays their curves and highlights what differs', async () => {
    const runs: Task[] = [];
    for (const [lr, steps, cards, tail] of [
      ['0.05', 30, 1, ''],
      ['0.2', 30, 1, ''],
      ['0.8', 18, 2, 'echo "RuntimeError: loss is nan" >&2; exit 1'],
    ] as const) {
      const made = await call<Task>(env.app, 'POST', `${TRAINING_BASE}/tasks`, {
        token,
        payload: {
          name: `图像分类 学习率 ${lr}`,
          type: 'train',
          subCenterId: 'sz-a100',
          cardTypeId: 'a100-80g',
          cardNum: cards,
          nodeNum: 1,
          imageId: 'pytorch-2.3-cuda12',
          command: sweepRun(lr, steps, tail),
          workDir: '/',
          env: [
            { name: 'EPOCHS', value: '30' },
            { name: 'LR', value: lr },
          ],
          maxDurationMinutes: 30,
        },
      });
      expect(made.message.code, made.message.message).toBe(0);
      runs.push(made.data);
    }
    for (const r of runs) await settle(TRAINING_BASE, r.id);

    const page = await userPage(env, username, password);
    await page.goto('/console/training');
    const rows = page.getByTestId('training-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
    // Picked oldest first, as a person reading down the sweep from 0.05 would expect the columns.
    for (const r of runs) await page.locator(`[data-testid="training-row"][data-id="${r.id}"] .ant-checkbox-input`).check();
    const compare = page.getByTestId('training-compare');
    expect(await compare.textContent()).toContain('对比（3）');
    await compare.click();
    await page.waitForURL(/\/console\/training\/compare\?ids=/, { waitUntil: 'commit' });

    const view = page.getByTestId('compare-page');
    await view.waitFor();
    expect(await view.getAttribute('data-count')).toBe('3');
    const charts = page.getByTestId('compare-chart');
    await expect.poll(() => charts.count()).toBe(2);
    expect(await charts.nth(0).getAttribute('data-metric')).toBe('loss');
    expect(await charts.nth(0).getAttribute('data-runs')).toBe('1,2,3');
    expect(await page.getByTestId('compare-legend').textContent()).toBe('1. 图像分类 学习率 0.052. 图像分类 学习率 0.23. 图像分类 学习率 0.8');
    // The lines are drawn (ECharts' SVG): one path per run at least in each chart.
    await expect.poll(() => charts.nth(0).locator('svg path').count(), { timeout: 10_000 }).toBeGreaterThan(3);
    const row = (key: string) => page.locator(`[data-testid="compare-row"][data-key="${key}"]`);
    for (const key of ['result', 'cards', 'env', 'command']) expect(await row(key).getAttribute('data-differs'), key).toBe('true');
    for (const key of ['image', 'center', 'maxDuration']) expect(await row(key).getAttribute('data-differs'), key).toBe('false');
    expect(await row('result').textContent()).toContain('运行失败，退出码 1');
    expect(await row('env').locator('mark').allTextContents()).toEqual(['LR=0.05', 'LR=0.2', 'LR=0.8']);
    await bothWidths(page, 'compare', () => view.waitFor());

    await page.getByTestId('compare-only-diff').click();
    await expect.poll(() => page.locator('[data-testid="compare-row"][data-differs="false"]').count()).toBe(0);
    await readingShot(env, page, 'diagnosis-compare-only-diff-1440');
  }, 180_000);
});
