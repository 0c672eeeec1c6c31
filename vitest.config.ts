import { defineConfig } from 'vitest/config';

/** Test configuration: every suite runs against real servers on loopback, so give slow machines some slack. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
