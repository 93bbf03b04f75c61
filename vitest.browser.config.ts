import { playwright } from '@vitest/browser-playwright'
import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'
import { SOURCE_CONDITION, sourceResolve } from './source-conditions.ts'
import { faultProxyCommands } from './test/support/fault-proxy-commands.ts'

/** Tests that need a real browser (IndexedDB and other DOM APIs), in Debian's headless Chromium. */
export default defineConfig({
  ...sourceResolve,
  // The relays of the global setup run in Node: their `@roost/*` imports resolve to sources too.
  environments: { __vitest__: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } } },
  // Pre-bundle the browser tests' dependencies up front: discovering them mid-run makes Vite
  // reload the page and fail the first run on a fresh cache.
  optimizeDeps: {
    include: [
      'nostr-tools',
      'nostr-tools/core',
      'nostr-tools/pure',
      'nostr-tools/filter',
      'nostr-tools/nip19',
      'nostr-tools/nip44',
      'nostr-tools/nip46',
      'nostr-tools/pool',
      'nostr-tools/abstract-relay',
      'nostr-wasm',
      '@noble/hashes/utils.js',
      '@noble/hashes/sha2.js',
      '@noble/hashes/hkdf.js',
      '@noble/hashes/hmac.js',
      '@noble/ciphers/chacha.js',
      '@noble/ciphers/utils.js',
      '@noble/curves/secp256k1.js',
      'fast-check',
    ],
  },
  test: {
    include: ['packages/*/test/**/*.browser.test.ts', 'apps/*/test/browser/**/*.browser.test.ts'],
    testTimeout: 20_000,
    // Real relays for the browser tests, started in Node.
    globalSetup: ['packages/client/test/browser-relays.setup.ts'],
    browser: {
      enabled: true,
      // The fault proxy runs in Node; pages drive it through these (test/support/fault-proxy-commands.ts).
      commands: faultProxyCommands,
      headless: true,
      provider: playwright({
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
})
