import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  newPerson,
  type Stack,
  screenshot,
  seriousViolations,
  signInWithNsec,
  signUp,
  startStack,
} from './harness'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ demo: true })
})
afterAll(async () => {
  await stack?.close()
})

describe('serving and signing in', () => {
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
