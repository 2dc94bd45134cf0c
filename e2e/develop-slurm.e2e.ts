/**
 * Issue 10, criterion 3 in Chromium on a real Slurm cluster: a develop task made through the training form
 * on a harness cluster (apps/server/test/slurm-harness.ts: slurmctld, slurmd, slurmdbd, slurmrestd on
 * loopback, real Linux cluster accounts) runs Debian's Jupyter Notebook as a Slurm job of the user's cluster
 * account; 打开 on its detail page lands in Jupyter through the gateway's proxy on the task's own origin with a clean URL; a new
 * notebook's cell `print(2+2)` shows 4 and is saved in the account's home; another signed-in user, a browser
 * that never signed in and a session that signed out are refused with the Chinese 403 page; 停止 cancels the
 * job (sacct), Jupyter no longer listens on its node and the proxy answers 开发环境已停止. Screenshots `develop-slurm-*.png` at 1440 and 375 px.
 * Issue 23, acceptance 1 in the console on the same cluster: a script past its `--mem` is killed by Slurm, its
 * detail names the cause from Slurm's accounting (峰值 against 申请, OUT_OF_MEMORY), and 按建议重新提交 runs it
 * again with the suggested memory to success (`diagnosis-slurm-*.png`).
 *
 * Needs root, Slurm and MariaDB like the server-slurm tier (scripts/test.mjs checks them before the e2e tier):
 * without them the harness fails the file with the reason, it is never skipped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEVELOP_JUPYTER_COMMAND, SLURM_BASE, taskFolder, TRAINING_BASE, type Task, type TaskDetail } from '@suanli/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlurmHarness, stopSlurmHarness, type SlurmClusterInfo, type SlurmHarness } from '../apps/server/test/slurm-harness';
import { writeSlurmCentersFile } from '../apps/server/test/slurm-centers';
import { call } from '../apps/server/test/users';
import { createUser, signIn } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled, speaksChinese } from './support/page';

/** A path on a task's IDE origin (its own host, never the console's: issue 17; `*.localhost` is loopback). */
const ideUrl = (env: E2eEnv, id: string, p: string) => `http://${id}.ide.localhost:${new URL(env.baseUrl).port}${p}`;

/** The Slurm CLI against the harness cluster (its own slurm.conf and munge socket). */
function slurm(c: SlurmClusterInfo, cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { env: { ...process.env, SLURM_CONF: c.slurmConf }, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

/** Does something accept TCP connections at host:port? */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port }, () => {
      s.destroy();
      resolve(true);
    });
    s.setTimeout(3_000, () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(false));
  });
}

/** Opens an antd Select and picks the option whose text matches, again until the select shows it (a click can land mid-animation under load). */
async function pick(page: Page, testId: string, text: RegExp) {
  const select = page.getByTestId(testId);
  await expect
    .poll(
      async () => {
        if (text.test((await select.textContent()) ?? '')) return true;
        await select.click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: text }).first().click({ timeout: 5_000 }).catch(() => undefined);
        return text.test((await select.textContent()) ?? '');
      },
      { timeout: 30_000, interval: 600 },
    )
    .toBe(true);
}

/**
 * 打开 → the tab the console opens, followed to Jupyter's file tree. Jupyter can still be starting inside the
 * job when its address is known: the proxy's page then says 正在启动…请稍后刷新本页, and the tab is refreshed
 * the way a person would.
 */
async function openJupyter(context: BrowserContext, page: Page, id: string): Promise<Page> {
  const origin = new RegExp(`^http://${id}\\.ide\\.localhost:\\d+/`);
  const open = page.getByTestId('training-detail-open-ide');
  await settled(page);
  const [tab] = await Promise.all([context.waitForEvent('page'), open.click()]);
  await tab.waitForURL(origin, { timeout: 60_000, waitUntil: 'commit' });
  await expect
    .poll(
      async () => {
        if (/\/tree/.test(tab.url()) && (await tab.locator('#notebook_list').count()) > 0) return 'tree';
        const text = (await tab.textContent('body').catch(() => '')) ?? '';
        if (text.includes('正在启动')) await tab.reload({ waitUntil: 'commit' }).catch(() => undefined);
        return tab.url();
      },
      { timeout: 120_000, interval: 2_000 },
    )
    .toBe('tree');
  await tab.waitForFunction(() => document.body.innerText.includes('Files'), undefined, { timeout: 60_000 });
  return tab;
}

describe('development environment on Slurm', () => {
  let harness: SlurmHarness | undefined;
  let cluster: SlurmClusterInfo;
  let dir: string;
  let env: E2eEnv;
  let owner: { username: string; password: string; id: string; token: string };

  beforeAll(async () => {
    // One cluster is all this journey needs: the second one's daemons would only load the machine.
    harness = await startSlurmHarness({ clusters: ['a'] });
    cluster = harness.clusters[0];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-develop-slurm-'));
    env = await startE2e({ centersFile: writeSlurmCentersFile(harness, dir) });
    const u = await createUser(env);
    owner = { username: u.user.username, password: u.password, id: u.user.id, token: u.token };
  });
  afterAll(async () => {
    await env?.close();
    if (harness) stopSlurmHarness(harness);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a Jupyter task made in the form runs on Slurm; 打开 → a cell prints 4; others and signed-out sessions are refused; 停止 ends it', async () => {
    const { context, page } = await env.newPage();
    try {
      await signIn(page, owner.username, owner.password);

      // ── The form: 交互式开发 on 测试集群甲, the default Jupyter command ──
      await page.goto('/console/training/develop');
      await page.getByTestId('training-create').click();
      await page.waitForURL(/\/console\/training\/task\/develop/, { waitUntil: 'commit' });
      await page.getByTestId('training-form-name').fill('Slurm 上的 Notebook');
      await pick(page, 'training-form-center', /^测试集群甲$/);
      await pick(page, 'training-form-card-type', /NVIDIA A100 80G/);
      // The real cluster's free cards (sinfo: two fake A100s, none in use).
      expect(await page.getByTestId('training-form-card-type').textContent()).toContain('空闲 2/2');
      await pick(page, 'training-form-image', /PyTorch 2\.3/);
      expect(await page.getByTestId('training-form-command').inputValue()).toBe(DEVELOP_JUPYTER_COMMAND);
      const duration = page.getByTestId('training-form-duration');
      await ((await duration.evaluate((e) => e.tagName)) === 'INPUT' ? duration : duration.locator('input')).fill('30');
      // The page scrolled down to the last field; a full-page shot of it would draw the fixed header mid-page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await settled(page);
      await env.shot(page, 'develop-slurm-form-1440');
      await page.getByTestId('training-form-submit').click();
      await page.waitForURL(/\/console\/training\/detail\/develop\/[^/?]+$/, { timeout: 30_000 });
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);

      // ── 运行中, as a job of the user's cluster account on the Slurm cluster ──
      const state = page.getByTestId('training-detail-state');
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 120_000, interval: 500 }).toBe('RUNNING');
      expect(await state.textContent()).toBe('运行中');
      const task = (await call<TaskDetail>(env.app, 'GET', `${TRAINING_BASE}/tasks/${id}`, { token: owner.token })).data;
      expect(task.subCenterId).toBe(`slurm-${cluster.id}`);
      expect(task.jobId).toMatch(/^\d+$/);
      const account = (await env.app.ctx.clusterAccounts.list(owner.id, `slurm-${cluster.id}`))[0].account;
      expect(slurm(cluster, 'squeue', ['-h', '-j', String(task.jobId), '-o', '%T %u'])).toBe(`RUNNING ${account}`);
      // The page names the same job: 作业ID, and the SSH card's `srun --jobid`.
      await expect.poll(() => page.getByTestId('training-detail-info').textContent(), { timeout: 15_000 }).toContain(String(task.jobId));
      await expect.poll(() => page.getByTestId('training-detail-ssh-command').textContent(), { timeout: 30_000 }).toContain(`srun --jobid=${task.jobId}`);
      expect(await page.getByTestId('training-detail-ssh').textContent()).toContain(`以集群账号 ${account} 登录测试集群甲的登录节点`);

      // 打开 works once the job has reported its IDE's address (2011 before).
      await page.getByTestId('training-detail-open-ide').waitFor({ timeout: 30_000 });
      await expect
        .poll(async () => (await call(env.app, 'POST', `${TRAINING_BASE}/tasks/${id}/ide-ticket`, { token: owner.token })).message.code, { timeout: 90_000, interval: 1_000 })
        .toBe(0);
      // Where the job's Jupyter listens: the node Slurm allocated (its NodeAddr, as the poller stored it) and
      // the port from the endpoint file the job wrote next to its log, in the account's home.
      const { exec_host: ideHost } = await env.app.ctx.db.selectFrom('tasks').select('exec_host').where('id', '=', id).executeTakeFirstOrThrow();
      expect(ideHost).toBe('127.0.0.1');
      const [idePort] = fs.readFileSync(path.join(cluster.storageRoot, 'home', account, task.logPath.replace(/\.log$/, '.endpoint')), 'utf8').trim().split(' ');
      await expect.poll(() => listening(ideHost!, Number(idePort)), { timeout: 90_000, interval: 1_000 }).toBe(true);
      await settled(page);
      await env.shot(page, 'develop-slurm-detail-1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await settled(page);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
      expect(scrollWidth, `the detail page scrolls sideways at 375 px (${scrollWidth})`).toBeLessThanOrEqual(innerWidth);
      await env.shot(page, 'develop-slurm-detail-375');
      await page.setViewportSize({ width: 1440, height: 900 });

      // ── 打开: Jupyter through the proxy, a clean URL ──
      const tree = await openJupyter(context, page, id);
      expect(tree.url()).not.toContain('ticket=');

      // A new notebook from Jupyter's own New menu (it opens in a tab of its own), a cell run in its UI.
      await tree.locator('#new-dropdown-button').click();
      const [nb] = await Promise.all([context.waitForEvent('page'), tree.locator('#new-menu li[id^="kernel-"] a').first().click()]);
      await nb.waitForURL(new RegExp(`^http://${id}\\.ide\\.localhost:\\d+/notebooks/[^/?]+\\.ipynb`), { timeout: 60_000 });
      expect(nb.url()).not.toContain('ticket=');
      const notebook = decodeURIComponent(new URL(nb.url()).pathname.split('/').at(-1)!);
      await nb.locator('.CodeMirror').first().waitFor({ timeout: 60_000 });
      await nb.waitForFunction(
        () => (window as unknown as { Jupyter?: { notebook?: { kernel?: { is_connected(): boolean } } } }).Jupyter?.notebook?.kernel?.is_connected() === true,
        undefined,
        { timeout: 90_000 },
      );
      await nb.locator('.CodeMirror').first().click();
      await nb.keyboard.type('print(2+2)');
      await nb.keyboard.press('Shift+Enter');
      await expect.poll(() => nb.locator('.output_area .output_text').first().textContent(), { timeout: 60_000 }).toContain('4');
      await nb.keyboard.press('Control+s');
      await env.shot(nb, 'develop-slurm-jupyter-1440');
      // Saved by the job, as the account, in the task's own folder of its home on the cluster's storage (the form
      // left 工作目录 empty: Jupyter runs in /tasks/<name>-<id>, issue 22).
      const saved = path.join(cluster.storageRoot, 'home', account, taskFolder('Slurm 上的 Notebook', id), notebook);
      await expect
        .poll(() => {
          try {
            const doc = JSON.parse(fs.readFileSync(saved, 'utf8')) as { cells: { source: string | string[]; outputs?: { text?: string | string[] }[] }[] };
            const cell = doc.cells[0];
            return { source: [cell.source].flat().join(''), output: [cell.outputs?.[0]?.text ?? ''].flat().join('') };
          } catch {
            return null;
          }
        }, { timeout: 30_000, interval: 500 })
        .toEqual({ source: 'print(2+2)', output: '4\n' });
      expect(fs.statSync(saved).uid).toBe(cluster.accounts.uidStart + cluster.accounts.names.indexOf(account));
      await nb.close();

      // ── Refusals at the proxy ──
      // Another signed-in user.
      const other = await createUser(env);
      const two = await env.newPage();
      try {
        await signIn(two.page, other.user.username, other.password);
        const refused = await two.page.goto(ideUrl(env, id, '/tree'));
        expect(refused?.status()).toBe(403);
        expect(await two.page.textContent('body')).toContain('无权访问该开发环境');
        await env.shot(two.page, 'develop-slurm-other-user-403-1440');
      } finally {
        await two.context.close();
      }
      // A browser that never signed in.
      const anon = await env.newPage();
      try {
        const refused = await anon.page.goto(ideUrl(env, id, '/tree'));
        expect(refused?.status()).toBe(403);
        expect(await anon.page.textContent('body')).toContain('无权访问该开发环境');
      } finally {
        await anon.context.close();
      }
      // The owner in a second browser: Jupyter opens there too, until that session signs out.
      const three = await env.newPage();
      try {
        await signIn(three.page, owner.username, owner.password);
        await three.page.goto(`/console/training/detail/develop/${encodeURIComponent(id)}`);
        await three.page.getByTestId('training-detail-open-ide').waitFor({ timeout: 30_000 });
        const tab = await openJupyter(three.context, three.page, id);
        await settled(three.page);
        await three.page.getByTestId('header-avatar').click();
        // 退出登录 forgets the session locally and navigates first, then revokes the token (sign-out.ts): the
        // IDE refuses the session once the revocation has answered, not as soon as the sign-in page shows —
        // CI22 reloaded in between (200).
        const revoked = three.page.waitForResponse((r) => r.url().includes('/user/logout') && r.ok());
        await three.page.getByTestId('user-menu-logout').click();
        await three.page.waitForURL(/\/console\/login$/);
        await revoked;
        const refused = await tab.reload();
        expect(refused?.status()).toBe(403);
        expect(await tab.textContent('body')).toContain('无权访问该开发环境');
        await env.shot(tab, 'develop-slurm-signed-out-403-1440');
      } finally {
        await three.context.close();
      }
      // The first session was not touched by the other one signing out.
      expect((await tree.reload())?.status()).toBe(200);

      // ── 停止: the job is cancelled on the cluster, the proxy says the environment stopped ──
      await page.bringToFront();
      await settled(page);
      await page.getByTestId('training-detail-stop').click();
      // The header re-renders every second (running time), so the popover can keep re-aligning on a loaded
      // machine and never look "stable" to Playwright: wait until it shows, then click it.
      const confirmStop = page.locator('.ant-popconfirm .ant-btn-dangerous');
      await confirmStop.waitFor();
      // A DOM click: the popover may sit partly off screen while it re-aligns, which Playwright refuses even
      // with force.
      await confirmStop.dispatchEvent('click');
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 90_000, interval: 500 }).toBe('STOPPED');
      expect(await state.textContent()).toBe('已停止');
      await expect.poll(() => slurm(cluster, 'sacct', ['-n', '-X', '-P', '-j', String(task.jobId), '-o', 'State']), { timeout: 60_000, interval: 1_000 }).toMatch(/^CANCELLED/);
      // Jupyter itself is gone from the node, not only hidden by the proxy.
      await expect.poll(() => listening(ideHost!, Number(idePort)), { timeout: 60_000, interval: 1_000 }).toBe(false);
      const gone = await tree.goto(ideUrl(env, id, '/tree'));
      expect(gone?.status()).toBe(503);
      expect(await tree.textContent('body')).toContain('开发环境已停止');
      await env.shot(tree, 'develop-slurm-stopped-503-1440');
      await settled(page);
      await env.shot(page, 'develop-slurm-detail-stopped-1440');
    } finally {
      await context.close();
    }
  });

  it('a script past its --mem on Slurm: the detail says why from Slurm\'s accounting; 按建议重新提交 succeeds', async () => {
    // Grows to 400 MiB under --mem=60M: Slurm's memory watch kills it (OverMemoryKill on the harness).
    const grow = 'python3 -c "\nimport time\nb = []\nfor i in range(20):\n    b.append(bytearray(20 << 20))\n    time.sleep(0.1)\nprint(\'grown\')\n"';
    const made = await call<Task>(env.app, 'POST', `${SLURM_BASE}/tasks`, {
      token: owner.token,
      payload: { name: '特征提取（Slurm 内存不足）', type: 'custom', script: `#!/bin/bash\n#SBATCH --mem=60M\n${grow}\n`, subCenterId: `slurm-${cluster.id}`, cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, env: [], maxDurationMinutes: 5 },
    });
    expect(made.message.code, made.message.message).toBe(0);
    const { context, page } = await env.newPage();
    try {
      await signIn(page, owner.username, owner.password);
      await page.goto(`/console/slurm-task/detail/custom/${made.data.id}`);
      const card = page.getByTestId('slurm-diagnosis');
      await card.waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('slurm-diagnosis-title').textContent()).toBe('内存超出限制，作业被系统终止');
      const evidence = (await page.getByTestId('slurm-diagnosis-evidence').textContent()) ?? '';
      expect(evidence).toMatch(/内存峰值 \d+ MiB，申请 60 MiB/);
      expect(evidence).toContain('作业因内存超出申请量被终止（内存不足）');
      // Slurm ended it (FAILED, its memory watch's kill), and the peak shown is the MaxRSS of its accounting.
      const job = (await call<TaskDetail>(env.app, 'GET', `${SLURM_BASE}/tasks/${made.data.id}`, { token: owner.token })).data;
      const rows = slurm(cluster, 'sacct', ['-n', '-P', '-j', String(job.jobId), '-o', 'State,MaxRSS']).split('\n').map((l) => l.split('|'));
      expect(rows[0][0]).toBe('FAILED');
      const unit: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024 };
      const maxRss = Math.max(...rows.map(([, r]) => /^([\d.]+)([KMG])$/.exec(r)).filter((m) => m !== null).map((m) => Number(m[1]) * unit[m[2]]));
      expect(evidence).toContain(`内存峰值 ${Math.round(maxRss)} MiB`);
      await speaksChinese(page, 'Slurm 诊断');
      await settled(page);
      await env.shot(page, 'diagnosis-slurm-failed-1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await card.waitFor();
      await noHorizontalScroll(page);
      await settled(page);
      await env.shot(page, 'diagnosis-slurm-failed-375');
      await page.setViewportSize({ width: 1440, height: 900 });

      await page.getByTestId('slurm-diagnosis-apply').click();
      await page.waitForURL((u) => /\/slurm-task\/detail\/custom\//.test(u.pathname) && !u.pathname.endsWith(made.data.id), { waitUntil: 'commit' });
      const state = page.getByTestId('slurm-detail-state');
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 120_000, interval: 500 }).toBe('SUCCEEDED');
      await page.getByTestId('slurm-efficiency').waitFor();
      expect(await page.getByTestId('slurm-detail-original').textContent()).toContain('特征提取（Slurm 内存不足）');
      expect(await page.getByTestId('slurm-diagnosis').count()).toBe(0);
      await settled(page);
      await env.shot(page, 'diagnosis-slurm-resubmitted-1440');
    } finally {
      await context.close();
    }
  });
});
