/**
 * The fold cache's persistence: one JSON file per scope under the cache directory (each file's
 * size, mtime, where its fold stopped, a mark of the bytes before, the fold), read whole, written
 * whole (owner-only, renamed into place), and the digest of the state a run reads
 * (`TranscriptFolds.stateDigest`). `TranscriptFolds` folds; this module keeps.
 *
 * @internal
 */
import * as Pricing from "@acx/convert/Pricing"
import { paths } from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FoldOptions, FoldScope, TranscriptFile } from "../TranscriptFolds.js"
import { fnv, timeZone, writeCache } from "./statsCache.js"

// 2: the marks are digests (1 kept a transcript's raw bytes, which may hold a secret); 3: the
// folds keep figures per UTC hour (BillingWindows)
export const CACHE_VERSION = 3

export interface CacheEntry {
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly mark: string
  readonly state: unknown
  /** The byte offset of the file's first malformed line, if any. */
  readonly malformedAt?: number | undefined
}

const isEntry = (value: unknown): value is CacheEntry => {
  if (typeof value !== "object" || value === null) return false
  const entry = value as { readonly [key: string]: unknown }
  return typeof entry["size"] === "number" && typeof entry["mtimeMs"] === "number" &&
    typeof entry["offset"] === "number" && typeof entry["mark"] === "string" && entry["offset"] <= entry["size"] &&
    (entry["malformedAt"] === undefined || typeof entry["malformedAt"] === "number")
}

/**
 * The cache file of a scope in `cacheDir`.
 *
 * @since 0.4.0
 * @category cache
 */
export const cacheFileOf = (cacheDir: string, scope: string): string => path.join(cacheDir, `stats-${fnv(scope)}.json`)

// Anything unexpected (missing, unreadable, not JSON, another version) is an empty cache.
export const readCache = (file: string, pricing: string): { [file: string]: CacheEntry } => {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8")) as {
      readonly version?: unknown
      readonly pricing?: unknown
      readonly timeZone?: unknown
      readonly files?: unknown
    }
    if (json.version !== CACHE_VERSION || json.pricing !== pricing || json.timeZone !== timeZone()) return {}
    const files = json.files
    if (typeof files !== "object" || files === null) return {}
    const out: { [file: string]: CacheEntry } = {}
    for (const [name, entry] of Object.entries(files)) if (isEntry(entry)) out[name] = entry
    return out
  } catch {
    return {}
  }
}

// The cache after a run: every file's entry (with `complete`, only theirs), written when anything
// changed; the warning to show when it could not be written.
export const saveCache = (
  cacheFile: string,
  run: {
    readonly files: ReadonlyArray<TranscriptFile>
    readonly entries: ReadonlyArray<CacheEntry | undefined>
    readonly cached: { readonly [file: string]: CacheEntry }
    readonly fingerprint: string
    readonly scope: FoldScope
    readonly folded: number
  }
): string | undefined => {
  const { cached, entries, files, fingerprint, folded, scope } = run
  if (folded === 0 && !scope.complete) return undefined
  const kept: { [file: string]: CacheEntry } = scope.complete ? {} : { ...cached }
  for (const [index, item] of files.entries()) {
    const entry = entries[index]
    if (entry !== undefined) kept[item.file] = entry
  }
  const changed = folded > 0 || Object.keys(kept).length !== Object.keys(cached).length
  if (!changed) return undefined
  return writeCache(cacheFile, { version: CACHE_VERSION, pricing: fingerprint, timeZone: timeZone(), files: kept })
}

/**
 * A regular file's size and mtime, as `stat` said them.
 *
 * @since 0.7.0
 */
export interface FileStat {
  readonly size: number
  readonly mtimeMs: number
}

const regularStat = (file: string): FileStat | undefined => {
  const stat = fs.statSync(file)
  return stat.isFile() ? stat : undefined
}

/**
 * A digest of everything a run over `files` that folds nothing reads: each file's path, size and
 * mtime, the cache file's size and mtime, the prices and the time zone; `undefined` when a file
 * or the cache cannot be `stat`ed. Equal digests before and after a run mean the run saw one
 * state; a later equal digest means a run now would read the same and report the same, so a
 * report kept under the digest (the CLI's warm `acx stats`) can be printed without folding.
 *
 * @since 0.4.0
 * @category cache
 */
export const stateDigest = (
  files: ReadonlyArray<TranscriptFile>,
  scope: FoldScope,
  options: FoldOptions,
  known?: ReadonlyMap<string, FileStat> | undefined
): string | undefined => {
  const cacheDir = options.cacheDir === undefined ? paths().cache : options.cacheDir
  if (cacheDir === null) return undefined
  const hash = createHash("sha256")
  const cacheFile = cacheFileOf(cacheDir, scope.scope)
  try {
    for (const file of [cacheFile, ...files.map((item) => item.file)]) {
      const stat = known?.get(file) ?? regularStat(file)
      if (stat === undefined) return undefined
      hash.update(`${JSON.stringify([file, stat.size, stat.mtimeMs])}\n`)
    }
  } catch {
    return undefined
  }
  hash.update(
    JSON.stringify([
      scope.scope,
      scope.complete,
      files.map((item) => item.kind),
      Pricing.fingerprint(options.pricing),
      timeZone()
    ])
  )
  return hash.digest("hex")
}
