import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { imetaOf } from '@roost/nip29'
import { type RelayHandle, startRelay } from '@roost/relay'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { joinByCode, messageIn, newPerson, type Person, screenshot, send, signUp, withStack } from './harness'
import { png } from './media-files'

setPoolWebSocket(WebSocket)

const MAX_UPLOAD = 200_000
// Both allow http: images (the page's CSP allows https: only; the test hosts are plain http).
const {
  stack,
  people: [ada, bob],
} = withStack({
  relay: { maxUpload: MAX_UPLOAD },
  people: [
    { name: 'Ada', bypassCSP: true },
    { name: 'Bob', bypassCSP: true },
  ],
})
let groupId: string
/** Another image host: counts the requests it gets (a load tells it who reads). */
let other: { server: Server; base: string; hits: string[] }
/** Another relay, whose Blossom Ada sets as her own server. */
let second: RelayHandle

beforeAll(async () => {
  groupId = await stack.relay.createGroup({ name: 'Media', admins: [ada.pubkey!], members: [bob.pubkey!] })
  await joinByCode(ada, `${stack.relay.url}'${groupId}`)
  await joinByCode(bob, `${stack.relay.url}'${groupId}`)
  const hits: string[] = []
  const image = png(20, 10, 7)
  const server = createServer((req, res) => {
    hits.push(req.url ?? '')
    res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' })
    res.end(image)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  other = { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }
  second = await startRelay({ port: 0 })
  await second.createGroup({ name: 'Elsewhere', members: [ada.pubkey!] })
})
afterAll(async () => {
  await second?.close()
  other?.server.close()
})

/** Ada's newest kind 9 on the relay. */
/** Ada's message whose text starts with `text`, as the relay stores it (found by content, not time). */
async function sentMessage(text: string) {
  const pool = new SimplePool()
  try {
    for (let i = 0; i < 40; i++) {
      const events = await pool.querySync([stack.relay.url], {
        kinds: [9],
        authors: [ada.pubkey!],
        '#h': [groupId],
      })
      const found = events.find((e) => e.content.startsWith(text))
      if (found) return found
      await new Promise((r) => setTimeout(r, 250))
    }
    return undefined
  } finally {
    pool.close([stack.relay.url])
  }
}

function box(person: Person) {
  return person.page.getByRole('textbox', { name: /^Message / })
}

async function attach(person: Person, name: string, mimeType: string, buffer: Buffer) {
  await person.page.locator('input[aria-label="Attach files"]').setInputFiles({ name, mimeType, buffer })
  await person.page.getByRole('list', { name: 'Attachments' }).getByText('Ready').waitFor()
}

describe('images and files', () => {
  test('attach an image with the button: it uploads to the relay and shows inline at its size for the other person', async () => {
    const image = png(40, 30)
    await attach(ada, 'sunset.png', 'image/png', image)
    await send(ada, 'a photo')
    await messageIn(ada, 'a photo').waitFor()
    await expect.poll(() => ada.page.getByTestId('attachment').count()).toBe(0)

    const event = await sentMessage('a photo')
    const [meta] = imetaOf(event!)
    const sha = createHash('sha256').update(image).digest('hex')
    expect(meta).toMatchObject({
      // On the relay's media origin (its own port), never the page's.
      url: `${stack.relay.mediaUrl}/${sha}.png`,
      m: 'image/png',
      x: sha,
      size: image.length,
      dim: { width: 40, height: 30 },
    })
    expect(meta?.blurhash).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/)
    expect(event!.content).toContain(meta!.url)

    // Bob sees it inline, drawn at its imeta size from the first paint, loaded from the relay (his own server).
    const img = messageIn(bob, 'a photo').locator('img[alt="Image"]')
    await img.waitFor()
    expect(await img.getAttribute('width')).toBe('40')
    expect(await img.getAttribute('height')).toBe('30')
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(40)
    expect(await messageIn(bob, 'a photo').getByTestId('media-gated').count()).toBe(0)
    await screenshot(bob.page, 'media-inline')
  })

  test('paste an image and drop a file: the file shows as a chip for the other person', async () => {
    const pasted = png(12, 12, 3).toString('base64')
    await box(ada).focus()
    await ada.page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
      const dt = new DataTransfer()
      dt.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }))
      document.activeElement?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true }))
    }, pasted)
    await ada.page.getByRole('list', { name: 'Attachments' }).getByText('pasted.png').waitFor()
    await ada.page.evaluate(() => {
      const dt = new DataTransfer()
      dt.items.add(new File(['meeting notes'], 'notes.txt', { type: 'text/plain' }))
      const target = document.querySelector('.composer')!
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }))
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }))
    })
    await ada.page.getByRole('list', { name: 'Attachments' }).getByText('notes.txt').waitFor()
    await expect
      .poll(() => ada.page.getByRole('list', { name: 'Attachments' }).getByText('Ready').count())
      .toBe(2)
    await send(ada, 'two files')
    const row = messageIn(bob, 'two files')
    await row.locator('img[alt="Image"]').waitFor()
    const chip = row.getByTestId('file-chip')
    await chip.waitFor()
    await expect.poll(() => chip.textContent()).toMatch(/text\/plain · 13 B/)
  })

  test('an upload over the server cap fails with the reason, and nothing is sent', async () => {
    await ada.page.locator('input[aria-label="Attach files"]').setInputFiles({
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(MAX_UPLOAD + 1000, 1),
    })
    const failed = ada.page.getByRole('list', { name: 'Attachments' }).getByRole('alert')
    await failed.waitFor()
    expect(await failed.textContent()).toBe('Upload failed: too large for this server')
    expect(await ada.page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
    await ada.page.getByRole('button', { name: 'Remove big.bin' }).click()
    expect(await ada.page.getByTestId('attachment').count()).toBe(0)
  })

  test('an image on another host loads only after a click, or at once once the setting allows all', async () => {
    await send(ada, `look ${other.base}/cat.png`)
    const row = messageIn(bob, 'look')
    const button = row.getByRole('button', { name: `Load image from ${other.base.replace('http://', '')}` })
    await button.waitFor()
    expect(other.hits).toEqual([])
    await button.click()
    const img = row.locator('img')
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(20)
    expect(other.hits).toEqual(['/cat.png'])

    await bob.page.getByRole('button', { name: 'Settings and account' }).click()
    await bob.page.getByLabel(/Load images from any host/).check()
    await bob.page.keyboard.press('Escape')
    await send(ada, `and ${other.base}/dog.png`)
    const next = messageIn(bob, 'and')
    await expect.poll(() => next.locator('img').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(20)
    expect(await next.getByRole('button', { name: /Load image from/ }).count()).toBe(0)
    expect(other.hits).toEqual(['/cat.png', '/dog.png'])
  })

  test('Settings sets another Blossom server: uploads go there, and only its owner loads them without a click', async () => {
    const server = second.mediaUrl
    await ada.page.getByRole('button', { name: 'Settings and account' }).click()
    await ada.page.getByLabel('Blossom server').fill(server)
    await ada.page.getByRole('button', { name: 'Save server' }).click()
    await ada.page.getByText(`Uploads go to ${server}.`).waitFor()
    await ada.page.keyboard.press('Escape')

    await attach(ada, 'elsewhere.png', 'image/png', png(16, 16, 9))
    await send(ada, 'from my server')
    const event = await sentMessage('from my server')
    expect(imetaOf(event!)[0]?.url.startsWith(`${server}/`)).toBe(true)
    const mine = messageIn(ada, 'from my server')
    await expect.poll(() => mine.locator('img').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(16)
    expect(await mine.getByTestId('media-gated').count()).toBe(0)
    // Bob allowed all images in the test before; a third person, who did not, is asked first.
    const cy = await newPerson(stack)
    await signUp(stack, cy, 'Cy')
    await joinByCode(cy, `${stack.relay.url}'${groupId}`)
    await messageIn(cy, 'from my server')
      .getByRole('button', { name: `Load image from ${server.replace('http://', '')}` })
      .waitFor()
    expect(ada.errors).toEqual([])
    expect(bob.errors).toEqual([])
  })
})
