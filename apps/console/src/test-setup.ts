import { cleanup, configure, getConfig } from '@testing-library/react';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { resetNavigate } from './app/navigation';
import { endSession } from './app/session';
import { resetUploads } from './shared/upload/store';

// The machines that run the suite are shared and often loaded: a page that renders in 100 ms alone can
// take seconds there. Waiting longer only costs time when a test is failing anyway. (CI19, on a machine where
// the vitest tier took 1021 s, found a lazy form's first render past 5 s and this went to 15 s; back to 5 s in
// session 21, once the console's files ran ~25 % cheaper and without Chromium beside them.)
configure({ asyncUtilTimeout: 5_000 });

/**
 * A failed `getBy*` builds its error with a dump of the whole DOM. Inside `findBy*`/`waitFor` that query fails on
 * every poll (each DOM mutation and every 50 ms) until the element appears, and on a page of antd forms each dump
 * cost milliseconds: ~0.5 CPU-s of training-form-page's 12 went to dumps nobody read (issue 26). A poll's error is
 * only kept if the wait times out, and then waitFor passes its message through getElementError again, outside the
 * poll, which appends the DOM as it is at the timeout: so a poll's error skips the dump, and a failing test still
 * shows the DOM (once, instead of twice). A query that fails outside a wait still dumps at once.
 */
type GetElementError = ReturnType<typeof getConfig>['getElementError'];
// The shared worker runs this file for each test file: wrap Testing Library's own function, not the last file's wrapper.
const WRAPPED = Symbol.for('suanli.test.wrapped-get-element-error');
const current = getConfig().getElementError as GetElementError & { [WRAPPED]?: GetElementError };
const getElementError = current[WRAPPED] ?? current;
const skipDumpInPoll: GetElementError = (message, container) => {
  const inPoll = (getConfig() as { _disableExpensiveErrorDiagnostics?: boolean })._disableExpensiveErrorDiagnostics;
  // `message === null`: one of several matches, whose own (small) dump makes the "multiple elements" message.
  if (!inPoll || message === null) return getElementError(message, container);
  const error = new Error(message);
  error.name = 'TestingLibraryElementError';
  return error;
};
configure({ getElementError: Object.assign(skipDumpInPoll, { [WRAPPED]: getElementError }) });

/**
 * The console runs antd in its zero-runtime mode (app/theme.ts `zeroRuntime`): components generate no styles and
 * read antd's static stylesheet, which main.tsx imports. Tests load no stylesheet at all (no test depends on a
 * computed antd style; happy-dom matched every element of every getComputedStyle — Testing Library's role queries,
 * TextArea's autosize — against all of antd's injected CSS), and many render a page without the app's
 * ConfigProvider (a QueryClientProvider and a router only): antd's default design context is made zero-runtime
 * too, so those generate no styles either. One build: `antd` is its CommonJS build here, and vitest.config.ts
 * points `antd/es/*` there too.
 */
type DesignContext = { defaultConfig: { zeroRuntime?: boolean } };
const require = createRequire(import.meta.url);
(require('antd/lib/theme/context') as DesignContext).defaultConfig.zeroRuntime = true;

/**
 * What antd still computes at run time in that mode — the theme's tokens and each component's CSS variables —
 * it keeps in a cache counted by the components that use it; when the count drops to 0 (every test's unmount)
 * the entry is dropped and the next render computes it again. In a browser the app stays mounted; here each
 * entry is pinned once it exists, so a worker computes each once. The CSS-variable `<style>` elements (removed at
 * the count's 0, injected again by the next render) would simply stay (they are kept out of the document, below).
 * antd's CommonJS build requires cssinjs' CommonJS one, the one pinned. The shared worker runs this file for each
 * test file: patch once.
 */
const PINNED = Symbol.for('suanli.test.cssinjs-pinned');
type CacheEntry = [number, unknown];
interface CssinjsCache { opUpdate(key: string, valueFn: (prev?: CacheEntry) => CacheEntry | null): void; [PINNED]?: true }
const pinCssinjsCache = (Cache: { prototype: CssinjsCache }) => {
  const proto = Cache.prototype;
  if (proto[PINNED]) return;
  const opUpdate = proto.opUpdate;
  proto.opUpdate = function (this: CssinjsCache & { cache: Map<string, unknown> }, key, valueFn) {
    if (this.cache.has(key)) return opUpdate.call(this, key, valueFn);
    // A new entry starts with one count of its own, which no unmount takes back.
    return opUpdate.call(this, key, (prev) => {
      const next = valueFn(prev);
      return next && [next[0] + 1, next[1]];
    });
  };
  proto[PINNED] = true;
};
pinCssinjsCache(require('@ant-design/cssinjs/lib/Cache').default);

/**
 * What zero-runtime antd still writes into the document are those CSS variables: `<style>` elements of custom
 * properties (hundreds for the theme, more per component) on the `.css-var-…` class that every antd element carries.
 * Tests load no antd stylesheet, so nothing reads them; but happy-dom's getComputedStyle parses each matching rule
 * of the element and of every ancestor, and with those variables a call on an element inside a form cost ~50 ms
 * instead of ~2 ms (a probe on the training form, at load ~10: 135 calls with a cold cache, 7.2 s against
 * 0.25 s). TextArea's
 * autosize, rc-trigger's scroll parents, antd's Form and Testing Library's role queries call it on every change.
 * So cssinjs's style elements (its `data-css-hash` mark) are made but not put into the document. What a test sees
 * does not change: no rule used the variables, and inline styles and classes are untouched. Other injected
 * styles (the modal's scroll lock, the scrollbar measurement) are inserted as before.
 */
type UpdateCSS = (css: string, key: string, option?: { mark?: string }) => HTMLStyleElement;
const KEPT_OUT = Symbol.for('suanli.test.cssinjs-styles-kept-out');
const dynamicCSS = require('@rc-component/util/lib/Dom/dynamicCSS') as { updateCSS: UpdateCSS; [KEPT_OUT]?: true };
if (!dynamicCSS[KEPT_OUT]) {
  const updateCSS = dynamicCSS.updateCSS;
  dynamicCSS.updateCSS = (css, key, option = {}) => {
    if (option.mark !== 'data-css-hash') return updateCSS(css, key, option);
    const style = document.createElement('style');
    style.setAttribute(option.mark, key);
    style.textContent = css;
    return style;
  };
  dynamicCSS[KEPT_OUT] = true;
}

/**
 * React 19's development build gives every element it creates an "owner stack": it captures an Error (a stack
 * walk) and a console task per createElement/jsx call, up to 10 000 per render, for the component stacks of its
 * warnings and for DevTools. antd pages create hundreds of thousands of elements per test file, and that capture
 * was the single largest function in the profiles of the slowest console files (~1.3 of training-form-page's ~12
 * CPU-s, plus its garbage; issue 26). React counts the stacks it made since the last render in
 * `recentlyCreatedOwnerStacks` and stops at 10 000: the count is held at that limit, so elements get React's
 * "unknown owner" stack. Nothing a test asserts changes; React still prints every warning, with a shorter
 * component stack. `TEST_OWNER_STACKS=1` puts the owner stacks back (to find where a warning comes from).
 */
if (process.env.TEST_OWNER_STACKS !== '1') {
  const internals = (require('react') as { __CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE: object })
    .__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE;
  Object.defineProperty(internals, 'recentlyCreatedOwnerStacks', { configurable: true, get: () => 10_000, set: () => {} });
}

// Testing Library unmounts after each test only when the runner exposes globals; ours does not.
afterEach(cleanup);

/**
 * Toasts live in antd's static message root, outside what Testing Library unmounts; the app loads it on the
 * first toast and each toast closes itself after 3 s. A toast whose import or close finished after vitest
 * tore the DOM environment down re-rendered that root, and React's scheduler then failed the whole run with
 * "window is not defined" (seen in CI on a loaded machine). So: load it before the tests (the app's lazy
 * import then resolves at once), and at the end unmount, remove every toast and let the resulting renders
 * and passive effects run while the DOM still exists.
 */
let message: typeof import('antd/es/message').default | undefined;
const hasDom = typeof document !== 'undefined';
beforeAll(async () => {
  // Files that run in the node environment (the uploader's) have no DOM and no toasts.
  if (!hasDom) return;
  message = (await import('antd/es/message')).default;
  // The app gives the toast root its theme and locale (`ConfigProvider.config({ holderRender })`) when
  // app/providers.tsx loads, at start; with one antd build (vitest.config.ts) that reaches the tests' toasts too.
  // A worker loaded it with the first file that renders through the providers:
  // a root made before that (storage-page renders its pages without them) re-rendered under the holder at its
  // next toast, which mounted antd's message holder anew while antd kept calling the first one, now unmounted:
  // every later toast of the worker was dropped ("You are calling notice in render"; workorder after
  // storage-page). Loaded here, the root is made as the app makes it.
  await import('./app/providers');
  // And each file gets a toast root of its own, made at its first toast under the holder its modules set: after a
  // file resets the module cache (`vi.resetModules`, user-store.test) the next file's providers.tsx runs again and
  // sets a new holder component, under which a root made before it lost its message holder in the same way
  // (request.test's toasts after user-store.test). antd exports this reset for tests (NODE_ENV=test, as vitest sets).
  (require('antd/lib/message') as { actDestroy(): void }).actDestroy();
  // happy-dom runs no CSS transitions, so a closed or destroyed toast waited for a transitionend that never
  // came and stayed in the DOM in its leave state: the next test (or, with a shared DOM, the next file) found
  // it (`Found multiple elements with the text: 工单已提交`). Without motion a toast leaves when it closes.
  // The static root's theme only; the pages' own ConfigProvider is untouched.
  (await import('antd/es/config-provider')).default.config({ theme: { token: { motion: false } } });
});

// Each test starts without the previous test's toasts (they would otherwise stay up to 3 s into it).
afterEach(() => message?.destroy());

/** vitest's happy-dom URL, where every file starts. */
const TEST_URL = 'http://localhost:3000/';

/**
 * A click on an `<a download>` (browserDownload, downloadCsv: the private key, CSV exports, files) makes a
 * browser save the file and stay on the page. happy-dom has no downloads: it navigated its window to the
 * link instead (`blob:x`), and against a `blob:` URL no relative URL resolves, so every later
 * `history.replaceState(null, '', '/…')` of the worker — this file's, test-setup's below and, with shared
 * workers, every later file's — put the window on `about:blank`. A session expiry there read the app path
 * `/` and sent the user to plain /login (request.test, session-ended, after keypair-pages in one worker).
 * Here, as in a browser, such a click does not navigate.
 */
const keepPageOnDownload = (event: Event) => {
  if (event.target instanceof Element && event.target.closest('a[download]')) event.preventDefault();
};
if (hasDom) {
  beforeAll(() => document.addEventListener('click', keepPageOnDownload, true));
  afterAll(() => document.removeEventListener('click', keepPageOnDownload, true));
}

const settle = async () => {
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setImmediate(r));
  }
};

/**
 * The files of a worker share one module cache and one DOM (`isolate: false`, vitest.config.ts), so what a
 * file leaves behind in a module-level singleton is the next file's starting state. Each is put back here,
 * after the file's own hooks: the signed-in user (store and localStorage) and every cached answer and the
 * 退出登录 flag (`endSession`), the upload tasks and their runner (`resetUploads`), the navigate a test or an
 * unmounted router lent (`resetNavigate`), stubbed globals and fake timers, storage, the URL and the title.
 * With isolation (`TEST_ISOLATE=1`) this costs nothing that matters: the next file starts from fresh modules
 * and a fresh window anyway.
 */
afterAll(async () => {
  cleanup();
  await settle();
  message?.destroy();
  await settle();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  endSession();
  resetUploads();
  resetNavigate();
  if (hasDom) {
    window.localStorage.clear();
    window.sessionStorage.clear();
    // antd's CSS-variable styles are kept out of the document (above); were one to get in (a cssinjs build that
    // is not patched), it would stay in the shared document and every later getComputedStyle of the worker would
    // match against it. The next file starts with none, as with isolation.
    document.head.querySelectorAll('style[data-css-hash]').forEach((style) => style.remove());
    const leftAt = window.location.href;
    window.history.replaceState(null, '', '/');
    document.title = '';
    // A file that navigated the window away (another origin, a blob: or about: URL) cannot be put back with
    // replaceState, and the next file sharing the worker would start there (see keepPageOnDownload above): put
    // it back, and fail this file, the one that left it.
    if (window.location.href !== TEST_URL) {
      (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(TEST_URL);
      throw new Error(`The file left the window at ${leftAt}; each file must end on the test origin (${TEST_URL}).`);
    }
  }
});
