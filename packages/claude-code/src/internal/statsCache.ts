/**
 * What the statistics caches (`TranscriptStats` for files, `StoreStats` for stores) are keyed by
 * besides their contents: a short hash of the scope's name, and the time zone the days were cut in.
 *
 * @internal
 */
import { writePrivateFileParts } from "@acx/environment/AcxHome"

/** FNV-1a of a string, 8 hex digits: a cache file's name for a scope (a directory, a store). */
export const fnv = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/** The local time zone: folds cut days in it, so a cache made in another zone is not reused. */
export const timeZone = (): string => `${Intl.DateTimeFormat().resolvedOptions().timeZone}|${process.env["TZ"] ?? ""}`

/**
 * Writes a cache file owner-only, like everything under acx's home (a cache holds folds of the
 * user's sessions); the warning to show when it could not be written, else `undefined`.
 */
export const writeCache = (file: string, cache: unknown): string | undefined =>
  writeCacheText(file, [JSON.stringify(cache)])

/** {@link writeCache} of a cache already written as JSON text, in parts (never joined whole). */
export const writeCacheText = (file: string, json: Iterable<string>): string | undefined => {
  try {
    writePrivateFileParts(file, json)
    return undefined
  } catch (cause) {
    return `statistics cache not written (${file}): ${cause instanceof Error ? cause.message : String(cause)}`
  }
}
