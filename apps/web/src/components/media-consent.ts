/**
 * The consent rule for every image from elsewhere (message images, profile and group pictures)
 * as a hook: which URLs load at once, and the per-host allow. The rule itself is
 * `lib/media-hosts.ts`.
 */
import { useCallback, useMemo } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { mayAutoLoad, originOf, trustedOrigins } from '../lib/media-hosts'

let lastTrusted: { key: string; origins: Set<string> } | undefined

/**
 * `trustedOrigins` of the same settings, computed once for every picture on screen (a timeline's
 * first paint mounts dozens of them) rather than once each.
 */
function sharedTrustedOrigins(
  blossomServer: string | undefined,
  relays: readonly string[],
  mediaServers: readonly string[],
  allowed: readonly string[] | undefined,
): Set<string> {
  const key = JSON.stringify([blossomServer ?? null, relays, mediaServers, allowed ?? []])
  if (lastTrusted?.key !== key) {
    lastTrusted = { key, origins: trustedOrigins(blossomServer, relays, mediaServers, allowed) }
  }
  return lastTrusted.origins
}

/**
 * `(url) => whether it may load now`, following Settings (server, allowed hosts, load all).
 * @example const mayLoad = useMayLoad(); mayLoad('https://tracker.example/p.png') // false until allowed
 */
export function useMayLoad(): (url: string) => boolean {
  const snap = useAppSnapshot()
  const { blossomServer, loadAllImages, allowedHosts } = snap.settings
  const relays = useMemo(
    () => [...snap.relays, ...snap.groups.map((g) => g.relay)],
    [snap.relays, snap.groups],
  )
  const media = snap.mediaServers
  const trusted = useMemo(
    () => sharedTrustedOrigins(blossomServer, relays, Object.values(media), allowedHosts),
    [blossomServer, relays, media, allowedHosts],
  )
  return useCallback(
    (url: string) => mayAutoLoad(url, trusted, loadAllImages === true),
    [trusted, loadAllImages],
  )
}

/**
 * Allows (or, with `allow` false, forgets) every image and picture from `url`'s origin.
 * @example const allow = useAllowHost(); allow('https://pics.example/me.png') // pics.example loads from now on
 */
export function useAllowHost(): (url: string, allow?: boolean) => void {
  const app = useApp()
  return useCallback(
    (url: string, allow = true) => {
      const origin = originOf(url)
      if (!origin) return
      const current = app.snapshot().settings.allowedHosts ?? []
      const rest = current.filter((h) => h !== origin)
      app.setSettings({ allowedHosts: allow ? [...rest, origin] : rest })
    },
    [app],
  )
}
