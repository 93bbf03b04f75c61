import { describe, expect, test } from 'vitest'
import { sanitizeHtml } from '../../src/lib/prepaint'

const BASE = 'https://roost.example/#/g/x'

function clean(html: string): HTMLDivElement {
  const div = document.createElement('div')
  div.append(sanitizeHtml(document, html, BASE))
  return div
}

describe('sanitizeHtml', () => {
  test('keeps what shows: classes, inline layout, text, http(s) images and links, the message box', () => {
    const html =
      '<div class="timeline" role="log" aria-label="Messages" style="height: 10px" data-prepaint-scroll="5,0">' +
      '<article data-kind="9"><img src="https://img.example/a.png" alt="A" width="40">' +
      '<a href="https://example.com/x">x</a> <a href="#/g/y">y</a> <a href="/relative">r</a>' +
      '<span class="body">Hello <b>there</b></span></article>' +
      '<form class="composer"><textarea placeholder="Message Garden"></textarea><button type="submit">Send</button></form></div>'
    const div = clean(html)
    expect(div.innerHTML).toBe(html)
  })

  test('drops what runs, loads or reaches into the live page', () => {
    const div = clean(
      [
        '<p>kept</p>',
        '<script>window.bad = 1</script>',
        '<style>body { display: none }</style>',
        '<iframe src="https://x.example"></iframe><iframe srcdoc="<script>parent.bad = 2</script>"></iframe>',
        '<object data="https://x.example/x.swf"></object><embed src="https://x.example/x">',
        '<noscript><p>ns</p></noscript><template><script>bad</script></template>',
        '<link rel="stylesheet" href="https://x.example/x.css"><meta http-equiv="refresh" content="0;url=https://x.example">',
        '<base href="https://evil.example/">',
        '<svg><animate attributeName="href" values="javascript:alert(1)"></animate><use href="#x"></use><foreignObject><p>f</p></foreignObject></svg>',
        '<emoji-picker></emoji-picker><div is="x-y"></div>',
        '<dialog open>d</dialog>',
      ].join(''),
    )
    expect(
      div.querySelectorAll('script, style, iframe, object, embed, noscript, template, link, meta, base')
        .length,
    ).toBe(0)
    expect(div.querySelectorAll('animate, use, foreignObject, emoji-picker, dialog').length).toBe(0)
    expect(div.querySelector('[is]')).toBeNull()
    expect(div.textContent).toBe('kept')
  })

  test('drops every handler, javascript: and other non-http URLs, ids, names and autofocus', () => {
    const div = clean(
      [
        '<img class="a" src="x" onerror="window.bad = 1" ONLOAD="bad()">',
        '<a class="b" href="javascript:bad()">b</a>',
        '<a class="c" href=" JaVa&#x09;ScRiPt:bad()">c</a>',
        '<a class="d" href="vbscript:bad()">d</a>',
        '<a class="e" href="data:text/html,<script>bad()</script>">e</a>',
        '<img class="f" src="blob:https://roost.example/1" srcset="https://x.example/a.png 2x">',
        '<svg><a class="g" xlink:href="javascript:bad()">g</a></svg>',
        '<div class="h" id="root" name="n" autofocus contenteditable="true" popover tabindex="0">h</div>',
        '<form class="i" action="https://x.example/" method="post" target="_top"><button class="j" formaction="javascript:bad()" onfocus="bad()">j</button></form>',
        '<div class="k" style="background: url(javascript:bad())">k</div>',
        '<details class="l" open ontoggle="bad()"><summary>l</summary></details>',
        // Whitespace and control characters between every letter, as URL parsing ignores them.
        '<div class="m" style="background: url(&#x01;J&#x0a;a v&#x09;A&#x1f;s C r&#x0d;i p t&#x20;:bad())">m</div>',
        '<svg><a class="n" href="v&#x0c;B s&#x0b;cript:bad()">n</a></svg>',
      ].join(''),
    )
    for (const el of div.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        expect(attr.name.startsWith('on'), `${el.className} ${attr.name}`).toBe(false)
        expect(attr.value.toLowerCase()).not.toMatch(/script:|^data:|^blob:/)
      }
    }
    expect(div.querySelector('.a')?.getAttribute('src')).toBe('x')
    for (const c of ['b', 'c', 'd', 'e']) expect(div.querySelector(`.${c}`)?.hasAttribute('href')).toBe(false)
    expect(div.querySelector('.f')?.attributes.length).toBe(1)
    expect(div.querySelector('.g')?.attributes.length).toBe(1)
    expect(div.querySelector('.h')?.getAttributeNames()).toEqual(['class', 'tabindex'])
    expect(div.querySelector('.i')?.getAttributeNames()).toEqual(['class'])
    expect(div.querySelector('.j')?.getAttributeNames()).toEqual(['class'])
    expect(div.querySelector('.k')?.hasAttribute('style')).toBe(false)
    expect(div.querySelector('.l')?.getAttributeNames()).toEqual(['class', 'open'])
    expect(div.querySelector('.m')?.hasAttribute('style')).toBe(false)
    expect(div.querySelector('.n')?.getAttributeNames()).toEqual(['class'])
  })

  test('nothing in the parsed markup runs or loads while it is cleaned', async () => {
    const w = window as unknown as { bad?: number }
    delete w.bad
    clean('<img src="https://127.0.0.1:1/x.png" onerror="window.bad = 1"><svg onload="window.bad = 2"></svg>')
    await new Promise((r) => setTimeout(r, 200))
    expect(w.bad).toBeUndefined()
  })
})
