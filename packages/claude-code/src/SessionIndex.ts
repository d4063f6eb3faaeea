/**
 * The listing metadata of session transcripts (title, first and last prompt, cwd, branch, start
 * and last time: `@acx/convert/SessionMetadata`) without reading whole transcripts, for
 * `ClaudeProjects.listSessions` on config directories of gigabytes.
 *
 * - **Head and tail**: the head is read until the first prompt, cwd, branch and start time are
 *   found (at most 1 MiB, plus the line in progress), the tail until the last prompt and last
 *   time are (the same budget, and always one complete line, however long); reads start at
 *   16 KiB and double, and where head and tail meet every line is read, so small files are read whole. Equal to a full read (`SessionMetadata.sessionMetadata`)
 *   whenever the lines that decide each field are in the parts read; not found otherwise: a
 *   title (`custom-title`, `ai-title`, `summary`) or `last-prompt` entry only in the unread middle
 *   of a large file (a title that is followed by one of the same kind in the tail is overridden
 *   anyway), a first prompt, cwd or branch more than 1 MiB into the file, and a last user prompt
 *   more than 1 MiB before its end.
 * - **Cache**: one JSON file per config directory under `cacheDir` (`$ACX_HOME/cache`, never the
 *   config directory), an entry per transcript keyed by path, size and mtime. A transcript that
 *   only grew (the bytes before its last indexed line are unchanged) is resumed: the lines
 *   appended since are folded into the saved state (all of them up to 8 MiB), so a title written
 *   while a session runs is found by the next listing. A cache that cannot be read or parsed is
 *   ignored and rewritten; one that cannot be written leaves the listing as it is.
 *
 * @since 0.1.0
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as AcxHome from "@acx/environment/AcxHome"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import type * as HeadTail from "./internal/headTail.js"
import { defaultLimits, type Indexed, readIndexed, resumeIndexed } from "./internal/headTail.js"
import * as SessionIndexCache from "./SessionIndexCache.js"
import * as TranscriptReader from "./TranscriptReader.js"

/**
 * How much of a transcript is read (bytes): `window` at each end first (doubled on every further
 * read), at most `headBudget` / `tailBudget` while looking for fields, and up to `appendBudget`
 * appended bytes folded whole when a cached transcript grew. Declared beside the reader that
 * applies it.
 *
 * @since 0.1.0
 * @category models
 */
export type ReadLimits = HeadTail.ReadLimits

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionIndexOptions {
  /** The `projects` directory the transcripts are in (names the cache file). */
  readonly projectsDir: string
  /** Where the cache file is kept; absent: no cache. */
  readonly cacheDir?: string | undefined
  readonly limits?: Partial<ReadLimits> | undefined
  /**
   * Told of a transcript listed but not read (permission denied, or gone or no longer a regular
   * file since it was listed): it is listed without metadata and not cached, so the next listing
   * reads it again.
   */
  readonly onUnread?: ((file: string, description: string) => Effect.Effect<void>) | undefined
}

/**
 * One transcript as listed: its path and what `stat` said.
 *
 * @since 0.1.0
 * @category models
 */
export interface IndexedFile {
  readonly file: string
  readonly size: number
  /** Epoch milliseconds. */
  readonly mtime: number
}

/**
 * Reading a transcript failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionIndexError extends Schema.TaggedError<SessionIndexError>(
  "@acx/claude-code/SessionIndex/SessionIndexError"
)("SessionIndexError", {
  reason: Schema.Literal("Io"),
  file: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionIndex failed (${this.reason}): I/O error: ${this.file}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionIndex {
  /** The cache file, when there is one. */
  readonly cacheFile: string | undefined
  /**
   * The metadata of each transcript, in order: from the cache when its size and mtime match,
   * resumed when it grew, else read. The cache is then saved, without the entries under `under`
   * (default: every project) that `files` no longer holds.
   */
  readonly metadata: (
    files: ReadonlyArray<IndexedFile>,
    options?: { readonly under?: string | undefined }
  ) => Effect.Effect<Array<SessionMetadata.SessionMetadata>, SessionIndexError>
}

/**
 * The cache file of a `projects` directory under `cacheDir`: one per config directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const cacheFileFor: (cacheDir: string, projectsDir: string) => string = SessionIndexCache.cacheFileFor

type CacheEntry = SessionIndexCache.CacheEntry
const parseCache = SessionIndexCache.parseCache
const VERSION = SessionIndexCache.VERSION

/**
 * Builds the index over `FileSystem` and `Path`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: SessionIndexOptions
): Effect.Effect<SessionIndex, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const limits: ReadLimits = { ...defaultLimits, ...options.limits }
    const projectsDir = path.resolve(options.projectsDir)
    const cacheFile = options.cacheDir === undefined ? undefined : cacheFileFor(options.cacheDir, projectsDir)

    const loadCache = Effect.suspend(() =>
      cacheFile === undefined
        ? Effect.succeed(new Map<string, CacheEntry>())
        : fs.readFileString(cacheFile).pipe(
          Effect.map((text) => parseCache(text, projectsDir)),
          Effect.orElseSucceed(() => new Map<string, CacheEntry>())
        )
    )

    // Written beside the cache, then renamed over it: a reader never sees half a cache. Owner-only
    // (directory 0700, file 0600), like everything under acx's home: it holds the sessions' titles.
    const saveCache = (entries: ReadonlyMap<string, CacheEntry>) =>
      Effect.suspend(() => {
        if (cacheFile === undefined) return Effect.void
        const temp = `${cacheFile}.${process.pid}.${randomUUID()}.tmp`
        const body = JSON.stringify({ version: VERSION, projectsDir, files: Object.fromEntries(entries) })
        return fs.makeDirectory(path.dirname(cacheFile), { recursive: true, mode: AcxHome.PRIVATE_DIRECTORY_MODE })
          .pipe(
            Effect.zipRight(fs.writeFileString(temp, body, { flag: "wx", mode: AcxHome.PRIVATE_FILE_MODE })),
            Effect.zipRight(fs.rename(temp, cacheFile)),
            Effect.catchAll(() => fs.remove(temp, { force: true }).pipe(Effect.ignore))
          )
      }).pipe(Effect.withSpan("SessionIndex.saveCache"))

    // `unread`: the transcripts of this run that were not read, never cached (read again next time)
    const index = (listed: IndexedFile, saved: CacheEntry | undefined, unread: Set<string>) =>
      Effect.scoped(Effect.gen(function*() {
        const file = yield* TranscriptReader.open(listed.file)
        if (saved !== undefined && listed.size > saved.size) {
          const resumed = yield* resumeIndexed(file, listed.size, saved, limits)
          if (Option.isSome(resumed)) return resumed.value
        }
        return yield* readIndexed(file, listed.size, limits)
      })).pipe(
        // not readable (permission denied), gone, or no longer a regular file since it was listed:
        // listed without metadata, said, and read again next time
        Effect.catchIf(
          (error) => error.reason !== "Io",
          (error) => {
            unread.add(listed.file)
            return Effect.as(
              options.onUnread?.(listed.file, error.reason === "NotFound" ? "not found" : error.description) ??
                Effect.void,
              { state: SessionMetadata.initialState, foldedTo: 0, fingerprint: "" } satisfies Indexed
            )
          }
        ),
        // redacted before the cache keeps it (and so before anything shows it): a first prompt
        // may hold a pasted key
        Effect.map((indexed): CacheEntry => ({
          ...indexed,
          state: SessionMetadata.redacted(indexed.state),
          size: listed.size,
          mtime: listed.mtime
        })),
        Effect.mapError((cause) => new SessionIndexError({ reason: "Io", file: listed.file, cause }))
      )

    const metadata = Effect.fn("SessionIndex.metadata")(function*(
      files: ReadonlyArray<IndexedFile>,
      scope: { readonly under?: string | undefined } = {}
    ) {
      const cache = yield* loadCache
      const unread = new Set<string>()
      let changed = false
      const results = yield* Effect.forEach(files, (listed) => {
        const saved = cache.get(listed.file)
        if (saved !== undefined && saved.size === listed.size && saved.mtime === listed.mtime) {
          return Effect.succeed(saved)
        }
        changed = true
        return index(listed, saved, unread)
      }, { concurrency: 16 })
      const under = path.resolve(scope.under ?? projectsDir) + path.sep
      const listedFiles = new Set(files.map((listed) => listed.file))
      const kept = new Map<string, CacheEntry>()
      for (const [file, entry] of cache) {
        if (!file.startsWith(under) || listedFiles.has(file)) kept.set(file, entry)
        else changed = true
      }
      files.forEach((listed, i) => {
        if (unread.has(listed.file)) kept.delete(listed.file)
        else kept.set(listed.file, results[i]!)
      })
      if (changed) yield* saveCache(kept)
      return results.map((entry) => SessionMetadata.metadataOf(entry.state))
    })

    return { cacheFile, metadata }
  })
