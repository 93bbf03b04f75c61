// Runs every bench/*.bench.ts in its own process, one after another, so one cannot warm the next.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const only = process.argv[2]
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
  .sort()
if (files.length === 0) {
  console.log('no benchmarks yet')
  process.exit(0)
}
let failed = 0
for (const file of files) {
  console.log(`\n# ${file}`)
  // The benches measure the workspace's sources: `@roost/*` resolves to them (and so in every
  // process or worker a bench starts, through NODE_OPTIONS).
  const env = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=@roost/source`.trim(),
  }
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit', env })
  if (run.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
