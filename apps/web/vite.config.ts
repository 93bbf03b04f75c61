import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { sourceResolve } from '../../source-conditions.ts'

/**
 * The chat client. `vite build` writes `dist/`, which the relay serves beside its WebSocket
 * endpoint (`npm start`). In `vite dev`, point the client at a running relay with `?relay=ws://…`.
 */
export default defineConfig({
  ...sourceResolve,
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
})
