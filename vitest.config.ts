import { defineConfig } from 'vitest/config'
import { sourceResolve } from './source-conditions.ts'

export default defineConfig({
  ...sourceResolve,
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'packages/*/test/**/*.test.tsx',
      'apps/*/test/unit/**/*.test.ts',
      'test/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/*.browser.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      exclude: ['**/*.test.ts'],
      reporter: ['text-summary', 'text'],
    },
  },
})
