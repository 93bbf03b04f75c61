// `npm start`: the web client served beside the embedded relay. Until apps/web lands, say so.
import { existsSync } from 'node:fs'

if (!existsSync('apps/web/src/main.tsx')) {
  console.log('Roost: the web client arrives with apps/web. For now run `npm test`.')
  process.exit(0)
}
await import('../apps/web/server/start.ts')
