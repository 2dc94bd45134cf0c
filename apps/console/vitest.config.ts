import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

export default defineProject({
  plugins: [react()],
  /**
   * `antd` is antd's CommonJS build in Node (its package.json `main`), which the workers require as it is; the app's
   * `antd/es/*` imports (message, locale, Input, Search, Drawer, Alert: chosen for the bundle) loaded the ES build
   * beside it, and that one is not valid Node ESM, so vite transformed it and its `@rc-component/*` ES imports for
   * every worker — two copies of much of antd, each with its own contexts and caches. Here they are the same
   * modules of the CommonJS build (same paths under `lib/`), so a worker loads antd once (issue 26). The app's
   * toast holder (`ConfigProvider.config` in app/providers.tsx) now reaches the toasts, as in the app: test-setup.ts
   * loads providers before any toast.
   */
  resolve: { alias: [{ find: /^antd\/es\//, replacement: 'antd/lib/' }] },
  test: {
    name: 'console',
    root: import.meta.dirname,
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['./src/test-setup.ts'],
    /**
     * One module cache and one DOM per worker, as for the server projects; `TEST_ISOLATE=1` isolates every file
     * again (to tell a leak from a bug). Without isolation the project took 103 s instead of 231 s (CI17,
     * `import` 202 s → 25 s; session 18's measurement in docs/plan/26.md). test-setup.ts puts back what a file
     * leaves in module-level singletons and in the shared window (session, query cache, upload store, navigate,
     * toasts, globals, storage, URL), keeps an `<a download>` click from navigating the window, and fails a
     * file that leaves the window off the test origin.
     */
    isolate: process.env.TEST_ISOLATE === '1',
    // First renders import antd and a lazy route chunk; on a loaded machine that alone can pass 5 s.
    testTimeout: 30_000,
  },
});
