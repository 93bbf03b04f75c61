import { playwright } from '@vitest/browser-playwright'
import { defineConfig } from 'vitest/config'

/** Tests that need a real browser (IndexedDB and other DOM APIs), in Debian's headless Chromium. */
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.browser.test.ts', 'apps/*/test/browser/**/*.browser.test.ts'],
    testTimeout: 20_000,
    browser: {
      enabled: true,
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
