import type { Roost } from '@roost/client'
import type { ForkReport } from '@roost/nip29'

/**
 * Follows the admins' 10009 lists of one group (moved or copied groups) and calls `fn` with each
 * report, the current one first; returns the stop function. An unknown group reports nothing.
 */
export function watchForks(roost: Roost, key: string, fn: (report: ForkReport) => void): () => void {
  if (!roost.groups.group(key)) return () => {}
  const watch = roost.groups.watchForks(key)
  const stop = watch.subscribe(fn)
  fn(watch.report)
  return () => {
    stop()
    watch.close()
  }
}
