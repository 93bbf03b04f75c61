import { defineConfig } from 'vitest/config'
import { sourceResolve } from '../../source-conditions.ts'
import { E2E_WORKERS } from './test/e2e/workers.ts'

/**
 * The web client end to end: the built client served by the real relay (in-process, port 0,
 * in-memory SQLite) and driven in Debian's headless Chromium through playwright-core. Files run
 * {@link E2E_WORKERS} at a time; global setup launches one browser per worker for the whole run,
 * and each file opens its own contexts in its worker's browser.
 */
export default defineConfig({
  ...sourceResolve,
  root: import.meta.dirname,
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    maxWorkers: E2E_WORKERS,
    // Files share their worker's modules (the relay, the harness): each file's opening skips the
    // import, and nothing here keeps state between files (each starts its own stack).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
})
