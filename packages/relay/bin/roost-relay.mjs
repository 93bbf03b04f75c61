#!/usr/bin/env node
// Runs the relay's TypeScript sources directly through tsx's loader (no build step).
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli.ts')
await main(process.argv.slice(2))
