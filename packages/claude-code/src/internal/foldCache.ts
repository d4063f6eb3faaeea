/**
 * The fold cache's persistence: one JSON file per scope under the cache directory (each file's
 * size, mtime, where its fold stopped, a mark of the bytes before, the fold), read whole, written
 * as the folds arrive (owner-only, renamed into place), and the digest of the state a run reads
 * (`TranscriptFolds.stateDigest`). `TranscriptFolds` folds; this module keeps.
 *
 * @internal
 */
import * as Pricing from "@acx/convert/Pricing"
import { paths } from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheWriter, fnv, timeZone } from "./statsCache.js"

// 2: the marks are digests (1 kept a transcript's raw bytes, which may hold a secret); 3: the
// folds keep figures per UTC hour (BillingWindows)
export const CACHE_VERSION = 3

// What the cache needs of `TranscriptFolds`' models (that module imports this one): a file's path
// and kind, the scope, where the cache lives and the prices.
interface TranscriptFile {
  readonly file: string
  readonly kind: string
}
interface FoldScope {
  readonly scope: string
  readonly complete: boolean
}
interface FoldOptions {
  readonly pricing: Pricing.PricingTable
  readonly cacheDir?: string | null | undefined
}

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

// A file's cache entry after the run: the one it had, kept as it is, or none when this run folded
// it (that entry is written as it arrives, never held).
export interface Slot {
  readonly offset: number
  readonly malformedAt: number | undefined
  readonly entry: CacheEntry | undefined
}

// A folded file's cache entry as JSON: what `JSON.stringify` of a `CacheEntry` writes, with the
// fold's text as it came.
export const entryText = (
  entry: Omit<CacheEntry, "state" | "malformedAt">,
  malformedAt: number | undefined,
  state: string
): string =>
  `{"size":${entry.size},"mtimeMs":${entry.mtimeMs},"offset":${entry.offset},"mark":${
    JSON.stringify(entry.mark)
  },"state":${state}${malformedAt === undefined ? "" : `,"malformedAt":${malformedAt}`}}`

// The cache file being written: each entry as it comes (a folded file's as its worker's text came,
// never parsed for it), then `finish` with the entries kept as they were.
export const cacheWriting = (cacheFile: string, fingerprint: string) => {
  const writer = cacheWriter(cacheFile)
  writer.write(
    `${JSON.stringify({ version: CACHE_VERSION, pricing: fingerprint, timeZone: timeZone() }).slice(0, -1)},"files":{`
  )
  let first = true
  const entry = (name: string, text: string) => {
    writer.write(`${first ? "" : ","}${JSON.stringify(name)}:${text}`)
    first = false
  }
  const finish = (kept: ReadonlyMap<string, CacheEntry>): string | undefined => {
    for (const [name, cacheEntry] of kept) entry(name, JSON.stringify(cacheEntry))
    writer.write("}}")
    return writer.commit()
  }
  return { entry, finish, abort: writer.abort }
}

// The cache after a run: every file's entry (with `complete`, only theirs), written when anything
// changed (a run that folded has written its folds already); the warning to show when it could
// not be written.
export const saveCache = (
  cacheFile: string,
  run: {
    readonly files: ReadonlyArray<TranscriptFile>
    readonly slots: ReadonlyArray<Slot | undefined>
    readonly cached: { readonly [file: string]: CacheEntry }
    readonly fingerprint: string
    readonly scope: FoldScope
    readonly writing: ReturnType<typeof cacheWriting> | undefined
  }
): string | undefined => {
  const { cached, files, fingerprint, scope, slots, writing } = run
  if (writing === undefined && !scope.complete) return undefined
  const kept = new Map<string, CacheEntry>()
  if (!scope.complete) {
    for (const [name, entry] of Object.entries(cached)) kept.set(name, entry)
  }
  for (const [index, item] of files.entries()) {
    const slot = slots[index]
    if (slot === undefined) continue
    if (slot.entry === undefined) kept.delete(item.file)
    else kept.set(item.file, slot.entry)
  }
  if (writing !== undefined) return writing.finish(kept)
  if (kept.size === Object.keys(cached).length) return undefined
  return cacheWriting(cacheFile, fingerprint).finish(kept)
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
