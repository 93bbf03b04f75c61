import { defineConfig } from 'vitest/config'
import { sourceResolve } from '../../source-conditions.ts'

/**
 * The web client end to end: the built client served by the real relay (in-process, port 0,
 * in-memory SQLite) and driven in Debian's headless Chromium through playwright-core. One
 * browser for the whole run (launched in global setup); each test opens its own contexts.
 */
export default defineConfig({
  ...sourceResolve,
  root: import.meta.dirname,
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
})
