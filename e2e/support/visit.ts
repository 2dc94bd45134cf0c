/**
 * Visiting a console route in a page that already shows the console: inside the app, as a link or the
 * browser's back and forward buttons do, instead of a full page load (issue 26: the route walk's ~170 loads
 * each parsed and compiled the console's JS again — most of the walk's Chromium CPU).
 */
import type { Page } from 'playwright-core';
import { CONSOLE_BASE_PATH } from '@suanli/contracts';
import { LAYOUT_ROUTES, PLAIN_ROUTES } from '../../apps/console/src/app/route-table';
import { idle } from './page';

/**
 * The routes as patterns with the start of the title the console gives their page (app/page-title.tsx: the
 * route's title, then the platform's name); static segments first, as react-router ranks them
 * (`/slurm-template/form` before `/slurm-template/form/:id`). A path that only forwards (REDIRECTS, `/`) has none.
 */
const TITLES = [...LAYOUT_ROUTES, ...PLAIN_ROUTES]
  .map((r) => ({ pattern: `^${r.path.replace(/:\w+/g, '[^/]+')}/?$`, params: (r.path.match(/:/g) ?? []).length, title: `${r.title} - ` }))
  .sort((a, b) => a.params - b.params);

/**
 * Opens `route` (a path of the console, `/storage`): with `load`, a full page load (a deep link); else inside the
 * app — the URL is pushed with the state react-router keeps in its history entries (an index one past the
 * current one, a key) and a `popstate` hands it to the router, which renders it as it renders a forward step:
 * the route's chunk if it is not loaded yet, the page, its calls. Either way the visit ends when the router has
 * rendered the route the URL now names (a redirect's target included: its title is on the tab, set in the same
 * render as the page) and the page has gone quiet and idle (`idle`), so what is looked at next is the new page
 * with its calls answered, never the old one still on screen while a chunk loads. The page must be watched
 * (`watchRequests`) from its first load.
 */
export async function visit(page: Page, route: string, load: boolean) {
  const url = `${CONSOLE_BASE_PATH}${route}`;
  if (load) await page.goto(url);
  else
    await page.evaluate((to) => {
      const idx = Number((history.state as { idx?: number } | null)?.idx ?? 0) + 1;
      history.pushState({ usr: null, key: Math.random().toString(36).slice(2, 10), idx }, '', to);
      dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    }, url);
  await page
    .waitForFunction(
      ({ base, titles }) => {
        const path = location.pathname.slice(base.length) || '/';
        const shown = titles.find((t) => new RegExp(t.pattern).test(path));
        return shown !== undefined && document.title.startsWith(shown.title);
      },
      { base: CONSOLE_BASE_PATH, titles: TITLES },
      // As long as a `goto` may take to load.
      { timeout: 30_000 },
    )
    .catch(async () => {
      throw new Error(`${route}: the console did not render a route of its table (at ${page.url()}, title "${await page.title()}")`);
    });
  await idle(page);
}

/**
 * What stays on the document from one route to the next once a page opened it — a dialog, a drawer (the phone
 * menu's too), a dropdown, a popover, a tooltip, a tour, an image preview, a toast — by class, for the message.
 */
export function openOverlays(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const OVERLAYS = [
      '.ant-modal-wrap',
      '.ant-drawer-open',
      '.ant-dropdown',
      '.ant-popover',
      '.ant-select-dropdown',
      '.ant-picker-dropdown',
      '.ant-tooltip',
      '.ant-tour',
      '.ant-image-preview-wrap',
      '.ant-message-notice',
      '.ant-notification-notice',
    ];
    return Array.from(document.querySelectorAll(OVERLAYS.join(', ')))
      .filter((el) => el.checkVisibility())
      .map((el) => `.${String(el.getAttribute('class') ?? '').split(/\s+/)[0]}`);
  });
}
