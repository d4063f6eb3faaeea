/**
 * What `acx sync` does (its options: `../args/sync.ts`): opens the target (default
 * `sqlite:$ACX_HOME/sessions.db`), then runs `ClaudeSync.sync` once, or, with `--watch`, again
 * whenever the projects directory changes (and every {@link RESCAN} whatever it hears) until
 * SIGINT or SIGTERM. A bad target is one line before anything is created.
 *
 * @since 0.3.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudeSync from "@acx/claude-code/ClaudeSync"
import * as AcxHome from "@acx/environment/AcxHome"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CliError from "../../CliError.js"
import * as CurrentIo from "../../internal/currentIo.js"
import { originOf } from "../../internal/origin.js"
import { progress } from "../../internal/progress.js"
import { listenForSignal } from "../../internal/signals.js"
import { projectsLayer } from "../../internal/source.js"
import { summary, summaryJson } from "../../internal/syncSummary.js"
import { parseTarget, type Target } from "../../internal/target.js"
import type { SyncOptions } from "../args/sync.js"
import { importWarnings } from "./import.js"

/**
 * `--watch` waits this long after a change for the writes that follow it (Claude Code appends a
 * transcript line by line) before it syncs…
 *
 * @since 0.3.0
 * @category watch
 */
export const DEBOUNCE = Duration.millis(500)

/**
 * …but no longer than this while changes keep coming.
 *
 * @since 0.3.0
 * @category watch
 */
export const MAX_DELAY = Duration.seconds(5)

/**
 * `--watch` syncs this often even when it heard nothing: `fs.watch` misses changes on network
 * and FUSE file systems, drops events when inotify's queue overflows, and stops hearing a
 * projects directory that was removed and made again.
 *
 * @since 0.3.0
 * @category watch
 */
export const RESCAN = Duration.minutes(1)

/**
 * After a sync lost its connection to the store (a Postgres restart, a network cut), `--watch`
 * tries again this long after (not at the next {@link RESCAN}), and a `--background` sync (what
 * the hook starts, with nobody to run it again) retries its whole sync this often, at most
 * {@link BACKGROUND_RETRIES} times. Every batch is one transaction with its ledger record, so a
 * retry stores exactly what the lost one had not.
 *
 * @since 0.3.0
 * @category watch
 */
export const RETRY = Duration.seconds(5)

/**
 * How often a `--background` sync tries again after a lost connection (see {@link RETRY}).
 *
 * @since 0.3.0
 * @category watch
 */
export const BACKGROUND_RETRIES = 6

/** A failure of the store that another try may not meet: a lost connection, a failed statement. */
const isStoreFailure = (error: unknown): error is SessionStore.SessionStoreError =>
  error instanceof SessionStore.SessionStoreError && (error.reason === "Connection" || error.reason === "Storage")

const isConnectionLoss = (error: unknown): error is SessionStore.SessionStoreError =>
  error instanceof SessionStore.SessionStoreError && error.reason === "Connection"

/** The store's one line, with what to do: nothing stored is lost, a rerun stores the rest. */
const withRerunHint = <E>(error: E): E =>
  isConnectionLoss(error)
    ? new SessionStore.SessionStoreError({
      ...error,
      description: `${error.description}; what was synced is kept: run acx sync again for the rest`
    }) as E
    : error

/**
 * A store that refused a write for want of a privilege (a hub's viewer, or a member of another
 * hub, given to `sync --to`): said as which role the URL is and that a sync needs a sync member,
 * in one line (the driver's "permission denied for table …" alone names neither). A sync member
 * or an admin refused keeps the store's own message: its role is not the cause.
 */
const explainRefusal = (target: Target) => (error: SessionStore.SessionStoreError) => {
  const database = target.database
  if (database._tag !== "Postgres") return Effect.fail(error)
  const reason = error.description.replace(/^Failed to execute statement: /, "")
  return Effect.scoped(Effect.flatMap(
    PostgresHub.make({ url: database.url, schema: database.schema }),
    (hub) => hub.access()
  )).pipe(
    Effect.option,
    Effect.flatMap((who) =>
      Effect.fail(
        // a sync member or an admin refused has another cause: the driver's message says it
        Option.isNone(who) || who.value.access === "sync" || who.value.access === "admin"
          ? error
          : new SessionStore.SessionStoreError({
            ...error,
            description: PostgresHub.roleRefusal(who.value, "acx sync --to", "sync", reason)
          })
      )
    )
  )
}

const isRefusal = (error: unknown): error is SessionStore.SessionStoreError =>
  error instanceof SessionStore.SessionStoreError && error.reason === "ReadOnly"

/** The default target, its directory made owner-only (what `acx sync` keeps can hold secrets). */
const defaultTarget = (paths: AcxHome.AcxPaths): string => `sqlite:${paths.sessionsDatabase}`

/**
 * The SQLite file's directory must exist: a mistyped path is one line, not a new directory tree
 * (the default target's, `$ACX_HOME`, is made).
 */
const checkTarget = (spec: string, isDefault: boolean) =>
  Effect.gen(function*() {
    const parsed = DatabaseSpec.parse(spec, { cwd: (yield* CurrentIo.CurrentIo).cwd })
    if (Either.isRight(parsed) && parsed.right._tag === "Sqlite") {
      const dir = path.dirname(parsed.right.filename)
      if (isDefault) {
        AcxHome.makeHome(dir)
        AcxHome.preparePrivateFile(parsed.right.filename)
      } else if (!isDirectory(dir)) {
        return yield* CliError.notFound(`--to: the directory ${dir} does not exist; nothing was created`)
      }
    }
    return yield* parseTarget(spec)
  })

const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

const megabytesPerSecond = (bytes: number, millis: number): string =>
  `${(bytes / 1_048_576 / Math.max(millis / 1000, 0.001)).toFixed(1)} MB/s`

/**
 * The reading's time left at the rate so far (`1m 20s left`), whole seconds: the sessions not
 * read yet take what the ones read took each.
 */
const timeLeft = (done: number, total: number, millis: number): string => {
  const seconds = done <= 0 ? 0 : Math.ceil((millis / 1000) * Math.max(0, total - done) / done)
  return done <= 0 ? "time left unknown" : `${Duration.format(Duration.seconds(Math.max(1, seconds)))} left`
}

/**
 * @since 0.3.0
 * @category handlers
 */
export const run = ({ background, configDir, json, machine, noMask, to, user, watch }: SyncOptions) =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.ClaudeProjects
    const given = to
    const target = yield* checkTarget(given ?? defaultTarget(yield* CurrentIo.paths), given === undefined)
    const origin = yield* originOf(machine, user)
    yield* Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const lockRoot = AcxHome.makePrivateDirectory((yield* CurrentIo.paths).syncLocks)

      const syncOnce = Effect.gen(function*() {
        const bar = progress("syncing", yield* CurrentIo.CurrentIo, { enabled: !json, unit: "sessions" })
        const started = Date.now()
        const outcome = yield* ClaudeSync.sync({
          from: projects,
          to: store,
          target: target.display,
          lockRoot,
          wait: !background,
          origin,
          mask: !noMask,
          onProgress: (p) =>
            bar.update(
              p.sessions,
              p.total,
              p.indexing === true
                ? `${p.entries} entries · indexing them for search and stats`
                : `${p.entries} entries · ${megabytesPerSecond(p.bytes, Date.now() - started)} · ${
                  timeLeft(p.sessions, p.total, Date.now() - started)
                }`
            )
        }).pipe(Effect.ensuring(bar.clear))
        const seconds = (Date.now() - started) / 1000
        if (outcome._tag === "Deferred") {
          const line = `another sync of ${target.display} is running: it will run once more`
          return yield* json
            ? Console.log(JSON.stringify({ deferred: true, target: target.display }))
            : Console.log(line)
        }
        const { passes, result } = outcome
        if (json) {
          // one line per sync: `--watch` prints one for each
          return yield* Console.log(summaryJson(result, passes, target.display, seconds))
        }
        yield* Console.log(summary(result, target.display, seconds))
        for (const line of importWarnings(result.warnings)) yield* Console.error(line)
      })

      if (!watch) return yield* syncOnce
      // listening before the first pass: a signal before a raced listener ran killed the process
      const stopped = yield* Effect.scoped(
        Effect.flatMap(listenForSignal, (signal) => Effect.raceFirst(watchLoop(projects.projectsDir, syncOnce), signal))
      )
      if (!json) yield* Console.error(`acx: stopped (${stopped.signal})`)
    }).pipe(Effect.provide(target.layer), Effect.catchIf(isRefusal, explainRefusal(target)))
  }).pipe(
    (sync) =>
      background
        ? Effect.retry(
          sync.pipe(Effect.tapError((error) =>
            isConnectionLoss(error)
              ? Console.error(`acx: ${CliError.describeError(error)}; trying again in ${Duration.format(RETRY)}`)
              : Effect.void
          )),
          { while: isConnectionLoss, schedule: Schedule.spaced(RETRY), times: BACKGROUND_RETRIES }
        )
        : sync,
    Effect.mapError(withRerunHint),
    Effect.provide(projectsLayer(configDir)),
    Effect.provide(NodeContext.layer)
  )

/**
 * Syncs, then waits for a change under `dir` (debounced) or the rescan, forever. Interrupted
 * between two batches or in one: a batch is one transaction with its ledger record, so an
 * abandoned one is stored by the next sync.
 */
const watchLoop = <E, R>(dir: string, syncOnce: Effect.Effect<void, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const changes = yield* Queue.sliding<void>(1)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        try {
          const watcher = fs.watch(dir, { recursive: true }, () => Queue.unsafeOffer(changes, undefined))
          watcher.on("error", () => watcher.close())
          return watcher
        } catch {
          // no projects directory yet, or no recursive watch here: the rescan alone
          return undefined
        }
      }),
      (watcher) => Effect.sync(() => watcher?.close())
    )
    const quiet = Queue.take(changes).pipe(Effect.timeout(DEBOUNCE), Effect.option)
    // a store failure (a Postgres restart) is one line, and another try after RETRY
    const tried = syncOnce.pipe(
      Effect.as(RESCAN),
      Effect.catchIf(isStoreFailure, (error) =>
        Console.error(`acx: ${CliError.describeError(error)}; trying again in ${Duration.format(RETRY)}`).pipe(
          Effect.as(RETRY)
        ))
    )
    for (;;) {
      const wait = yield* tried
      yield* Effect.raceFirst(Queue.take(changes), Effect.sleep(wait))
      const until = Date.now() + Duration.toMillis(MAX_DELAY)
      while (Date.now() < until && Option.isSome(yield* quiet)) {
        // more writes: wait for them to stop
      }
    }
  }))
