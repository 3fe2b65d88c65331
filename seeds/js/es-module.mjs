// An ES module: imports, top-level await, import.meta, and an export list at the end.
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'
import defaults, { join as joinPath } from './defaults.mjs'
export * from './helpers.mjs'
export { format } from 'node:util'

export const here = path.dirname(new URL(import.meta.url).pathname)

const text = await readFile(joinPath(here, 'config.json'), 'utf8')
const config = { ...defaults, ...JSON.parse(text) }

export function setting (name) {
  return config[name] ?? null
}

export class Settings {
  static #instance = null
  static get () {
    Settings.#instance ??= new Settings()
    return Settings.#instance
  }
}

async function reload () {
  const fresh = await import('./defaults.mjs')
  return fresh.default
}

function names () {
  return Object.keys(config)
}

export { reload, names as keys }
