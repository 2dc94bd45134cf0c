import { chromium, type Browser } from 'playwright-core';
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
