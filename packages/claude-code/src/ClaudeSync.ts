/**
 * `acx sync`: keeps a store equal to a Claude Code config directory. A sync IS an import
 * ({@link ClaudeImport.importClaudeDir}: every session, subagent and entry exactly once through
 * the store's import ledger, incremental, never deleting what the store holds), run under a lock
 * so that one sync of a target and config dir runs at a time.
 *
 * The lock is the writers' directory lock (`internal/directoryLock`) on a directory of its own
 * per target and source, under `lockRoot` (acx keeps them in `$ACX_HOME/sync`). It saves work,
 * it does not make the result correct: the ledger's compare-and-set already stores each entry
 * once whatever runs at once (two machines syncing into one Postgres take no common lock). A
 * holder touches its lock every few seconds, so a long first sync is never taken for a dead
 * holder's lock (which the directory lock breaks after `STALE_MILLIS`); a holder killed with
 * `kill -9` leaves a lock whose pid is gone, broken by the next sync.
 *
 * A sync that finds the lock held either waits for it (`wait: true`, the command line), or
 * leaves an `again` mark in the lock's directory and returns at once (`wait: false`, what a
 * Claude Code hook starts): the holder runs one more pass when it sees the mark, so the change
 * that started the second sync is synced, and a burst of hooks costs one or two passes.
 *
 * @since 0.3.0
 */
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as ClaudeImport from "./ClaudeImport.js"
import type * as ClaudeProjects from "./ClaudeProjects.js"
import * as DirectoryLock from "./internal/directoryLock.js"
import * as UnchangedSync from "./UnchangedSync.js"

/**
 * The name of the mark a sync that found the lock held leaves for its holder.
 *
 * @since 0.3.0
 * @category constants
 */
export const AGAIN = UnchangedSync.AGAIN

/**
 * How often a holder touches its lock (well under the directory lock's `STALE_MILLIS`).
 *
 * @since 0.3.0
 * @category constants
 */
export const HEARTBEAT = Duration.seconds(5)

/**
 * Passes one sync runs at most while marks keep arriving; a mark left after the last is the next
 * sync's.
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_PASSES = 10

/**
 * How long a waiting sync waits for the lock.
 *
 * @since 0.3.0
 * @category constants
 */
export const WAIT = Duration.hours(6)

/**
 * @since 0.3.0
 * @category models
 */
export interface SyncOptions {
  readonly from: ClaudeProjects.ClaudeProjects
  readonly to: SessionStore.SessionStore
  /** The target as shown to the user (no password): with the source, it names the lock. */
  readonly target: string
  /** The directory that holds the locks. */
  readonly lockRoot: string
  /** Wait for a running sync (true), or mark it to run again and return (false). */
  readonly wait: boolean
  readonly batchSize?: number | undefined
  /** How often the holder touches its lock; default {@link HEARTBEAT}. */
  readonly heartbeat?: Duration.DurationInput | undefined
  readonly onProgress?: ((progress: ClaudeImport.ImportProgress) => Effect.Effect<void>) | undefined
  /** The machine and user syncing (see `ClaudeImport.ImportOptions.origin`). */
  readonly origin?: ClaudeImport.ImportOptions["origin"]
  /** Mask secrets on the way in (see `ClaudeImport.ImportOptions.mask`; default `true`). */
  readonly mask?: boolean | undefined
}

/**
 * What a sync did: `Synced` with the import's totals over every pass it ran, or `Deferred` when
 * another sync held the lock and was marked to run again.
 *
 * @since 0.3.0
 * @category models
 */
export type SyncOutcome =
  | { readonly _tag: "Synced"; readonly passes: number; readonly result: ClaudeImport.ImportResult }
  | { readonly _tag: "Deferred"; readonly lock: string }

/**
 * The lock directory of a target and a projects directory: a hash of both (a file name, whatever
 * characters the target holds).
 *
 * @since 0.3.0
 * @category locks
 */
export const lockName = UnchangedSync.lockName

const emptyResult: ClaudeImport.ImportResult = {
  sessions: 0,
  entries: 0,
  subagents: 0,
  skippedLines: 0,
  filesRead: 0,
  filesUnchanged: 0,
  bytesRead: 0,
  warnings: [],
  secretsMasked: 0
}

/**
 * Two passes' totals as one: sessions, subagents and unchanged files are the last pass's (each
 * pass lists them all), what was read adds up.
 *
 * @since 0.3.0
 * @category models
 */
export const addResults = (
  before: ClaudeImport.ImportResult,
  after: ClaudeImport.ImportResult
): ClaudeImport.ImportResult => ({
  sessions: after.sessions,
  subagents: after.subagents,
  filesUnchanged: after.filesUnchanged,
  entries: before.entries + after.entries,
  skippedLines: before.skippedLines + after.skippedLines,
  filesRead: before.filesRead + after.filesRead,
  bytesRead: before.bytesRead + after.bytesRead,
  warnings: [...before.warnings, ...after.warnings],
  secretsMasked: before.secretsMasked + after.secretsMasked
})

const isTimeout = (error: unknown): error is DirectoryLock.DirectoryLockError =>
  error instanceof DirectoryLock.DirectoryLockError && error.reason === "Timeout"

/**
 * Syncs the config directory into the store under the lock (see the module docs). Fails with the
 * import's errors, or `Io` when the lock's directory cannot be used.
 *
 * @since 0.3.0
 * @category sync
 */
export const sync: (
  options: SyncOptions
) => Effect.Effect<
  SyncOutcome,
  ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError | DirectoryLock.DirectoryLockError,
  FileSystem.FileSystem | Path.Path
> = Effect.fn("ClaudeSync.sync")(function*(options: SyncOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const projectsDir = yield* fs.realPath(options.from.projectsDir).pipe(
    Effect.orElseSucceed(() => path.resolve(options.from.projectsDir))
  )
  const dir = path.join(options.lockRoot, lockName(options.target, projectsDir))
  const again = path.join(dir, AGAIN)
  // owner-only, like everything under acx's home (the directory lock would make it with the umask)
  yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 }).pipe(
    Effect.mapError((cause) =>
      new DirectoryLock.DirectoryLockError({ reason: "Io", file: dir, description: `cannot create ${dir}`, cause })
    )
  )
  const lock = yield* DirectoryLock.make({ dir, timeout: options.wait ? WAIT : Duration.zero })
  const marked = fs.exists(again).pipe(Effect.orElseSucceed(() => false))
  const clearMark = Effect.ignore(fs.remove(again, { force: true }))
  const leaveMark = fs.writeFileString(again, String(Date.now())).pipe(
    Effect.mapError((cause) =>
      new DirectoryLock.DirectoryLockError({ reason: "Io", file: again, description: `cannot write ${again}`, cause })
    )
  )
  const touch = Effect.suspend(() => {
    const now = new Date()
    return Effect.ignore(fs.utimes(lock.file, now, now))
  })

  // Under the lock: a pass, then another while a mark arrived during it (cleared before each
  // pass, which then covers every change made before the mark).
  const passes = Effect.scoped(Effect.gen(function*() {
    yield* Effect.forkScoped(Effect.repeat(touch, Schedule.spaced(options.heartbeat ?? HEARTBEAT)))
    let total = emptyResult
    let count = 0
    do {
      yield* clearMark
      const result = yield* ClaudeImport.importClaudeDir({
        from: options.from,
        to: options.to,
        batchSize: options.batchSize,
        onProgress: options.onProgress,
        origin: options.origin,
        mask: options.mask
      })
      total = count === 0 ? result : addResults(total, result)
      count++
    } while (count < MAX_PASSES && (yield* marked))
    return { passes: count, result: total }
  }))

  let outcome: SyncOutcome = { _tag: "Deferred", lock: lock.file }
  let total: { passes: number; result: ClaudeImport.ImportResult } | undefined
  // A mark left just after the holder last looked is found here, once the holder let go: this
  // sync (or the one that holds the lock by then) runs it.
  for (let round = 0; round < MAX_PASSES; round++) {
    const ran = yield* Effect.either(lock.withLock(passes))
    if (ran._tag === "Right") {
      total = total === undefined
        ? ran.right
        : { passes: total.passes + ran.right.passes, result: addResults(total.result, ran.right.result) }
      outcome = { _tag: "Synced", ...total }
      if (!(yield* marked)) break
      continue
    }
    if (!isTimeout(ran.left)) return yield* Effect.fail(ran.left)
    if (options.wait) return yield* Effect.fail(ran.left)
    // held: mark it, then try once more in case the holder let go before it could see the mark
    if (round === 0) yield* leaveMark
    else break
  }
  return outcome
})
