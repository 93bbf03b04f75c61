import { startRelay } from '@roost/relay'
import { type EventTemplate, finalizeEvent, generateSecretKey, getPublicKey, nip19, nip44 } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { startBunker } from './bunker'
import {
  joinByCode,
  messageIn,
  newPerson,
  screenshot,
  send,
  seriousViolations,
  signInWithNsec,
  signUp,
  withStack,
} from './harness'

const { stack } = withStack({ relay: { demo: true } })

describe('serving and signing in', () => {
  test('the CSP lets the page fetch NIP-11 from a ws:// relay on another origin (over http)', async () => {
    const other = await startRelay({ port: 0, host: '127.0.0.1', db: ':memory:' })
    try {
      const person = await newPerson(stack)
      await person.page.goto(stack.base)
      const info = other.url.replace(/^ws/, 'http')
      expect(new URL(info).origin).not.toBe(new URL(stack.base).origin)
      const answer = await person.page.evaluate(async (url) => {
        try {
          const res = await fetch(url, { headers: { Accept: 'application/nostr+json' } })
          const doc = (await res.json()) as { name?: string; pubkey?: string; self?: string }
          return { ok: res.ok, key: doc.self ?? doc.pubkey ?? '' }
        } catch (err) {
          return { ok: false, key: String(err) }
        }
      }, info)
      expect(answer.ok, answer.key).toBe(true)
      expect(answer.key).toMatch(/^[0-9a-f]{64}$/)
    } finally {
      await other.close()
    }
  })

  test('the relay serves the client with a Content-Security-Policy, and deep links fall back to it', async () => {
    const res = await fetch(stack.base)
    expect(res.status).toBe(200)
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toMatch(/script-src 'self'/)
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/)
    expect(await res.text()).toContain('<div id="root"></div>')
    const deep = await fetch(`${stack.base}/some/route`)
    expect(deep.status).toBe(200)
    expect(deep.headers.get('content-security-policy')).toBe(csp)
  })

  test('a new key is made in the browser, its nsec shown for export, and it signs back in after a reload', async () => {
    const person = await newPerson(stack)
    const { page } = person
    await page.goto(stack.base)
    await page.getByRole('heading', { name: 'Roost' }).waitFor()
    expect(await page.getByLabel('Relay').inputValue()).toBe(stack.relay.url)
    await screenshot(page, 'signin')
    expect(await seriousViolations(page)).toEqual([])

    const nsec = await signUp(stack, person, 'Ada')
    expect(nsec).toMatch(/^nsec1[02-9ac-hj-np-z]{58}$/)
    // The display name chosen at sign-up is published as kind 0 and shown in the sidebar.
    await page.locator('.me').getByText('Ada').waitFor()
    // A first visit lists the relay's groups on the welcome page.
    await page.getByRole('list', { name: 'Groups on this relay' }).getByText('General').waitFor()
    await screenshot(page, 'welcome')
    expect(await seriousViolations(page)).toEqual([])
    await page.reload()
    await page.getByRole('navigation', { name: 'Groups' }).waitFor()
    await page.locator('.me').getByText('Ada').waitFor()

    // The same key pasted into another browser profile is the same account.
    const other = await newPerson(stack)
    await signInWithNsec(stack, other, nsec)
    await other.page.locator('.me').getByText('Ada').waitFor()
    expect(person.errors).toEqual([])
    expect(other.errors).toEqual([])
  })

  test('a NIP-07 extension signs in and signs what the client sends; the key never enters the page', async () => {
    const sk = generateSecretKey()
    const pubkey = getPublicKey(sk)
    const calls: string[] = []
    const person = await newPerson(stack)
    // A real NIP-07 provider whose key lives in the test process, as an extension's does.
    await person.context.exposeFunction('__nip07', (method: string, a?: unknown, b?: unknown) => {
      calls.push(method)
      if (method === 'getPublicKey') return pubkey
      if (method === 'signEvent') return finalizeEvent(a as EventTemplate, sk)
      const key = nip44.getConversationKey(sk, a as string)
      return method === 'encrypt' ? nip44.encrypt(b as string, key) : nip44.decrypt(b as string, key)
    })
    await person.context.addInitScript(() => {
      const call = (window as unknown as { __nip07: (...a: unknown[]) => Promise<unknown> }).__nip07
      ;(window as unknown as { nostr: unknown }).nostr = {
        getPublicKey: () => call('getPublicKey'),
        signEvent: (t: unknown) => call('signEvent', t),
        nip44: {
          encrypt: (pk: string, text: string) => call('encrypt', pk, text),
          decrypt: (pk: string, text: string) => call('decrypt', pk, text),
        },
      }
    })
    const { page } = person
    await page.goto(stack.base)
    await page.getByRole('tab', { name: 'Extension' }).click()
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('navigation', { name: 'Groups' }).waitFor()
    await joinByCode(person, `${stack.relay.url}'general`)
    await send(person, 'Signed by my extension')
    await messageIn(person, 'Signed by my extension').waitFor()
    expect(calls).toContain('signEvent')
    await page.getByRole('button', { name: 'Settings and account' }).click()
    await page.getByRole('dialog', { name: 'Settings' }).getByText(nip19.npubEncode(pubkey)).waitFor()
    expect(await page.getByText('Export secret key (nsec)').count()).toBe(0)
    expect(person.errors).toEqual([])
  })

  test('a NIP-46 bunker URL signs in; the remote signer signs and encrypts for the client', async () => {
    const bunker = await startBunker(stack.relay.url)
    try {
      const person = await newPerson(stack)
      const { page } = person
      await page.goto(stack.base)
      await page.getByRole('tab', { name: 'Remote signer' }).click()
      await page.getByLabel('Bunker URL').fill(bunker.url)
      await page.getByRole('button', { name: 'Connect' }).click()
      await page.getByRole('navigation', { name: 'Groups' }).waitFor()
      await joinByCode(person, `${stack.relay.url}'general`)
      await send(person, 'Signed by my bunker')
      await messageIn(person, 'Signed by my bunker').waitFor()
      expect(bunker.methods).toEqual(expect.arrayContaining(['connect', 'get_public_key', 'sign_event']))
      // Read state is encrypted to self through the bunker when the tab goes hidden (it flushes then).
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
        document.dispatchEvent(new Event('visibilitychange'))
      })
      await expect.poll(() => bunker.methods.includes('nip44_encrypt'), { timeout: 15_000 }).toBe(true)
      await page.getByRole('button', { name: 'Settings and account' }).click()
      await page
        .getByRole('dialog', { name: 'Settings' })
        .getByText(nip19.npubEncode(bunker.userPubkey))
        .waitFor()
      expect(person.errors).toEqual([])
    } finally {
      bunker.close()
    }
  })

  test('a bad nsec is refused with a readable reason', async () => {
    const person = await newPerson(stack)
    const { page } = person
    await page.goto(stack.base)
    await page.getByRole('tab', { name: 'Secret key' }).click()
    await page.getByLabel('Secret key (nsec)').fill('nsec1notakey')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toContain('not a valid secret key')
  })
})
