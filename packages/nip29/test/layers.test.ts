import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { pureLayerViolations } from '../../../test/pure-layers'

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src')

it('@roost/nip29 is pure: no socket, timer, file, database or module state (DESIGN "Layout")', () => {
  expect(pureLayerViolations(SRC)).toEqual([])
})
