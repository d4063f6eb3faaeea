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
import type * as SessionMetadata from "@acx/convert/SessionMetadata"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as HeadTail from "./internal/headTail.js"
import * as SessionIndexCache from "./SessionIndexCache.js"

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

/**
 * Builds the index: `metadata` runs `SessionIndexCache.indexFiles` (the one implementation, plain
 * node:fs) and tells each transcript it could not read to `onUnread`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: SessionIndexOptions
): Effect.Effect<SessionIndex, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const projectsDir = path.resolve(options.projectsDir)
    const cacheFile = options.cacheDir === undefined ? undefined : cacheFileFor(options.cacheDir, projectsDir)
    const indexOptions = { projectsDir, cacheFile, limits: options.limits }

    const metadata = Effect.fn("SessionIndex.metadata")(function*(
      files: ReadonlyArray<IndexedFile>,
      scope: { readonly under?: string | undefined } = {}
    ) {
      const run = SessionIndexCache.indexFiles(indexOptions, files, scope.under)
      if (run.failure !== undefined) {
        return yield* new SessionIndexError({ reason: "Io", file: run.failure.file, cause: run.failure.cause })
      }
      if (options.onUnread !== undefined) {
        for (const { description, file } of run.unread) yield* options.onUnread(file, description)
      }
      return run.metadata
    })

    return { cacheFile, metadata }
  })
