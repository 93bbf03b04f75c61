import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { ensureBuilt, webRoot } from '../../server/build'

declare module 'vitest' {
  export interface ProvidedContext {
    browserWsEndpoint: string
  }
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Builds the client if the sources changed, and launches the one browser the suite shares. */
export default async function setup(project: TestProject) {
  // Screenshots of failures from an earlier run would mislead.
  const results = join(webRoot, 'test-results')
  if (existsSync(results))
    for (const f of readdirSync(results)) if (f.startsWith('failed-')) rmSync(join(results, f))
  await ensureBuilt({ log: (l) => console.log(l) })
  const server = await chromium.launchServer({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  })
  project.provide('browserWsEndpoint', server.wsEndpoint())
  return async () => {
    await server.close()
  }
}
