// Over 400 lines: one journey in one browser and gateway, each step starting with the files the step before left.
/**
 * Issue 3, acceptance criterion 4 — storage in a real Chromium against the real gateway and its embedded
 * file service: drag-and-drop upload of three files (one ≥ 100 MiB) watched in the upload panel, the listing,
 * rename / new folder / move / delete checked in the page AND on disk, a download compared byte for byte,
 * and a reload in the middle of a large upload that resumes without re-sending the chunks already stored.
 *
 * Evidence for "not re-sent": the file service marks every complete chunk with an empty file
 * `<storageRoot>/.uploads/<account>/<identifier>/<n>` (see apps/server/src/file-service/storage/chunk-store.ts);
 * the test reads those markers after the reload and counts the browser's `POST …/file/chunk/upload`
 * requests (and the chunk numbers in their multipart fields) after it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatFileSize } from '@suanli/contracts';
import type { CDPSession, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedInPage } from './support/auth';
import { downloadedFile } from './support/chromium';
import { startE2e, type E2eEnv } from './support/env';
import { noHorizontalScroll, settled } from './support/page';

const CENTER = 'sz-a100';
const CENTER_NAME = '深圳算力分中心';
const MiB = 1024 * 1024;
const CHUNK = 8 * MiB;

/**
 * Deterministic bytes (a 32-bit LCG, top byte). The page builds the dropped files with the same code (it is
 * passed to the page as source), so Node knows their exact content without shipping 100 MiB over CDP.
 */
function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const sha256File = (file: string) =>
  new Promise<string>((resolve, reject) => {
    const h = createHash('sha256');
    fs.createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });

/** What the page drops: text files are UTF-8 of `text`, binary ones `pattern(size, seed)`. */
interface DropSpec {
  name: string;
  lastModified: number;
  text?: string;
  size?: number;
  seed?: number;
}
const contents = new Map<DropSpec, Uint8Array>();
function bytesOf(f: DropSpec): Uint8Array {
  if (!contents.has(f)) contents.set(f, f.text !== undefined ? new TextEncoder().encode(f.text) : pattern(f.size!, f.seed!));
  return contents.get(f)!;
}

const README: DropSpec = {
  name: 'readme-说明.txt',
  lastModified: 1_700_000_000_000,
  text: '算力调度服务平台 e2e 测试文件\n第二行：中文内容与 ASCII mixed content.\n'.repeat(40),
};
const WEIGHTS: DropSpec = { name: 'model-weights.bin', lastModified: 1_700_000_100_000, size: 12 * MiB + 345, seed: 7 };
const BIG: DropSpec = { name: 'big-dataset.bin', lastModified: 1_700_000_200_000, size: 100 * MiB + 1, seed: 42 };

interface PanelRow {
  name: string;
  status: string;
  percent: number | null;
  shown: number | null;
}

let env: E2eEnv;
let page: Page;
let cdp: CDPSession;
let home: string;
let account: string;
let uploadsDir: string;
let srcDir: string;

beforeAll(async () => {
  env = await startE2e();
  srcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-src-'));
  const { user, password } = await createUser(env);
  const acc = await env.app.ctx.clusterAccounts.ensure(user.id, CENTER);
  account = acc.account;
  home = path.join(env.dataDir, 'centers', CENTER, 'home', account);
  expect(path.resolve(acc.homeDir)).toBe(home);
  uploadsDir = path.join(env.dataDir, 'centers', CENTER, '.uploads', account);
  ({ page } = await signedInPage(env, user.username, password));
  cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
});

afterAll(async () => {
  await env?.close();
  if (srcDir) fs.rmSync(srcDir, { recursive: true, force: true });
});

// ---- page helpers ------------------------------------------------------------------------------------

const row = (name: string) => page.locator(`[data-testid="storage-row"][data-name="${name}"]`);

async function listing(): Promise<string[]> {
  return page.$$eval('[data-testid="storage-row"]', (rows) => rows.map((r) => `${r.getAttribute('data-type')}:${r.getAttribute('data-name')}`).sort());
}

/** Waits until the table shows exactly these entries (`file:name` / `dir:name`). */
async function expectListing(entries: string[]) {
  await expect.poll(listing, { timeout: 15_000 }).toEqual([...entries].sort());
}

async function panelRows(): Promise<PanelRow[]> {
  return page.$$eval('[data-testid="upload-row"]', (rows) =>
    rows.map((r) => {
      const bar = r.querySelector('[role="progressbar"]');
      const now = bar?.getAttribute('aria-valuenow');
      // What a person reads next to the bar (e.g. "37%") must agree with the bar itself.
      const shown = /(\d+)\s*%/.exec(bar?.textContent ?? '');
      const percent = now == null || now === '' ? null : Number(now);
      return { name: r.getAttribute('data-name') ?? '', status: r.getAttribute('data-status') ?? '', percent, shown: shown ? Number(shown[1]) : null };
    }),
  );
}

/** Upload throughput cap for the page (bytes/s), so progress can be watched; `-1` lifts it. */
async function throttleUpload(bytesPerSecond: number) {
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}


/** Home-relative paths of every file and folder on disk (`dir:/a`, `file:/a/b.txt`). */
function diskTree(dir = home, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(`dir:${p}`, ...diskTree(path.join(dir, e.name), p));
    else out.push(`file:${p}`);
  }
  return out.sort();
}

/** Staged uploads of this account: identifier → complete chunk numbers and the meta the service keeps. */
function stagedUploads(): Map<string, { chunks: number[]; totalSize?: number; totalChunks?: number }> {
  const out = new Map<string, { chunks: number[]; totalSize?: number; totalChunks?: number }>();
  if (!fs.existsSync(uploadsDir)) return out;
  for (const id of fs.readdirSync(uploadsDir)) {
    const dir = path.join(uploadsDir, id);
    const names = fs.readdirSync(dir);
    const chunks = names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
    let meta: { totalSize?: number; totalChunks?: number } = {};
    try {
      meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    } catch {
      // not written yet
    }
    out.set(id, { chunks, ...meta });
  }
  return out;
}

// ---- the journey ----------------------------------------------------------------------------------------

describe('存储管理 in Chromium', () => {
  it('opens on the default center with an empty home', async () => {
    await page.goto('/console/storage');
    await expect.poll(() => page.getByTestId('storage-center-select').innerText()).toContain(CENTER_NAME);
    await page.getByText('此文件夹为空').waitFor();
    await page.getByTestId('storage-usage').waitFor();
    expect(await listing()).toEqual([]);
    expect(diskTree()).toEqual([]);
    await env.shot(page, 'storage-01-empty');
  });

  it('uploads three files dropped on the listing (one ≥ 100 MiB), watched in the panel until 成功', async () => {
    const files = [README, WEIGHTS, BIG];
    // Slow enough to watch the progress, fast enough for the suite (~4 s for the big file).
    await throttleUpload(24 * MiB);

    // Build the Files in the page and start a drag over the drop zone: the overlay must show.
    await page.evaluate(
      ({ specs, patternSrc }) => {
        const gen = new Function(`return (${patternSrc})`)() as (size: number, seed: number) => Uint8Array;
        const dt = new DataTransfer();
        for (const f of specs) {
          const bytes = f.text !== undefined ? new TextEncoder().encode(f.text) : gen(f.size!, f.seed!);
          dt.items.add(new File([bytes as BlobPart], f.name, { lastModified: f.lastModified }));
        }
        (window as unknown as { __e2eDrop: DataTransfer }).__e2eDrop = dt;
        const zone = document.querySelector('[data-testid="storage-dropzone"]')!;
        zone.dispatchEvent(new DragEvent('dragenter', { bubbles: true, cancelable: true, dataTransfer: dt }));
        zone.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
      },
      { specs: files, patternSrc: pattern.toString() },
    );
    await page.getByText('松开鼠标，上传到当前文件夹').waitFor();
    await env.shot(page, 'storage-02-drag-over');
    await page.evaluate(() => {
      const dt = (window as unknown as { __e2eDrop: DataTransfer }).__e2eDrop;
      const zone = document.querySelector('[data-testid="storage-dropzone"]')!;
      zone.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
    });

    // The panel opens by itself with one row per file.
    await page.getByTestId('upload-panel').waitFor();
    await expect.poll(async () => (await panelRows()).map((r) => r.name).sort()).toEqual(files.map((f) => f.name).sort());

    // Watch it: the big file must be seen strictly between 0 % and 100 % (and never go backwards).
    const seen: number[] = [];
    let midShot = false;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const rows = await panelRows();
      const big = rows.find((r) => r.name === BIG.name)!;
      if (big.status === 'uploading' && big.percent !== null) {
        seen.push(big.percent);
        if (!midShot && big.percent >= 20 && big.percent <= 80) {
          await env.shot(page, 'storage-03-upload-panel-progress');
          midShot = true;
        }
      }
      if (rows.every((r) => r.status === 'success')) break;
      if (rows.some((r) => r.status === 'error')) throw new Error(`an upload failed: ${JSON.stringify(rows)}`);
      if (Date.now() > deadline) throw new Error(`uploads did not finish: ${JSON.stringify(rows)}`);
      await page.waitForTimeout(100);
    }
    await throttleUpload(-1);
    expect(midShot).toBe(true);
    expect(seen.some((p) => p > 0 && p < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const done = await panelRows();
    expect(done.map((r) => [r.name, r.status])).toEqual(expect.arrayContaining(files.map((f) => [f.name, 'success'])));
    await expect.poll(() => page.getByTestId('upload-panel').innerText()).toContain('成功');
    await env.shot(page, 'storage-04-upload-panel-done');

    // Listed, and on disk with exactly the dropped bytes; no staging left behind.
    await expectListing(files.map((f) => `file:${f.name}`));
    expect(diskTree()).toEqual(files.map((f) => `file:/${f.name}`).sort());
    for (const f of files) {
      const onDisk = path.join(home, f.name);
      expect(fs.statSync(onDisk).size).toBe(bytesOf(f).length);
      expect(await sha256File(onDisk)).toBe(sha256(bytesOf(f)));
    }
    expect(stagedUploads().size).toBe(0);
    // Close the panel (click outside) for a clean listing shot.
    await page.mouse.click(700, 800);
    await expect.poll(() => page.getByTestId('upload-panel').isVisible()).toBe(false);
    await expect(row(BIG.name).innerText()).resolves.toContain('100.00 MB');
    await env.shot(page, 'storage-05-listing');
  });

  it('renames, creates a folder, moves a file into it and deletes one — listing and disk agree', async () => {
    const readmeBytes = bytesOf(README);
    // Rename
    await row(README.name).getByTestId('storage-rename').click();
    const nameInput = page.getByTestId('storage-name-input');
    await nameInput.waitFor();
    await expect(nameInput.inputValue()).resolves.toBe(README.name);
    // The dialog selects the name's stem once it has opened: type after that, or the selection lands on what
    // was typed (说明文档.txt.txt, seen once under load).
    await settled(page);
    await nameInput.fill('说明文档.txt');
    await page.getByTestId('storage-modal-ok').click();
    await expectListing([`file:说明文档.txt`, `file:${WEIGHTS.name}`, `file:${BIG.name}`]);
    expect(diskTree()).toEqual([`file:/${BIG.name}`, `file:/${WEIGHTS.name}`, 'file:/说明文档.txt'].sort());
    expect(sha256(fs.readFileSync(path.join(home, '说明文档.txt')))).toBe(sha256(readmeBytes));

    // New folder
    await page.getByTestId('storage-mkdir').click();
    await nameInput.waitFor();
    // The rename dialog may still be closing (the same input): act once the new one has finished opening.
    await settled(page);
    await nameInput.fill('数据集');
    await page.getByTestId('storage-modal-ok').click();
    await expectListing(['dir:数据集', `file:说明文档.txt`, `file:${WEIGHTS.name}`, `file:${BIG.name}`]);
    expect(fs.statSync(path.join(home, '数据集')).isDirectory()).toBe(true);

    // Move the big file into it through the folder picker
    await row(BIG.name).getByRole('checkbox').check();
    await page.getByTestId('storage-move').click();
    const target = page.locator('[data-testid="storage-picker-node"][data-path="/数据集"]');
    await settled(page);
    await target.click();
    await expect.poll(() => page.getByTestId('storage-picker-target').innerText()).toBe('/数据集');
    await page.mouse.move(10, 600);
    await settled(page);
    await env.shot(page, 'storage-06-folder-picker');
    await page.getByTestId('storage-picker-ok').click();
    await expectListing(['dir:数据集', `file:说明文档.txt`, `file:${WEIGHTS.name}`]);
    expect(diskTree()).toEqual(['dir:/数据集', `file:/数据集/${BIG.name}`, `file:/${WEIGHTS.name}`, 'file:/说明文档.txt'].sort());
    expect(await sha256File(path.join(home, '数据集', BIG.name))).toBe(sha256(bytesOf(BIG)));

    // ...and it is listed inside the folder
    await row('数据集').getByTestId('storage-open').click();
    await expectListing([`file:${BIG.name}`]);
    await expect.poll(() => page.getByTestId('storage-breadcrumb').innerText()).toContain('数据集');
    await page.locator('[data-testid="storage-breadcrumb"] [data-path="/"]').click();
    await expectListing(['dir:数据集', `file:说明文档.txt`, `file:${WEIGHTS.name}`]);

    // Delete one with the confirmation
    await row(WEIGHTS.name).getByTestId('storage-row-delete').click();
    await page.getByText(`确定删除“${WEIGHTS.name}”吗？`).waitFor();
    await page.getByTestId('storage-confirm-ok').click();
    await expectListing(['dir:数据集', `file:说明文档.txt`]);
    expect(diskTree()).toEqual(['dir:/数据集', `file:/数据集/${BIG.name}`, 'file:/说明文档.txt']);
    await env.shot(page, 'storage-07-after-operations');
  });

  it('downloads a file with exactly the uploaded bytes, through the browser\'s own download manager', async () => {
    // The page asks for a ticket and hands its URL to the browser; it never fetches the bytes itself.
    const byPage: string[] = [];
    const watch = (r: Request) => {
      if (r.url().includes('/file/download')) byPage.push(`${r.method()} ${new URL(r.url()).pathname}`);
    };
    page.on('request', watch);
    const [download] = await Promise.all([page.waitForEvent('download'), row('说明文档.txt').getByTestId('storage-row-download').click()]);
    expect(download.suggestedFilename()).toBe('说明文档.txt');
    const ticketUrl = new RegExp(`^${env.baseUrl}/file-service/${CENTER}/api/v1/file/download/t/[A-Za-z0-9_-]{43}$`);
    expect(download.url()).toMatch(ticketUrl);
    const got = fs.readFileSync(await downloadedFile(download));
    expect(got.equals(Buffer.from(bytesOf(README)))).toBe(true);
    await page.getByText('说明文档.txt 已开始下载', { exact: false }).waitFor();

    // The 100 MiB one too (inside the folder, selected, toolbar 下载).
    await row('数据集').getByTestId('storage-open').click();
    await expectListing([`file:${BIG.name}`]);
    await row(BIG.name).getByRole('checkbox').check();
    const [big] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('storage-download').click()]);
    expect(big.suggestedFilename()).toBe(BIG.name);
    expect(big.url()).toMatch(ticketUrl);
    const bigPath = await downloadedFile(big);
    expect(fs.statSync(bigPath).size).toBe(BIG.size);
    expect(await sha256File(bigPath)).toBe(sha256(bytesOf(BIG)));
    page.off('request', watch);
    const ticketCall = `POST /file-service/${CENTER}/api/v1/file/download/ticket`;
    expect(byPage.filter((r) => !/ \/file-service\/[^/]+\/api\/v1\/file\/download\/t\//.test(r))).toEqual([ticketCall, ticketCall]);

    // A refused ticket is never saved as a file: the server answers it with an HTTP error and the browser
    // reports a failed download.
    const unknown = `${env.baseUrl}/file-service/${CENTER}/api/v1/file/download/t/${'A'.repeat(43)}`;
    const [failed] = await Promise.all([
      page.waitForEvent('download'),
      page.evaluate((href) => {
        const a = document.createElement('a');
        a.href = href;
        a.download = '';
        document.body.appendChild(a);
        a.click();
        a.remove();
      }, unknown),
    ]);
    expect(await failed.failure()).not.toBeNull();
    await page.locator('[data-testid="storage-breadcrumb"] [data-path="/"]').click();
    await expectListing(['dir:数据集', `file:说明文档.txt`]);
  });

  it('resumes a large upload after a reload without re-sending the chunks already stored', async () => {
    const name = '训练数据-resume.bin';
    const size = 100 * MiB + 12_345;
    const totalChunks = Math.ceil(size / CHUNK);
    const source = path.join(srcDir, name);
    const content = pattern(size, 2024);
    fs.writeFileSync(source, content);
    const sourceHash = sha256(content);

    // Two logs of the chunk traffic, each tagged with the page load it belongs to: the browser's requests,
    // and the chunks the file service was handed (its `uploadChunk`, wrapped for this test).
    let phase: 'before' | 'after' = 'before';
    const requests: string[] = [];
    const onRequest = (req: Request) => {
      if (req.method() === 'POST' && req.url().includes('/file/chunk/upload')) requests.push(phase);
    };
    page.on('request', onRequest);
    const service = env.app.fileServices.get(CENTER)!;
    const original = service.uploads.uploadChunk;
    const received: { phase: string; chunk: number; ok: boolean }[] = [];
    let inFlight = 0;
    // Once 40 % of the chunks are stored, the first page load's next ones are held until the reload cuts
    // them: the throttle alone left it to timing, and on a loaded machine the whole file was stored before the
    // reload landed (13 of 13 chunks, issue 26).
    const minStored = Math.ceil(totalChunks * 0.4);
    service.uploads.uploadChunk = async function (this: typeof service.uploads, ...args: Parameters<typeof original>) {
      const tagged = phase;
      inFlight++;
      try {
        while (tagged === 'before' && phase === 'before' && received.filter((r) => r.ok).length >= minStored) await new Promise((r) => setTimeout(r, 20));
        if (tagged === 'before' && phase === 'after') throw new Error('cut by the reload');
        const result = await original.apply(this, args);
        received.push({ phase: tagged, chunk: args[1].chunkNumber, ok: true });
        return result;
      } catch (e) {
        received.push({ phase: tagged, chunk: args[1].chunkNumber, ok: false });
        throw e;
      } finally {
        inFlight--;
      }
    };

    try {
      await throttleUpload(20 * MiB);
      await page.getByTestId('storage-upload-input').setInputFiles(source);
      await page.locator(`[data-testid="upload-row"][data-name="${name}"]`).waitFor();

      // Wait until the service holds at least 40 % of the chunks (its completion markers on disk).
      await expect
        .poll(() => [...stagedUploads().values()].find((u) => u.totalSize === size)?.chunks.length ?? 0, { timeout: 60_000, interval: 100 })
        .toBeGreaterThanOrEqual(minStored);
      // ...and the panel shows it (it lags the markers by the responses still on their way).
      await expect.poll(async () => (await panelRows()).find((r) => r.name === name)?.percent ?? 0, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(30);
      expect((await panelRows()).find((r) => r.name === name)?.status).toBe('uploading');
      await env.shot(page, 'storage-08-resume-before-reload');

      // Reload: the page warns (beforeunload, the spec's refresh warning) and the person accepts. A real
      // click first gives the page the user activation Chromium requires before it shows that dialog.
      await page.getByTestId('storage-refresh').click();
      const dialogs: string[] = [];
      page.once('dialog', (d) => {
        dialogs.push(d.type());
        void d.accept();
      });
      await page.reload();
      phase = 'after';
      expect(dialogs).toEqual(['beforeunload']);
      await throttleUpload(-1);
      await page.getByTestId('storage-table').waitFor();
      // The records are gone (a refresh clears them, as the panel says); the staged chunks are not.
      expect(await page.getByTestId('upload-row').count()).toBe(0);
      // Chunk requests cut by the reload end on the server (as failures: nothing half-written is marked).
      await expect.poll(() => inFlight, { timeout: 10_000 }).toBe(0);
      const staged = [...stagedUploads().entries()].filter(([, u]) => u.totalSize === size);
      expect(staged).toHaveLength(1);
      const [identifier, { chunks: storedBefore }] = staged[0];
      expect(storedBefore.length).toBeGreaterThanOrEqual(minStored);
      expect(storedBefore.length).toBeLessThan(totalChunks);
      // The markers are exactly the chunks the service accepted before the reload.
      const acceptedBefore = received.filter((r) => r.phase === 'before' && r.ok).map((r) => r.chunk);
      expect([...acceptedBefore].sort((a, b) => a - b)).toEqual(storedBefore);

      // Add the same file again (same path, so same name, size and lastModified): it continues and finishes.
      await page.getByTestId('storage-upload-input').setInputFiles(source);
      const resumed = page.locator(`[data-testid="upload-row"][data-name="${name}"]`);
      await resumed.waitFor();
      await expect.poll(() => resumed.getAttribute('data-status'), { timeout: 90_000, interval: 200 }).toBe('success');
      await env.shot(page, 'storage-09-resume-done');

      // Not re-sent: after the reload the service was handed only chunks it did not have, each once, and
      // together with the stored ones they are the whole file; the browser made exactly that many requests.
      const sentAfter = received.filter((r) => r.phase === 'after').map((r) => r.chunk);
      const missing = Array.from({ length: totalChunks }, (_, i) => i + 1).filter((n) => !storedBefore.includes(n));
      expect(sentAfter.filter((n) => storedBefore.includes(n))).toEqual([]);
      expect([...sentAfter].sort((a, b) => a - b)).toEqual(missing);
      expect(received.filter((r) => r.phase === 'after' && !r.ok)).toEqual([]);
      expect(requests.filter((p) => p === 'after')).toHaveLength(totalChunks - storedBefore.length);
      expect(requests.filter((p) => p === 'before').length).toBeGreaterThanOrEqual(storedBefore.length);

      // The file is whole, the staging is gone, and it is listed.
      expect(stagedUploads().has(identifier)).toBe(false);
      const stored = path.join(home, name);
      expect(fs.statSync(stored).size).toBe(size);
      expect(await sha256File(stored)).toBe(sourceHash);
      await expectListing(['dir:数据集', `file:说明文档.txt`, `file:${name}`]);
    } finally {
      service.uploads.uploadChunk = original;
      page.off('request', onRequest);
      await throttleUpload(-1);
    }
  });
  it('after a reload lists the interrupted uploads: 继续 with the same file finishes one, 放弃 removes the other', async () => {
    // Issue 22 item 3: the panel used to say 暂无上传任务 after a reload although the server held the chunks.
    const dir = '/数据集';
    const files = [
      { name: '续传-继续.bin', size: 5 * CHUNK + 4321, seed: 77 },
      { name: '续传-放弃.bin', size: 5 * CHUNK + 99, seed: 78 },
    ].map((f) => ({ ...f, source: path.join(srcDir, f.name), content: pattern(f.size, f.seed) }));
    for (const f of files) fs.writeFileSync(f.source, f.content);
    const [keep, drop] = files;
    // The same name with other content and size: 继续 must refuse it.
    fs.mkdirSync(path.join(srcDir, 'other'), { recursive: true });
    const wrong = path.join(srcDir, 'other', keep.name);
    fs.writeFileSync(wrong, 'not the same file');
    const stagingOf = (size: number) => [...stagedUploads().entries()].find(([, u]) => u.totalSize === size);

    await page.goto(`/console/storage?center=${CENTER}&path=${encodeURIComponent(dir)}`);
    await page.getByTestId('storage-table').waitFor();
    // Once a file has a chunk stored, its next ones are held until the reload cuts them: the throttle alone left
    // it to timing, and with the header's panel loaded lazily one file was stored whole before the reload
    // (issue 26, as the resume test above).
    const holding = env.app.fileServices.get(CENTER)!.uploads;
    const unheld = holding.uploadChunk;
    const stored = new Map<string, number>();
    // 'hold' until the reload starts; then 'cut' (the held requests end and free the browser's connections, which
    // the reload itself needs — six held requests took them all); past the reload everything goes through.
    let phase: 'hold' | 'cut' | 'open' = 'hold';
    // Chunk calls of the first page load still running on the server (held, cut or storing).
    let running = 0;
    holding.uploadChunk = async function (this: typeof holding, ...args: Parameters<typeof unheld>) {
      const id = args[1].identifier;
      running++;
      try {
        while (phase === 'hold' && (stored.get(id) ?? 0) >= 1) await new Promise((r) => setTimeout(r, 20));
        if (phase === 'cut') throw new Error('cut by the reload');
        const result = await unheld.apply(this, args);
        stored.set(id, (stored.get(id) ?? 0) + 1);
        return result;
      } finally {
        running--;
      }
    };
    try {
      // Slow enough that a reload lands after the first chunks of both files and well before the last.
      await throttleUpload(16 * MiB);
      await page.getByTestId('storage-upload-input').setInputFiles(files.map((f) => f.source));
      await expect
        .poll(() => files.map((f) => stagingOf(f.size)?.[1].chunks.length ?? 0).every((n) => n >= 1), { timeout: 60_000, interval: 100 })
        .toBe(true);
      await page.getByTestId('storage-refresh').click();
      page.once('dialog', (d) => void d.accept());
      phase = 'cut';
      await page.reload();
    } finally {
      phase = 'open';
      holding.uploadChunk = unheld;
      await throttleUpload(-1);
    }
    await page.getByTestId('storage-table').waitFor();
    expect(await page.getByTestId('upload-row').count()).toBe(0);
    // Requests the reload cut end on the server first (as failures); what is staged then stays put. (Waited
    // for, not a fixed second: the wrapper counts the calls still running.)
    await expect.poll(() => running, { timeout: 10_000, interval: 50 }).toBe(0);
    const staged = files.map((f) => stagingOf(f.size)!);
    for (const [, u] of staged) expect(u.chunks.length).toBeLessThan(6);
    const arrived = (u: { chunks: number[] }, size: number) => u.chunks.reduce((n, k) => n + (k < 6 ? CHUNK : size - 5 * CHUNK), 0);
    const mb = (n: number) => `${(n / MiB).toFixed(2)} MB`;

    // The button carries a dot; the panel lists both with their folder, name, size and how much arrived.
    await page.locator('[data-testid="upload-panel-button"]').locator('xpath=ancestor::*[contains(@class,"ant-badge")]').locator('.ant-badge-dot').waitFor();
    await page.getByTestId('upload-panel-button').click();
    const rowOf = (name: string) => page.locator(`[data-testid="upload-interrupted-row"][data-name="${name}"]`);
    await expect.poll(() => page.getByTestId('upload-interrupted-row').count(), { timeout: 10_000 }).toBe(2);
    for (const [i, f] of files.entries()) {
      const text = await rowOf(f.name).innerText();
      expect(text).toContain(f.name);
      expect(text).toContain(`${CENTER_NAME}：${dir}`);
      expect(await rowOf(f.name).getByTestId('upload-interrupted-progress').innerText()).toBe(`已上传 ${mb(arrived(staged[i][1], f.size))} / ${mb(f.size)}`);
    }
    expect(await page.getByTestId('upload-interrupted').innerText()).toContain('中断的上传（2）');
    await settled(page).catch(() => undefined);
    await env.shot(page, 'storage-10-interrupted-1440');
    await page.setViewportSize({ width: 375, height: 800 });
    await settled(page).catch(() => undefined);
    await noHorizontalScroll(page);
    await env.shot(page, 'storage-10-interrupted-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    // 继续 with another file of the same name: refused in Chinese, nothing starts.
    const choose = async (name: string, file: string) => {
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), rowOf(name).getByTestId('upload-interrupted-continue').click()]);
      await chooser.setFiles(file);
    };
    await choose(keep.name, wrong);
    expect(await rowOf(keep.name).getByTestId('upload-interrupted-mismatch').innerText()).toBe(
      `所选文件“${keep.name}”（${formatFileSize(17)}）与中断的上传“${keep.name}”（${mb(keep.size)}）不一致，请选择同一文件`,
    );
    expect(await page.getByTestId('upload-row').count()).toBe(0);

    // 继续 with the same file: it resumes into its folder and completes with the right bytes.
    const service = env.app.fileServices.get(CENTER)!;
    const original = service.uploads.uploadChunk;
    const sent: number[] = [];
    service.uploads.uploadChunk = async function (this: typeof service.uploads, ...args: Parameters<typeof original>) {
      sent.push(args[1].chunkNumber);
      return original.apply(this, args);
    };
    try {
      await choose(keep.name, keep.source);
      const task = page.locator(`[data-testid="upload-row"][data-name="${keep.name}"]`);
      await expect.poll(() => task.getAttribute('data-status'), { timeout: 60_000, interval: 200 }).toBe('success');
    } finally {
      service.uploads.uploadChunk = original;
    }
    // Only what was missing went over the wire.
    expect(sent.filter((n) => staged[0][1].chunks.includes(n))).toEqual([]);
    const placed = path.join(home, '数据集', keep.name);
    expect(fs.statSync(placed).size).toBe(keep.size);
    expect(await sha256File(placed)).toBe(sha256(keep.content));
    expect(stagingOf(keep.size)).toBeUndefined();
    await expect.poll(() => rowOf(keep.name).count(), { timeout: 10_000 }).toBe(0);
    await settled(page).catch(() => undefined);
    await env.shot(page, 'storage-11-interrupted-continued');
    await page.setViewportSize({ width: 375, height: 800 });
    await settled(page).catch(() => undefined);
    await noHorizontalScroll(page);
    await env.shot(page, 'storage-11-interrupted-continued-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    // 放弃 the other: confirmed, its chunks are gone from the server and the list.
    await rowOf(drop.name).getByTestId('upload-interrupted-discard').click();
    const confirm = page.locator('.ant-popconfirm:visible');
    expect(await confirm.innerText()).toContain('服务器上已收到的部分将被删除');
    // antd spaces a two-character label on a filled button: 放 弃.
    await confirm.getByRole('button', { name: /^放\s?弃$/ }).click();
    await expect.poll(() => page.getByTestId('upload-interrupted').count(), { timeout: 10_000 }).toBe(0);
    expect(stagingOf(drop.size)).toBeUndefined();
    expect(fs.existsSync(path.join(home, '数据集', drop.name))).toBe(false);
    // And a reload finds nothing interrupted any more.
    await page.reload();
    await page.getByTestId('storage-table').waitFor();
    await page.getByTestId('upload-panel-button').click();
    await page.getByTestId('upload-panel').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('upload-interrupted').count()).toBe(0);
  });
});
