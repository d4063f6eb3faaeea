/**
 * `SessionIndex` without Effect: its cache file (one per config directory under `$ACX_HOME/cache`:
 * per transcript its listing metadata, keyed by path, size and mtime), and the index itself
 * ({@link indexFiles}: cached, resumed or read by head and tail, then the cache saved), as plain
 * node:fs functions, so the CLI answers `acx sessions` without loading Effect. `SessionIndex.make`
 * wraps {@link indexFiles}: there is one implementation.
 *
 * @since 0.4.0
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as AcxHome from "@acx/environment/AcxHome"
import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { defaultLimits, type Indexed, readIndexed, type ReadLimits, resumeIndexed } from "./internal/headTail.js"
import { isRefusal, openRegularSync, refusalOf } from "./internal/regularFile.js"

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
 * The entries of the cache file (empty when it is absent, unreadable or not this version's for
 * `projectsDir`).
 *
 * @since 0.5.0
 * @category cache
 */
export const loadCache = (cacheFile: string | undefined, projectsDir: string): Map<string, CacheEntry> => {
  if (cacheFile === undefined) return new Map()
  try {
    return parseCache(fs.readFileSync(cacheFile, "utf8"), projectsDir)
  } catch {
    return new Map()
  }
}

/**
 * Saves the entries: written beside the cache, then renamed over it, so a reader never sees half
 * a cache; owner-only (directory 0700, file 0600), like everything under acx's home: it holds the
 * sessions' titles. A cache that cannot be written leaves things as they are (`false`).
 *
 * @since 0.5.0
 * @category cache
 */
export const saveCache = (
  cacheFile: string,
  projectsDir: string,
  entries: ReadonlyMap<string, CacheEntry>
): boolean => {
  const temp = `${cacheFile}.${process.pid}.${randomUUID()}.tmp`
  const body = JSON.stringify({ version: VERSION, projectsDir, files: Object.fromEntries(entries) })
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: AcxHome.PRIVATE_DIRECTORY_MODE })
    fs.writeFileSync(temp, body, { flag: "wx", mode: AcxHome.PRIVATE_FILE_MODE })
    fs.renameSync(temp, cacheFile)
    return true
  } catch {
    fs.rmSync(temp, { force: true })
    return false
  }
}

/**
 * One transcript as listed: its path and what `stat` said (mtime in epoch milliseconds).
 *
 * @since 0.5.0
 * @category index
 */
export interface ListedFile {
  readonly file: string
  readonly size: number
  readonly mtime: number
}

/**
 * What {@link indexFiles} gives: the metadata of each transcript in order, and the transcripts
 * listed but not read (permission denied, or gone or no longer a regular file since they were
 * listed: listed without metadata, not cached, read again next time) with the words that say why;
 * or `failure`, the file system failed on `file` (nothing saved).
 *
 * @since 0.5.0
 * @category index
 */
export type IndexRun =
  | {
    readonly metadata: Array<SessionMetadata.SessionMetadata>
    readonly unread: ReadonlyArray<{ readonly file: string; readonly description: string }>
    readonly failure?: undefined
  }
  | { readonly failure: { readonly file: string; readonly cause: unknown } }

/**
 * Where the index reads and keeps: the `projects` directory (absolute; names the cache file), the
 * cache file (absent: no cache) and the read limits.
 *
 * @since 0.5.0
 * @category index
 */
export interface IndexOptions {
  readonly projectsDir: string
  readonly cacheFile?: string | undefined
  readonly limits?: Partial<ReadLimits> | undefined
}

type Unread = { readonly file: string; readonly description: string }

// not readable (permission denied), gone, or no longer a regular file since it was listed: not
// read (`Unread`); the file system failing is thrown
const readListed = (
  listed: ListedFile,
  saved: CacheEntry | undefined,
  limits: ReadLimits
): Indexed | Unread => {
  const opened = openRegularSync(listed.file)
  if (isRefusal(opened)) {
    if (opened.reason === "Io") throw opened.cause
    return { file: listed.file, description: opened.description }
  }
  try {
    const resumed = saved !== undefined && listed.size > saved.size
      ? resumeIndexed(opened, listed.size, saved, limits)
      : undefined
    return resumed ?? readIndexed(opened, listed.size, limits)
  } catch (cause) {
    const refusal = refusalOf(cause)
    if (refusal.reason === "Io") throw cause
    return { file: listed.file, description: refusal.description }
  } finally {
    fs.closeSync(opened.fd)
  }
}

// The cache after this run: entries outside `under` kept, those of transcripts no longer listed
// dropped; `changed` when it differs from what was loaded.
const keptEntries = (
  cache: ReadonlyMap<string, CacheEntry>,
  files: ReadonlyArray<ListedFile>,
  results: ReadonlyArray<CacheEntry | Unread>,
  under: string
) => {
  const listedFiles = new Set(files.map((listed) => listed.file))
  const kept = new Map<string, CacheEntry>()
  let dropped = false
  for (const [file, entry] of cache) {
    if (!file.startsWith(under) || listedFiles.has(file)) kept.set(file, entry)
    else dropped = true
  }
  files.forEach((listed, i) => {
    const result = results[i]!
    if ("description" in result) kept.delete(listed.file)
    else kept.set(listed.file, result)
  })
  return { kept, dropped }
}

/**
 * The listing metadata of each transcript, in order: from the cache when its size and mtime match,
 * resumed when it grew, else read by head and tail (see `SessionIndex`). The cache is then saved
 * (when anything changed), without the entries under `under` (default: every project) that
 * `files` no longer holds. First prompts are redacted before the cache keeps them.
 *
 * @since 0.5.0
 * @category index
 */
export const indexFiles = (
  options: IndexOptions,
  files: ReadonlyArray<ListedFile>,
  under?: string | undefined
): IndexRun => {
  const limits: ReadLimits = { ...defaultLimits, ...options.limits }
  const cache = loadCache(options.cacheFile, options.projectsDir)
  const results: Array<CacheEntry | Unread> = []
  const unread: Array<Unread> = []
  let changed = false
  for (const listed of files) {
    const saved = cache.get(listed.file)
    if (saved !== undefined && saved.size === listed.size && saved.mtime === listed.mtime) {
      results.push(saved)
      continue
    }
    changed = true
    let indexed: Indexed | Unread
    try {
      indexed = readListed(listed, saved, limits)
    } catch (cause) {
      return { failure: { file: listed.file, cause } }
    }
    if ("description" in indexed) unread.push(indexed)
    results.push(
      "description" in indexed
        ? indexed
        : { ...indexed, state: SessionMetadata.redacted(indexed.state), size: listed.size, mtime: listed.mtime }
    )
  }
  const { dropped, kept } = keptEntries(cache, files, results, path.resolve(under ?? options.projectsDir) + path.sep)
  if ((changed || dropped) && options.cacheFile !== undefined) saveCache(options.cacheFile, options.projectsDir, kept)
  return {
    metadata: results.map((entry) =>
      SessionMetadata.metadataOf("description" in entry ? SessionMetadata.initialState : entry.state)
    ),
    unread
  }
}
