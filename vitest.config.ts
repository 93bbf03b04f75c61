import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'
import { SOURCE_CONDITION, sourceResolve } from './source-conditions.ts'

const relayTests = 'packages/relay/test/**/*.test.ts'
/** Tests that never open a store: they run once, with the SQLite project. */
const storeFree = ['cli', 'exports', 'layers', 'pure', 'query-model', 'verify'].map(
  (name) => `packages/relay/test/${name}.test.ts`,
)
/** Tests that inject faults inside SQLite itself: they run with the SQLite project only. */
const sqliteOnly = ['ingest-sqlite-faults', 'sqlite-checkpoints'].map(
  (name) => `packages/relay/test/${name}.test.ts`,
)
/** Tests of several relay processes on one database: PostgreSQL only. */
const clusterTests = 'packages/relay/test/cluster*.test.ts'

/**
 * Test files run this many at a time (`ROOST_TEST_WORKERS`). Vitest's default is one less than the
 * cores, so one file at a time on a 2-core machine, while most relay tests wait on sockets,
 * PostgreSQL and timers: two at a time keep both cores busy.
 */
const WORKERS = Math.max(1, Math.floor(Number(process.env.ROOST_TEST_WORKERS)) || 2)

export default defineConfig({
  ...sourceResolve,
  // Global setups run in Node (the PostgreSQL template's migration): `@roost/*` resolve to sources too.
  environments: { __vitest__: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } } },
  test: {
    maxWorkers: WORKERS,
    exclude: ['**/node_modules/**', '**/*.browser.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      exclude: ['**/*.test.ts'],
      reporter: ['text-summary', 'text'],
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'packages/*/test/**/*.test.ts',
            'packages/*/test/**/*.test.tsx',
            'apps/*/test/unit/**/*.test.ts',
            'test/*.test.ts',
          ],
          exclude: ['**/node_modules/**', '**/*.browser.test.ts', relayTests],
        },
      },
      {
        extends: true,
        test: {
          name: 'relay-sqlite',
          include: [relayTests],
          exclude: ['**/node_modules/**', clusterTests],
        },
      },
      {
        // The same relay suite on PostgreSQL (a throwaway server per run), plus the cluster tests.
        extends: true,
        test: {
          name: 'relay-postgres',
          include: [relayTests],
          exclude: ['**/node_modules/**', ...storeFree, ...sqliteOnly],
          env: { ROOST_TEST_BACKEND: 'postgres' },
          globalSetup: ['packages/relay/test/pg-setup.ts'],
        },
      },
    ],
  },
})
