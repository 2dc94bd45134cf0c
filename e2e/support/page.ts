import type { Page } from 'playwright-core';

/** Waits until no CSS animation or transition runs (antd's modal zoom, selection fades; endless spinners aside), for stable clicks and shots. */
export async function settled(page: Page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 5_000 });
}
