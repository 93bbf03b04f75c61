#!/usr/bin/env node
// The `roost-relay` command. An installed package runs its built JavaScript (`dist/`); it ships
// `src/` too, for its source maps. Inside the repository (told apart by `tsconfig.build.json`,
// which is not packed) it runs the TypeScript sources through tsx, with the workspace's `@roost/*`
// packages resolved to their sources too, so no build step is needed.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli.ts', import.meta.url)
let cli
if (existsSync(new URL('../tsconfig.build.json', import.meta.url))) {
  const { register } = await import('tsx/esm/api')
  register()
  const { register: registerHooks } = await import('node:module')
  const hook = `export async function resolve(specifier, context, next) {
    return next(specifier, { ...context, conditions: ['@roost/source', ...context.conditions] })
  }`
  registerHooks(`data:text/javascript,${encodeURIComponent(hook)}`)
  cli = await import(source.href)
} else {
  cli = await import('../dist/cli.js')
}
await cli.main(process.argv.slice(2))
