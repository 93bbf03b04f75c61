/** True when `db` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db)
}

/** The URL with its password replaced by `***`, for logs and the CLI's banner. */
export function redactDbUrl(db: string): string {
  if (!isPostgresUrl(db)) return db
  try {
    const u = new URL(db)
    if (u.password) u.password = '***'
    return u.href
  } catch {
    return 'postgres://…'
  }
}
