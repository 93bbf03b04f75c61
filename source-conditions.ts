import { defaultClientConditions, defaultServerConditions, type UserConfig } from 'vite'

/**
 * Inside the workspace, `@roost/*` packages resolve to their TypeScript sources through the
 * `@roost/source` export condition, so tests, the dev server and the web build never need a
 * `npm run build` first. Installed packages (no such condition) load their built `dist/`.
 */
export const SOURCE_CONDITION = '@roost/source'

/** The `resolve` and `ssr.resolve` settings that turn the condition on. */
export const sourceResolve: Pick<UserConfig, 'resolve' | 'ssr'> = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
}
