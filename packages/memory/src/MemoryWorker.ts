/**
 * `acx memory worker`: turns queued hook events into observations and summaries, then exits
 * after a few idle minutes. Started detached by a hook when events wait and no worker lives;
 * one per memory directory (a lock row with pid and heartbeat); it listens on no port — hooks
 * and worker meet only in the database.
 *
 * Per Claude Code session, ONE observer conversation (an `AgentSession`: one streaming-input
 * `query()`): its first prompt carries the instructions and the first batch, later prompts a
 * batch of queued events each (at most `batchSize`, after waiting up to `batchWaitSeconds` for
 * a batch to fill), and a summary prompt at each Stop / SessionEnd. A batch's observations are
 * stored and its events marked done in one transaction: a worker killed at any point leaves
 * every event either pending (done again after a restart) or done with its observations, never
 * twice. Failures retry with backoff; after `maxAttempts` an event is `failed`.
 *
 * Without a model — `mode: "local"`, no credentials, the daily budget spent, or a session's
 * observer past its per-query budget — batches become deterministic observations
 * (`LocalObservations`), so memory keeps working offline and for free.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ObserverFactory } from "./internal/observer.js"
import { agentObserver } from "./internal/observer.js"
import * as Spool from "./internal/spoolIngest.js"
import * as Batch from "./internal/workerBatch.js"
import { credentialsFor, databaseError, type WorkerContext, type WorkerSettings } from "./internal/workerContext.js"
import * as WorkerLock from "./internal/workerLock.js"
import { closeAll } from "./internal/workerObservers.js"
import { describe } from "./internal/workerParse.js"
import * as MemoryConfig from "./MemoryConfig.js"
import type { MemoryError } from "./MemoryError.js"
import * as MemoryStore from "./MemoryStore.js"
import * as ObserverPrompts from "./ObserverPrompts.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface WorkerOptions {
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  /** The environment the observer's Claude Code inherits (default `process.env`). */
  readonly env?: { readonly [name: string]: string | undefined } | undefined
  /** The settings (default: read from `$ACX_HOME/config.json`). */
  readonly config?: MemoryConfig.MemoryConfig | undefined
  /** The lock holder's pid (default this process's). */
  readonly pid?: number | undefined
  /** How often the queue is polled when idle (default 500 ms). */
  readonly pollInterval?: Duration.DurationInput | undefined
  /** How long the worker stays with nothing to do (default `workerIdleMinutes`). */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** The Claude Code binary the observer runs (default: acx's lookup). */
  readonly pathToClaudeCodeExecutable?: string | undefined
  /** Starts observers (default: `AgentSession`s on Claude Code). */
  readonly observer?: ObserverFactory | undefined
  /** The prompt texts (default: the package's files). */
  readonly templates?: ObserverPrompts.Templates | undefined
  /** Progress lines (default: stderr, which a detached worker appends to its log). */
  readonly log?: ((line: string) => void) | undefined
  /** At most this many observer processes stay warm (default 2). */
  readonly maxObservers?: number | undefined
}

/**
 * How a worker ended (`AlreadyRunning`: the live worker's pid and when it took the lock, in ms).
 *
 * @since 0.1.0
 * @category models
 */
export type WorkerExit =
  | { readonly _tag: "AlreadyRunning"; readonly pid: number | null; readonly startedAt: number | null }
  | { readonly _tag: "Idle"; readonly batches: number; readonly events: number }
  | { readonly _tag: "LockLost" }

/**
 * Batches in a row whose replies could not be read (twice each: the question and the reminder)
 * after which a session is recorded locally from then on.
 *
 * @since 0.1.0
 * @category constants
 */
export const UNREADABLE_BATCHES_BEFORE_LOCAL: number = Batch.UNREADABLE_BATCHES_BEFORE_LOCAL

/**
 * Observer turns one batch costs at most: the question, and the reminder when nothing in the
 * reply could be read. (A batch that meets an error is retried on the backoff schedule, one
 * turn per attempt, at most `maxAttempts` attempts.)
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_TURNS_PER_BATCH = 2

/**
 * Runs the worker until it has been idle for the idle timeout (or another worker holds the
 * lock). Interrupting it closes the observers gracefully (interrupt, then end the process)
 * and releases the lock.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: WorkerOptions = {}): Effect.Effect<WorkerExit, MemoryError, SqlClient.SqlClient> =>
  Effect.scoped(
    Effect.gen(function*() {
      const settings = settingsOf(options)
      const claimed = yield* claimLock(settings.pid, settings.log)
      if (!claimed.won) return { _tag: "AlreadyRunning" as const, pid: claimed.holder, startedAt: claimed.startedAt }
      settings.log(`worker ${settings.pid}: started (memory ${settings.files.database})`)
      yield* noteInForce(settings)
      const sdkStore = yield* openObserverStore
      const w: WorkerContext = {
        ...settings,
        // the settings of the moment: an observer started after a reload runs with the new ones
        startObserver: options.observer ?? ((session) =>
          agentObserver({
            files: w.files,
            config: w.config,
            env: w.env,
            sessionStore: sdkStore,
            pathToClaudeCodeExecutable: options.pathToClaudeCodeExecutable
          })(session)),
        warm: new Map(),
        unreadableInARow: new Map()
      }
      // before the lock is given back (finalizers run last first)
      yield* Effect.addFinalizer(() => closeAll(w, true))
      return yield* Effect.raceFirst(loop(w), WorkerLock.watch(w.pid, w.log)) as Effect.Effect<
        WorkerExit,
        MemoryError | SqlError
      >
    }).pipe(Effect.mapError(databaseError("the worker failed")))
  )

/** Where the worker works and the settings in force, before the lock is taken. */
const settingsOf = (options: WorkerOptions): WorkerSettings => {
  const env = options.env ?? process.env
  const home = options.home ?? AcxHome.acxHome(env)
  const files = MemoryConfig.paths(home)
  // the settings in force: re-read when config.json changes (not when given by the caller)
  const configStamp = MemoryConfig.stamp(home)
  const config = options.config ?? MemoryConfig.load(home).config
  const idleTimeoutOf = (settings: MemoryConfig.MemoryConfig) =>
    Duration.toMillis(options.idleTimeout ?? Duration.minutes(settings.workerIdleMinutes))
  return {
    env,
    home,
    files,
    pid: options.pid ?? process.pid,
    log: options.log ?? ((line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`)),
    templates: options.templates ?? ObserverPrompts.load(),
    maxObservers: options.maxObservers ?? 2,
    pollInterval: Duration.decode(options.pollInterval ?? Duration.millis(500)),
    configGiven: options.config !== undefined,
    idleTimeoutOf,
    config,
    configStamp,
    idleTimeout: idleTimeoutOf(config),
    credentials: credentialsFor(files, env, config)
  }
}

/**
 * Takes the worker lock. The release is registered with the claim, in one uninterruptible step:
 * an interruption (SIGTERM) while the worker still starts up gives the lock back too.
 */
const claimLock = (pid: number, log: (line: string) => void) =>
  Effect.acquireRelease(
    Effect.flatMap(Clock.currentTimeMillis, (now) => WorkerLock.claim(pid, now, log)).pipe(
      Effect.mapError(databaseError("taking the worker lock"))
    ),
    (claimed) =>
      claimed.won
        ? Effect.flatMap(Clock.currentTimeMillis, (now) => WorkerLock.release(pid, now)).pipe(
          Effect.ignore,
          Effect.zipRight(Effect.sync(() => log(`worker ${pid}: stopped`)))
        )
        : Effect.void
  )

/** The session store the observers' conversations are kept in (the memory database). */
const openObserverStore = Effect.gen(function*() {
  const store = yield* SqliteSessionStore.makeWithClient()
  return yield* SessionStore.toSdkWithRuntime(store)
}).pipe(Effect.mapError(databaseError("opening the observer's session store")))

/** What `acx memory status` says about the model: what this worker uses, or why none. */
const noteInForce = (w: WorkerSettings) =>
  Effect.suspend(() =>
    WorkerLock.setInForce({
      mode: w.config.mode,
      model: w.config.model,
      localReason: w.config.mode === "local" ? "mode is local" : w.credentials.ok ? undefined : w.credentials.reason
    })
  ).pipe(Effect.mapError(databaseError("noting the worker's settings")))

/** Records what hooks spooled while the database was busy or locked. */
const ingestSpool = (w: WorkerContext) =>
  Effect.sync(() => Spool.ingest(w.files, w.config)).pipe(
    Effect.tap((recorded) =>
      recorded > 0 ? Effect.sync(() => w.log(`recorded ${recorded} spooled event(s)`)) : Effect.void
    ),
    Effect.catchAllDefect((defect) => Effect.sync(() => w.log(`the spool could not be read yet: ${describe(defect)}`)))
  )

/**
 * Re-reads config.json when it changed: later batches use the new settings, and observers
 * running with another model or budget are ended (the next batch starts one afresh).
 */
const reload = (w: WorkerContext) =>
  Effect.gen(function*() {
    if (w.configGiven) return
    const stamp = MemoryConfig.stamp(w.home)
    if (stamp === w.configStamp) return
    w.configStamp = stamp
    const loaded = MemoryConfig.load(w.home)
    const before = w.config
    const config = w.config = loaded.config
    w.idleTimeout = w.idleTimeoutOf(config)
    w.log(
      `worker ${w.pid}: settings re-read from ${loaded.file}: mode ${config.mode}, model ${config.model}${
        loaded.problems.length === 0 ? "" : ` (${loaded.problems.join("; ")})`
      }`
    )
    if (
      before.mode !== config.mode || before.model !== config.model ||
      before.maxBudgetUsdPerQuery !== config.maxBudgetUsdPerQuery
    ) {
      w.credentials = credentialsFor(w.files, w.env, config)
      yield* closeAll(w, false)
    }
    yield* noteInForce(w)
  })

/** One pass over the sessions with work: how many steps did something, and how many events. */
const pass = (w: WorkerContext) =>
  Effect.gen(function*() {
    yield* reload(w)
    yield* ingestSpool(w)
    const now = yield* Clock.currentTimeMillis
    const interrupted = yield* MemoryStore.markInterrupted(now, w.config.interruptedAfterHours)
    if (interrupted > 0) w.log(`${interrupted} session(s) marked interrupted`)
    const sessions = yield* MemoryStore.sessionsWithWork(now)
    let batches = 0
    let events = 0
    for (const sessionId of sessions) {
      const count = yield* Batch.step(w, sessionId).pipe(
        Effect.mapError(databaseError(`processing session ${sessionId}`))
      )
      if (count > 0) {
        batches++
        events += count
      }
    }
    return { sessions: sessions.length, batches, events }
  })

/**
 * Idle long enough with an empty queue: the observers are closed while the lock is ours (a
 * worker started next never meets them), and the lock is given back unless a hook recorded an
 * event since the queue was read (it saw this worker alive). Answers whether to keep working.
 */
const stopWhenIdle = (w: WorkerContext, state: { retook: boolean }) =>
  Effect.gen(function*() {
    yield* closeAll(w, true)
    const released = yield* WorkerLock.releaseIfIdle(w.pid, yield* Clock.currentTimeMillis)
    if (released === "lost") return yield* WorkerLock.lost(w.pid, w.log)
    if (released === "work") return "continue" as const
    // a spooling hook's worker that met this one still holding the lock has gone: the spool
    // is looked at with the lock free, once per idle spell (a bad file must not keep it up)
    if (!state.retook && Spool.waiting(w.files) && (state.retook = yield* WorkerLock.retake(w.pid, w.log))) {
      return "continue" as const
    }
    return "stop" as const
  })

/** Passes over the queue until the worker has been idle for its idle timeout. */
const loop = (w: WorkerContext) =>
  Effect.gen(function*() {
    let batches = 0
    let handled = 0
    let lastWork = yield* Clock.currentTimeMillis
    const state = { retook: false }
    while (true) {
      const done = yield* pass(w)
      if (done.batches > 0) {
        batches += done.batches
        handled += done.events
        lastWork = yield* Clock.currentTimeMillis
        state.retook = false
        continue
      }
      if ((yield* Clock.currentTimeMillis) - lastWork >= w.idleTimeout && done.sessions === 0) {
        if ((yield* stopWhenIdle(w, state)) === "continue") continue
        break
      }
      yield* Effect.sleep(w.pollInterval)
    }
    w.log(`worker ${w.pid}: idle, exiting (${batches} batches, ${handled} events)`)
    return { _tag: "Idle", batches, events: handled } satisfies WorkerExit
  })
