import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'console',
    root: import.meta.dirname,
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['./src/test-setup.ts'],
    isolate: process.env.TEST_ISOLATE === '1',
    // First renders import antd and a lazy route chunk; on a loaded machine that alone can pass 5 s.
    testTimeout: 30_000,
  },
});
