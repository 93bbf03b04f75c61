// Packages only some deployments need (PostgreSQL's driver, the LiveKit SDK) are optional peers:
// they are loaded when a feature asks for them, and a missing one is named in the error.
import { RelayError } from './errors'

/**
 * A feature needs a package that is not installed (`code: 'missing-package'`). `pkg` is the npm
 * name to install.
 *
 * @example
 * try { await startRelay({ db: 'postgres://…' }) } catch (e) { if (e instanceof MissingPackageError) console.error(e.message) }
 */
export class MissingPackageError extends RelayError {
  constructor(
    /** The npm package to install (e.g. `pg`). */
    readonly pkg: string,
    feature: string,
  ) {
    super('missing-package', `${feature} needs the package '${pkg}': npm install ${pkg}`)
    this.name = 'MissingPackageError'
  }
}

/** True when `err` is Node's (or a bundler's) "cannot find package `pkg`". */
function isMissing(err: unknown, pkg: string): boolean {
  const e = err as { code?: string; message?: string } | null
  if (!e || typeof e.message !== 'string') return false
  const notFound = e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND'
  return (
    (notFound || /Cannot find (package|module)/.test(e.message)) &&
    (e.message.includes(`'${pkg}'`) || e.message.includes(`"${pkg}"`))
  )
}

/**
 * Runs `load` (a dynamic import of a module that imports `pkg`); when `pkg` is not installed,
 * rejects with {@link MissingPackageError} naming it and the feature that wanted it.
 *
 * @example
 * const { PostgresStore } = await loadOptional('pg', '--db postgres://…', () => import('./store/postgres'))
 */
export async function loadOptional<T>(pkg: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (err) {
    if (isMissing(err, pkg)) throw new MissingPackageError(pkg, feature)
    throw err
  }
}
