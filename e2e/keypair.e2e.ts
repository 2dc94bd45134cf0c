/**
 * Issue 10, item 1 — 密钥对 in a real Chromium against the real gateway (embedded default: local centers whose
 * file service the gateway serves in-process). A generated ed25519 key is offered for download once and
 * OpenSSH's own ssh-keygen derives from it the public key and fingerprint the page shows; a public key made by
 * ssh-keygen imports, an RSA-1024 one is refused in Chinese; installing a key puts its line into the cluster
 * account's authorized_keys on the center's storage, uninstalling and deleting take it out. Every state reads
 * Chinese (screen-reader names included) and fits a 375 px phone. Screenshots: e2e/artifacts/keypair-*.png.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedInPage } from './support/auth';
import { describeLeaks, englishLeaks } from './support/english';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled } from './support/page';

const CENTER = 'sz-a100';
const CENTER_LABEL = '深圳算力分中心（广东·深圳）';

/** `ssh-keygen -lf` → the `SHA256:…` field. */
const fingerprintOf = (file: string) => execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).split(' ')[1];
/** An OpenSSH public key line without its comment: `type base64`. */
const keyPart = (line: string) => line.trim().split(/\s+/).slice(0, 2).join(' ');

describe('密钥对 journey', () => {
  let env: E2eEnv;
  let page: Page;
  let userId: string;
  let tmp: string;
  /** What the page showed for the generated key. */
  let generated: { publicKey: string; fingerprint: string };
  let imported: { publicKey: string; fingerprint: string };

  beforeAll(async () => {
    env = await startE2e();
    const u = await createUser(env);
    userId = u.user.id;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-keys-'));
    ({ page } = await signedInPage(env, u.user.username, u.password));
  });
  afterAll(async () => {
    await env?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Fails with every English word the page shows or reads out (e2e/support/english.ts). */
  async function speaksChinese(state: string) {
    await settled(page).catch(() => undefined);
    expect(describeLeaks(state, await englishLeaks(page))).toEqual([]);
  }

  const card = (name: string) => page.getByTestId('kp-item').filter({ has: page.getByTestId('kp-name').getByText(name, { exact: true }) });
  const toast = () => page.locator('.ant-message-notice').last();
  /** The open Popconfirm's confirm button (antd writes 删除 as "删 除" inside buttons; the primary one is OK). */
  const confirmPop = () => page.locator('.ant-popconfirm:visible .ant-btn-primary').click();

  /** The account's authorized_keys as the center's storage holds it ('' before the file exists). */
  async function authorizedKeys(): Promise<string> {
    const acc = await env.app.ctx.clusterAccounts.ensure(userId, CENTER);
    const file = path.join(acc.homeDir, '.ssh', 'authorized_keys');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }

  /** 生成 on the create page; returns the one-time card's public key and fingerprint. */
  async function generate(name: string) {
    await page.goto('/console/keypair/create');
    await page.getByTestId('kp-gen-name').fill(name);
    await page.getByTestId('kp-gen-submit').click();
    await page.getByTestId('kp-generated').waitFor();
    return {
      publicKey: (await page.getByTestId('kp-generated-public').innerText()).trim(),
      fingerprint: (await page.getByTestId('kp-generated-fingerprint').innerText()).trim(),
    };
  }

  /** 下载私钥: the browser's download, saved where ssh-keygen reads it (0600, or it refuses the file). */
  async function downloadPrivateKey(): Promise<{ file: string; suggested: string }> {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('kp-download').click()]);
    const file = path.join(tmp, `${download.suggestedFilename()}-${Date.now()}`);
    await download.saveAs(file);
    fs.chmodSync(file, 0o600);
    return { file, suggested: download.suggestedFilename() };
  }

  it('generates an ed25519 key whose private key is offered once; OpenSSH derives the public key and fingerprint shown', async () => {
    await page.goto('/console/keypair');
    await page.getByTestId('kp-empty').waitFor();
    await speaksChinese('/keypair (empty)');
    await env.shot(page, 'keypair-empty-1440');

    await page.getByTestId('kp-create').click();
    await page.waitForURL(/\/console\/keypair\/create$/);
    await speaksChinese('/keypair/create');
    generated = await generate('实验室工作站');
    expect(generated.publicKey).toMatch(/^ssh-ed25519 AAAA[0-9A-Za-z+/]+=*( |$)/);
    expect(generated.fingerprint).toMatch(/^SHA256:[0-9A-Za-z+/]{43}$/);
    // Leaving is possible only once the private key was saved.
    expect(await page.getByTestId('kp-done').isDisabled()).toBe(true);
    await speaksChinese('/keypair/create (generated)');
    await env.shot(page, 'keypair-generated-1440');

    const { file, suggested } = await downloadPrivateKey();
    expect(suggested).toBe('id_ed25519_实验室工作站');
    const pem = fs.readFileSync(file, 'utf8');
    expect(pem.startsWith('-----BEGIN OPENSSH PRIVATE KEY-----\n')).toBe(true);
    expect(pem.trimEnd().endsWith('-----END OPENSSH PRIVATE KEY-----')).toBe(true);
    // OpenSSH reads the file as a private key, and the public key it derives is the one the page shows.
    const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' });
    expect(keyPart(derived)).toBe(keyPart(generated.publicKey));
    fs.writeFileSync(`${file}.pub`, `${derived.trim()}\n`);
    expect(fingerprintOf(`${file}.pub`)).toBe(generated.fingerprint);

    await page.getByTestId('kp-done').click();
    await page.waitForURL(/\/console\/keypair$/);
    await expect.poll(() => card('实验室工作站').getByTestId('kp-fingerprint').innerText()).toBe(generated.fingerprint);
    // Once: coming back to the create page offers a new key, never the old private key again.
    await page.goto('/console/keypair/create');
    await page.getByTestId('kp-gen-name').waitFor();
    expect(await page.getByTestId('kp-generated').count()).toBe(0);
  });

  it('imports a public key made by ssh-keygen; an RSA-1024 key is refused in Chinese', async () => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'laptop', '-f', path.join(tmp, 'laptop')]);
    const line = fs.readFileSync(path.join(tmp, 'laptop.pub'), 'utf8').trim();
    imported = { publicKey: line, fingerprint: fingerprintOf(path.join(tmp, 'laptop.pub')) };

    await page.goto('/console/keypair/create');
    await page.getByTestId('kp-tab-import').click();
    await page.getByTestId('kp-imp-name').fill('我的笔记本');
    await page.getByTestId('kp-imp-key').fill(line);
    await speaksChinese('/keypair/create (import)');
    await env.shot(page, 'keypair-import-1440');
    await page.getByTestId('kp-imp-submit').click();
    await page.waitForURL(/\/console\/keypair$/);
    await expect.poll(() => toast().innerText()).toContain('公钥已导入');
    await expect.poll(() => card('我的笔记本').getByTestId('kp-fingerprint').innerText()).toBe(imported.fingerprint);
    expect(await page.getByTestId('kp-item').count()).toBe(2);

    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', path.join(tmp, 'weak')]);
    await page.goto('/console/keypair/create');
    await page.getByTestId('kp-tab-import').click();
    await page.getByTestId('kp-imp-name').fill('旧服务器');
    await page.getByTestId('kp-imp-key').fill(fs.readFileSync(path.join(tmp, 'weak.pub'), 'utf8'));
    await page.getByTestId('kp-imp-submit').click();
    await expect.poll(() => toast().innerText()).toContain('至少 2048 位（当前 1024 位）');
    // Refused: the form stays, nothing was added.
    expect(page.url()).toMatch(/\/console\/keypair\/create$/);
    await speaksChinese('/keypair/create (refused)');
    await env.shot(page, 'keypair-import-refused-1440');
    await page.goto('/console/keypair');
    await expect.poll(() => page.getByTestId('kp-item').count()).toBe(2);
  });

  it('installs a key on a center: its line lands in the account’s authorized_keys; uninstall takes it out', async () => {
    await page.goto('/console/keypair');
    await card('实验室工作站').getByTestId('kp-install-open').click();
    await page.getByTestId('kp-install-centers').getByText(CENTER_LABEL).click();
    await speaksChinese('/keypair (install dialog)');
    await env.shot(page, 'keypair-install-1440');
    await page.getByTestId('kp-install-ok').click();
    await expect.poll(() => toast().innerText()).toContain('已安装到所选分中心');
    const tag = card('实验室工作站').locator(`[data-testid=kp-install][data-center=${CENTER}]`);
    await tag.waitFor();
    const acc = await env.app.ctx.clusterAccounts.ensure(userId, CENTER);
    expect(await tag.innerText()).toContain(`深圳算力分中心 · ${acc.account}`);

    // On disk: one line, the key the page showed, tagged as ours.
    const lines = (await authorizedKeys()).split('\n').filter((l) => l.includes(keyPart(generated.publicKey)));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ suanli:\S+$/);
    const st = fs.statSync(path.join(acc.homeDir, '.ssh', 'authorized_keys'));
    expect(st.mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(acc.homeDir, '.ssh')).mode & 0o777).toBe(0o700);

    await speaksChinese('/keypair (installed)');
    await env.shot(page, 'keypair-list-1440');

    await tag.click();
    await page.locator('.ant-popconfirm:visible').getByText(`集群账号 ${acc.account} 将不再接受此密钥登录。`).waitFor();
    await speaksChinese('/keypair (uninstall confirm)');
    await confirmPop();
    await expect.poll(() => toast().innerText()).toContain('已从该分中心卸载');
    await expect.poll(() => tag.count()).toBe(0);
    expect(await authorizedKeys()).not.toContain(keyPart(generated.publicKey));
  });

  it('fits a 375 px phone: list, install dialog, import form, the one-time key card', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      // A key installed for the list to show its tag at this width too.
      await page.goto('/console/keypair');
      await card('我的笔记本').getByTestId('kp-install-open').click();
      await page.getByTestId('kp-install-centers').getByText(CENTER_LABEL).click();
      await settled(page).catch(() => undefined);
      await noHorizontalScroll(page);
      await env.shot(page, 'keypair-install-375');
      await page.getByTestId('kp-install-ok').click();
      await card('我的笔记本').locator(`[data-testid=kp-install][data-center=${CENTER}]`).waitFor();
      await settled(page).catch(() => undefined);
      await noHorizontalScroll(page);
      await env.shot(page, 'keypair-list-375');

      await page.goto('/console/keypair/create');
      await page.getByTestId('kp-tab-import').click();
      await page.getByTestId('kp-imp-key').fill(imported.publicKey);
      await noHorizontalScroll(page);
      await env.shot(page, 'keypair-import-375');

      const phone = await generate('手机上生成的密钥');
      await noHorizontalScroll(page);
      await speaksChinese('/keypair/create (generated, 375)');
      await env.shot(page, 'keypair-generated-375');
      const { file } = await downloadPrivateKey();
      expect(keyPart(execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }))).toBe(keyPart(phone.publicKey));
      await page.getByTestId('kp-done').click();
      await page.waitForURL(/\/console\/keypair$/);
      await expect.poll(() => page.getByTestId('kp-item').count()).toBe(3);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('deletes keys: an installed one leaves the account’s authorized_keys first; the list ends empty', async () => {
    await page.goto('/console/keypair');
    expect(await authorizedKeys()).toContain(keyPart(imported.publicKey));
    for (const name of ['我的笔记本', '实验室工作站', '手机上生成的密钥']) {
      await card(name).getByTestId('kp-delete').click();
      if (name === '我的笔记本') {
        await page.locator('.ant-popconfirm:visible').getByText('将先从所有已安装的分中心卸载，之后无法再用它登录。').waitFor();
        await speaksChinese('/keypair (delete confirm)');
      }
      await confirmPop();
      await expect.poll(() => card(name).count()).toBe(0);
    }
    expect(await authorizedKeys()).not.toContain(keyPart(imported.publicKey));
    expect(await authorizedKeys()).not.toContain('suanli:');
    await page.getByTestId('kp-empty').waitFor();
  });
});
