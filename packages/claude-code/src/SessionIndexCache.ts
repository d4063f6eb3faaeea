/**
 * `SessionIndex`'s cache file (one per config directory under `$ACX_HOME/cache`: per transcript
 * its listing metadata, keyed by path, size and mtime) read without Effect, so the CLI's fast path
 * can answer `acx sessions` from it when every transcript is cached as it is now. `SessionIndex`
 * reads and names it through these functions.
 *
 * @since 0.4.0
 */
import type * as SessionMetadata from "@acx/convert/SessionMetadata"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The cache format's version: bumped whenever the fold or the reader changes what a state means
 * (older caches are rebuilt).
 *
 * @since 0.4.0
 * @category cache
 */
export const VERSION = 2

/**
 * One transcript's entry: what was indexed (the metadata fold's state, how far it folded, a
 * fingerprint of the bytes before that point), at which size and mtime.
 *
 * @since 0.4.0
 * @category cache
 */
export interface CacheEntry {
  readonly state: SessionMetadata.MetadataState
  readonly foldedTo: number
  readonly fingerprint: string
  readonly size: number
  readonly mtime: number
}

/**
 * The cache file of the `projects` directory `projectsDir` (absolute) in `cacheDir`.
 *
 * @since 0.4.0
 * @category cache
 */
export const cacheFileFor = (cacheDir: string, projectsDir: string): string =>
  path.join(cacheDir, `sessions-${createHash("sha256").update(projectsDir).digest("hex").slice(0, 16)}.json`)

const isStringRecord = (value: unknown): value is SessionMetadata.MetadataState =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.values(value).every((field) => typeof field === "string")

const isEntry = (value: unknown): value is CacheEntry => {
  if (typeof value !== "object" || value === null) return false
  const entry = value as Record<string, unknown>
  return typeof entry["size"] === "number" && typeof entry["mtime"] === "number" &&
    typeof entry["foldedTo"] === "number" && typeof entry["fingerprint"] === "string" &&
    isStringRecord(entry["state"])
}

/**
 * The entries of a cache file's text, by transcript path; a cache that is not exactly what this
 * version writes for `projectsDir` counts as none (empty).
 *
 * @since 0.4.0
 * @category cache
 */
export const parseCache = (text: string, projectsDir: string): Map<string, CacheEntry> => {
  const entries = new Map<string, CacheEntry>()
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return entries
    const cache = value as Record<string, unknown>
    const files = cache["files"]
    if (cache["version"] !== VERSION || cache["projectsDir"] !== projectsDir) return entries
    if (typeof files !== "object" || files === null || Array.isArray(files)) return entries
    for (const [file, entry] of Object.entries(files)) if (isEntry(entry)) entries.set(file, entry)
  } catch {
    // not JSON: rebuilt
  }
  return entries
}

/**
 * The cached entry of each of `files`, in order, when the cache holds every one at its size and
 * mtime and no other transcript of `projectsDir` (so `SessionIndex.metadata` would read and write
 * nothing); else `undefined`.
 *
 * @since 0.4.0
 * @category cache
 */
export const cachedEntries = (
  cacheFile: string,
  projectsDir: string,
  files: ReadonlyArray<{ readonly file: string; readonly size: number; readonly mtime: number }>
): Array<CacheEntry> | undefined => {
  let text: string
  try {
    text = fs.readFileSync(cacheFile, "utf8")
  } catch {
    return undefined
  }
  const cache = parseCache(text, projectsDir)
  const under = projectsDir + path.sep
  let others = 0
  for (const file of cache.keys()) if (file.startsWith(under)) others++
  if (others !== files.length) return undefined
  const out: Array<CacheEntry> = []
  for (const listed of files) {
    const saved = cache.get(listed.file)
    if (saved === undefined || saved.size !== listed.size || saved.mtime !== listed.mtime) return undefined
    out.push(saved)
  }
  return out
}
