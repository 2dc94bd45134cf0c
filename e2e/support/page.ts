import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { describeLeaks, englishLeaks } from './english';
import type { E2eEnv } from './env';

/** Waits until no CSS animation or transition runs (antd's modal zoom, selection fades; endless spinners aside), for stable clicks and shots. */
export async function settled(page: Page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), undefined, { timeout: 5_000 });
}

/**
 * Once what a resize or an opening dialog changes is on screen, for a screenshot: two animation frames (the
 * breakpoint listeners — matchMedia, resize — and the charts' ResizeObservers have run, React has committed and
 * the browser painted), then no animation running (`settled`). It replaces fixed 300–500 ms sleeps (issue 26).
 */
export async function painted(page: Page) {
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  await settled(page).catch(() => undefined);
}

/** Requests in flight per page, and when that number last changed (`watchRequests`, `quiet`). */
const traffic = new WeakMap<Page, { inFlight: number; changed: number }>();

/** Counts the page's requests from now on, for `quiet`: call it before the page's first navigation. */
export function watchRequests(page: Page) {
  if (traffic.has(page)) return;
  const t = { inFlight: 0, changed: Date.now() };
  traffic.set(page, t);
  const count = (d: number) => () => {
    t.inFlight += d;
    t.changed = Date.now();
  };
  page.on('request', count(1));
  page.on('requestfinished', count(-1));
  page.on('requestfailed', count(-1));
}

/**
 * Resolves once no request of the page has been in flight for `ms` (at most 10 s): Playwright's `networkidle`
 * waits a fixed 500 ms, which was half of every visit of the route walk; a page's lazy chunk and its calls
 * follow each other closer than this. The page must be watched (`watchRequests`) from its first navigation.
 */
export async function quiet(page: Page, ms = 200) {
  const t = traffic.get(page);
  if (!t) throw new Error('quiet(page): call watchRequests(page) before the page navigates');
  const until = Date.now() + 10_000;
  while (Date.now() < until && (t.inFlight > 0 || Date.now() - t.changed < ms)) await new Promise((r) => setTimeout(r, 25));
}

/**
 * `quiet`, and the page's main thread idle too, with no request started or finished meanwhile (at most ~10 s).
 * After an in-app navigation nothing marks the end the way a load event does: the router may render the new
 * route from a chunk it already has (no request at all), and a render that outlasts `quiet`'s window would
 * leave the old page (or half the new one) to be read. React renders in scheduled tasks and runs the effects
 * that start the page's calls in tasks too, so an idle callback only runs once that work is done; the calls
 * it started are then caught by the next round of `quiet`.
 */
export async function idle(page: Page, ms = 200) {
  const t = traffic.get(page);
  if (!t) throw new Error('idle(page): call watchRequests(page) before the page navigates');
  const until = Date.now() + 10_000;
  for (;;) {
    await quiet(page, ms);
    const mark = t.changed;
    await page.evaluate(
      (deadline) =>
        new Promise<void>((done) => {
          // An idle callback that ran because its timeout passed says nothing: ask again until one runs idle.
          const ask = () => requestIdleCallback((d) => (!d.didTimeout || Date.now() > deadline ? done() : ask()), { timeout: 1_000 });
          ask();
        }),
      Date.now() + 5_000,
    );
    if ((t.changed === mark && t.inFlight === 0) || Date.now() > until) return;
  }
}

/** The page does not scroll sideways once its layout settles; the failure names the element reaching furthest right. */
export async function noHorizontalScroll(p: Page) {
  // The settled layout counts: a loaded machine once measured a page mid-render (CI, session 5); the
  // message names the widest element if it never settles.
  let last = '';
  await expect
    .poll(
      async () => {
        const m = await measure(p);
        last = m.message;
        return m.scrollWidth <= m.innerWidth;
      },
      { timeout: 5_000, interval: 300 },
    )
    .toBe(true)
    .catch(() => {
      throw new Error(last);
    });
}

async function measure(p: Page) {
  const { scrollWidth, innerWidth, widest } = await p.evaluate(() => {
    // The element reaching furthest right names the culprit in the failure message.
    let widest = '';
    let right = 0;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect().right;
      if (r > right) {
        right = r;
        widest = `${el.tagName.toLowerCase()}.${String(el.className).split(' ').slice(0, 2).join('.')} [${el.getAttribute('data-testid') ?? ''}] right=${Math.round(r)}`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, widest };
  });
  return { scrollWidth, innerWidth, message: `${p.url()} scrolls sideways: scrollWidth ${scrollWidth} > innerWidth ${innerWidth}; widest: ${widest}` };
}

/** No English in the page once it settles (support/english.ts); `what` names the page in the failure. */
export async function speaksChinese(p: Page, what: string) {
  await settled(p).catch(() => undefined);
  expect(describeLeaks(what, await englishLeaks(p))).toEqual([]);
}

/** A full-page screenshot once animations end (`env.shot`). */
export async function settledShot(env: Pick<E2eEnv, 'shot'>, p: Page, name: string) {
  await settled(p).catch(() => undefined);
  await env.shot(p, name);
}

/** A full-page shot from the top, the pointer off every menu and tooltip (as a user reading the page). */
export async function readingShot(env: Pick<E2eEnv, 'shot'>, p: Page, name: string) {
  await p.evaluate(() => window.scrollTo(0, 0));
  const size = p.viewportSize();
  await p.mouse.move(2, (size?.height ?? 800) - 2);
  await settledShot(env, p, name);
}

/** The header's 剩余算力 (标准卡时) as a number. */
export const headerBalance = async (p: Page) => Number((await p.getByTestId('header-comp-power').getAttribute('data-value')) || 'NaN');
