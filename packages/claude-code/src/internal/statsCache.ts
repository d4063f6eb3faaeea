/**
 * What the statistics caches (`TranscriptStats` for files, `StoreStats` for stores) are keyed by
 * besides their contents: a short hash of the scope's name, and the time zone the days were cut in.
 *
 * @internal
 */
import { type PrivateFileWriter, privateFileWriter } from "@acx/environment/AcxHome"

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
export const writeCache = (file: string, cache: unknown): string | undefined => {
  const writer = cacheWriter(file)
  writer.write(JSON.stringify(cache))
  return writer.commit()
}

/** A cache file written part by part ({@link cacheWriter}). */
export interface CacheWriter {
  readonly write: (text: string) => void
  /** Puts the file in place; the warning to show when it could not be written, else `undefined`. */
  readonly commit: () => string | undefined
  /** Leaves the file as it was. */
  readonly abort: () => void
}

/**
 * {@link writeCache} part by part, as the parts are made: the first failure is kept as the
 * warning `commit` returns (the parts after it are dropped), never thrown.
 */
export const cacheWriter = (file: string): CacheWriter => {
  let writer: PrivateFileWriter | undefined
  let warning: string | undefined
  const abort = () => {
    try {
      writer?.abort()
    } catch {
      // the temporary file is a stale one for removeStaleTemporaries
    }
    writer = undefined
  }
  const failed = (cause: unknown) => {
    warning ??= `statistics cache not written (${file}): ${cause instanceof Error ? cause.message : String(cause)}`
    abort()
  }
  try {
    writer = privateFileWriter(file)
  } catch (cause) {
    failed(cause)
  }
  return {
    write: (text) => {
      try {
        writer?.write(text)
      } catch (cause) {
        failed(cause)
      }
    },
    commit: () => {
      try {
        writer?.commit()
      } catch (cause) {
        failed(cause)
      }
      writer = undefined
      return warning
    },
    abort
  }
}
