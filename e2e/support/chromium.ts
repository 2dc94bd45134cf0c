import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Download } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium-server';

/**
 * A browser for one e2e file: a connection to the tier's shared Chromium (support/chromium-server.ts) when
 * the run provides one, else a Chromium of its own. Closing it closes only this file's contexts.
 */
export async function openBrowser(): Promise<Browser> {
  const ws = inject('chromiumWs');
  if (ws) return chromium.connect(ws);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * Where a finished download is on this machine. `download.path()` throws on a browser connected to the
 * shared Chromium (Playwright: "not available when connecting remotely"); `saveAs` streams it over the
 * connection into a file of this process.
 */
export async function downloadedFile(download: Download): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-e2e-download-'));
  const file = path.join(dir, download.suggestedFilename() || 'download');
  await download.saveAs(file);
  return file;
}
