import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/**
 * Debian's Chromium headless shell (package chromium-headless-shell: the same Chromium build, Blink and V8 as the
 * `chromium` package, without the desktop browser's window and tab UI — what Playwright itself runs for headless).
 * Full Chromium in its headless mode builds that UI for every page: a new page cost ~1 CPU-s there against ~0.15
 * here (session 19 probe, 10 contexts: 9.8–11 vs 1.3–1.4 CPU-s), and Chromium was 44 % of the whole CI's CPU
 * (issue 26). CHROMIUM_PATH=/usr/bin/chromium runs the tier in the full browser.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Flags from quality.md: no background networking on these closed machines, a fresh profile per run. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** The e2e tier's one Chromium (issue 26): each file connects to it instead of launching its own. */
    chromiumWs: string;
  }
}

/**
 * vitest globalSetup of the e2e project: one Chromium for the whole tier. Launching a browser per file cost
 * a second or more each on a loaded 2-core machine; a file still gets its own connection, and its contexts
 * (cookies, storage, cache) are its own and close with it. A file run without this setup (another config)
 * launches its own browser (support/env.ts).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  project.provide('chromiumWs', server.wsEndpoint());
  return () => server.close();
}
