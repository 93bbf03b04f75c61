import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { ensureBuilt, webRoot } from '../../server/build'
import { E2E_WORKERS } from './workers'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The first browser (a file that needs one browser of the run). */
    browserWsEndpoint: string
    /** One browser per worker: a file uses the one of its worker (`VITEST_POOL_ID`). */
    browserWsEndpoints: string[]
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

/** Builds the client if the sources changed, and launches one browser per worker for the run. */
export default async function setup(project: TestProject) {
  // Screenshots of failures from an earlier run would mislead.
  const results = join(webRoot, 'test-results')
  if (existsSync(results))
    for (const f of readdirSync(results)) if (f.startsWith('failed-')) rmSync(join(results, f))
  await ensureBuilt({ log: (l) => console.log(l) })
  const servers = await Promise.all(
    Array.from({ length: E2E_WORKERS }, () =>
      chromium.launchServer({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: CHROMIUM_ARGS,
      }),
    ),
  )
  const endpoints = servers.map((s) => s.wsEndpoint())
  project.provide('browserWsEndpoint', endpoints[0] as string)
  project.provide('browserWsEndpoints', endpoints)
  return async () => {
    await Promise.all(servers.map((s) => s.close()))
  }
}
