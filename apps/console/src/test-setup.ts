import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';

// The machines that run the suite are shared and often loaded: a page that renders in 100 ms alone can
// take seconds there. Waiting longer only costs time when a test is failing anyway.
configure({ asyncUtilTimeout: 5_000 });

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
  if (hasDom) message = (await import('antd/es/message')).default;
});

const settle = async () => {
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setImmediate(r));
  }
};

afterAll(async () => {
  cleanup();
  await settle();
  message?.destroy();
  await settle();
});
