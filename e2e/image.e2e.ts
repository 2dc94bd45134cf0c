/**
 * Issue 11 item 3 in Chromium, with Debian's docker-registry whose token issuer is the gateway: the user
 * makes a registry password on 推送私有镜像, pushes an image with skopeo (as from their own machine), finds it
 * under 我的镜像 with its tag, digest and size, and deletes the tag; then imports an image archive from their
 * storage (the server pushes it, progress on the page) and finds it in the task form's image picker; asks for
 * it to be public, an operator rejects with a reason (shown to the user), then approves it in 运营管理 › 审核,
 * and it is among everyone's public images. Screenshots at phone and desktop widths.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFileUser } from '../apps/server/src/file-service/identity';
import { buildOciImage, ociArchive } from '../apps/server/test/oci-image';
import { freePort } from '../apps/server/test/process';
import { startRegistry } from '../apps/server/test/registry';
import { createOperator, createUser, signedInPage, userPage } from './support/auth';
import { startE2e, type E2eEnv } from './support/env';
import { painted, settled } from './support/page';

describe('镜像 journey', () => {
  let env: E2eEnv;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let username: string;
  let password: string;
  let userId: string;
  let address: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-img-'));

  beforeAll(async () => {
    const port = await freePort();
    address = `127.0.0.1:${port}`;
    const settings = { url: `http://${address}`, address, service: 'suanli-registry', issuer: 'suanli-gateway' };
    env = await startE2e({ registry: settings });
    registry = await startRegistry({ port, gatewayUrl: env.baseUrl, certFile: env.app.images.tokenCertFile!, service: settings.service, issuer: settings.issuer });
    const u = await createUser(env);
    username = u.user.username;
    password = u.password;
    userId = u.user.id;
  });
  afterAll(async () => {
    await registry?.stop();
    await env?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('makes a registry password, pushes with it, sees the image with its tag, and deletes the tag', async () => {
    const page = await userPage(env, username, password);
    await page.goto('/console/image?tab=mine');
    await page.getByTestId('image-mine-empty').waitFor();
    await page.getByTestId('image-push-open').click();
    await page.getByTestId('image-reset-credential').click();
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    const secret = (await page.getByTestId('image-password').locator('code').textContent())!.trim();
    expect(secret.length).toBeGreaterThan(16);
    const ns = username.toLowerCase();
    expect(await page.getByTestId('image-push').textContent()).toContain(`docker push ${address}/${ns}/`);
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `image-form-${width}`);
    }

    // The user pushes from their machine (skopeo stands in for docker; the gateway answers its token requests).
    const { dir: layout } = buildOciImage(path.join(tmp, 'img'), 'v1', { 'app/train.py': 'print("hello")\n' });
    await new Promise<void>((resolve, reject) =>
      execFile('skopeo', ['--insecure-policy', 'copy', `oci:${layout}`, `docker://${address}/${ns}/resnet:v1`, '--dest-tls-verify=false', '--dest-creds', `${username}:${secret}`], (err, _o, stderr) =>
        err ? reject(new Error(stderr)) : resolve(),
      ),
    );

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/console/image?tab=mine');
    await page.getByTestId('image-repo').filter({ hasText: `${ns}/resnet` }).click();
    await page.waitForURL(/\/console\/image\/detail\//);
    const tags = page.getByTestId('image-tags');
    await tags.locator('tr.ant-table-row').first().waitFor();
    expect(await tags.locator('tr.ant-table-row').first().textContent()).toContain('v1');
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `image-detail-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await tags.getByRole('button', { name: /删除/ }).click();
    await page.locator('.ant-popconfirm .ant-btn-dangerous').click();
    await page.getByText('标签已删除').waitFor();
    await page.goto('/console/image?tab=mine');
    await page.getByTestId('image-mine-empty').waitFor();
  });

  it('imports an archive from storage with progress, and picks the image in the task form', async () => {
    // The archive as an upload through 存储管理 leaves it in the user's home on the center.
    const img = buildOciImage(path.join(tmp, 'bert'), 'release', { 'app/model.txt': 'bert\n' });
    const center = env.app.ctx.centers.find((c) => c.id === 'sz-a100')!;
    const home = toFileUser(center, await env.app.ctx.clusterAccounts.ensure(userId, center.id)).homeDir;
    fs.mkdirSync(path.join(home, 'images'), { recursive: true });
    ociArchive(img, path.join(home, 'images', 'bert.tar'));
    const ns = username.toLowerCase();

    const page = await userPage(env, username, password);
    await page.goto('/console/image/form');
    await page.getByTestId('image-import-center').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: '深圳算力分中心' }).first().click();
    await page.getByTestId('image-import-path').fill('/images/bert.tar');
    await page.getByTestId('image-import-repository').fill('bert');
    await page.getByTestId('image-import-submit').click();
    const status = page.getByTestId('image-import-status');
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toContain(`已导入 ${ns}/bert:release`);
    expect(await status.textContent()).toContain(img.manifestDigest);
    await status.scrollIntoViewIfNeeded();
    // The bar animates to 100 %.
    await painted(page);
    await env.shot(page, 'image-import-1440');
    await page.setViewportSize({ width: 375, height: 900 });
    await status.scrollIntoViewIfNeeded();
    await painted(page);
    await env.shot(page, 'image-import-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.goto('/console/training/task/train');
    await page.getByTestId('training-form-card-type').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: /NVIDIA A100 80G/ }).first().click();
    await page.getByTestId('training-form-image').click();
    const dropdown = page.locator('.ant-select-dropdown:visible');
    await dropdown.locator('.ant-select-item-group').filter({ hasText: '我的私有镜像' }).waitFor();
    await dropdown.locator('.ant-select-item-option').filter({ hasText: `${ns}/bert:release` }).waitFor();
    await env.shot(page, 'image-task-form-1440');
    await dropdown.locator('.ant-select-item-option').filter({ hasText: `${ns}/bert:release` }).click();
    expect(await page.getByTestId('training-form-image').textContent()).toContain(`${ns}/bert:release`);
  });

  it('asks for the imported tag to be public; an operator rejects with a reason, then approves; it is a public image', async () => {
    const ns = username.toLowerCase();
    const page = await userPage(env, username, password);
    await page.goto(`/console/image/detail/${encodeURIComponent(`${ns}/bert`)}`);
    const row = page.getByTestId('image-tags').locator('tr.ant-table-row').filter({ hasText: 'release' });
    const ask = async () => {
      await row.getByTestId('image-publish').click();
      await page.locator('.ant-popconfirm:visible').getByRole('button', { name: /申\s*请/ }).click();
      await page.getByText('已提交公共镜像申请，等待运营审核').waitFor();
      await expect.poll(() => row.textContent()).toContain('公开审核中');
    };
    await ask();

    const op = await createOperator(env);
    const admin = await signedInPage(env, op.user.username, op.password);
    await admin.page.goto('/console/admin/reviews?kind=image');
    const request = admin.page.getByTestId('admin-review-image').locator('tr.ant-table-row').filter({ hasText: `${ns}/bert:release` });
    await request.waitFor();
    for (const width of [1440, 375]) {
      await admin.page.setViewportSize({ width, height: 900 });
      await painted(admin.page);
      await env.shot(admin.page, `admin-review-image-${width}`);
    }
    await admin.page.setViewportSize({ width: 1440, height: 900 });
    // A rejection needs its reason.
    await request.getByTestId('admin-review-reject').click();
    await settled(admin.page).catch(() => undefined);
    await admin.page.getByTestId('admin-review-confirm').click();
    await admin.page.getByText('请填写驳回原因').waitFor();
    await admin.page.getByTestId('admin-review-reason').fill('请在说明中写明基础镜像');
    await admin.page.getByTestId('admin-review-confirm').click();
    await admin.page.getByText('已驳回').waitFor();

    await page.reload();
    await expect.poll(() => row.textContent()).toContain('原因：请在说明中写明基础镜像');
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await painted(page);
      await env.shot(page, `image-publication-rejected-${width}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await ask();

    await admin.page.reload();
    await request.getByTestId('admin-review-approve').click();
    // Once the dialog has opened: a click on 通过 during its opening was lost once on a loaded CI machine (the
    // dialog stayed open with nothing sent; plan 26).
    await settled(admin.page).catch(() => undefined);
    await admin.page.getByTestId('admin-review-confirm').click();
    await admin.page.getByText('已设为公共镜像').waitFor();
    // Everyone's public images now hold the platform's copy, the operator's too.
    await admin.page.goto('/console/image');
    await expect.poll(() => admin.page.locator('body').textContent(), { timeout: 15_000 }).toContain(`public/${ns}/bert:release`);
    await admin.context.close();

    await page.reload();
    await expect.poll(() => row.textContent()).toContain('已公开');
  });
});
