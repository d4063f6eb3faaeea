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
import * as ObserverReply from "@acx/convert/ObserverReply"
import * as AcxHome from "@acx/environment/AcxHome"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Observer, ObserverAnswer, ObserverFactory } from "./internal/observer.js"
import { agentObserver, prepareCredentials } from "./internal/observer.js"
import * as Spool from "./internal/spoolIngest.js"
import * as WorkerLock from "./internal/workerLock.js"
import { describe, parseUsage, payloadField } from "./internal/workerParse.js"
import * as LocalObservations from "./LocalObservations.js"
import * as MemoryConfig from "./MemoryConfig.js"
import { MemoryError } from "./MemoryError.js"
import * as MemoryStore from "./MemoryStore.js"
import * as ObserverPrompts from "./ObserverPrompts.js"

type Env = { readonly [name: string]: string | undefined }

/**
 * @since 0.1.0
 * @category models
 */
export interface WorkerOptions {
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  /** The environment the observer's Claude Code inherits (default `process.env`). */
  readonly env?: Env | undefined
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

interface Warm {
  readonly observer: Observer
  /** The instructions were given in this conversation (now or before a restart). */
  instructed: boolean
  lastUsed: number
}

/**
 * Batches in a row whose replies could not be read (twice each: the question and the reminder)
 * after which a session is recorded locally from then on.
 *
 * @since 0.1.0
 * @category constants
 */
export const UNREADABLE_BATCHES_BEFORE_LOCAL = 2

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
      const env = options.env ?? process.env
      const home = options.home ?? AcxHome.acxHome(env)
      const files = MemoryConfig.paths(home)
      // the settings in force: re-read when config.json changes (not when given by the caller)
      let configStamp = MemoryConfig.stamp(home)
      let config = options.config ?? MemoryConfig.load(home).config
      const pid = options.pid ?? process.pid
      const log = options.log ?? ((line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`))
      const pollInterval = Duration.decode(options.pollInterval ?? Duration.millis(500))
      const idleTimeoutOf = (settings: MemoryConfig.MemoryConfig) =>
        Duration.toMillis(options.idleTimeout ?? Duration.minutes(settings.workerIdleMinutes))
      let idleTimeout = idleTimeoutOf(config)
      const maxObservers = options.maxObservers ?? 2
      const templates = options.templates ?? ObserverPrompts.load()
      const databaseError = (what: string) => (cause: unknown) =>
        cause instanceof MemoryError
          ? cause
          : new MemoryError({ reason: "Database", description: `${what}: ${describe(cause)}`, cause })

      // the release is registered with the claim, in one uninterruptible step: an interruption
      // (SIGTERM) while the worker still starts up gives the lock back too
      const claimed = yield* Effect.acquireRelease(
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
      if (!claimed.won) return { _tag: "AlreadyRunning" as const, pid: claimed.holder, startedAt: claimed.startedAt }
      log(`worker ${pid}: started (memory ${files.database})`)

      const credentialsFor = (settings: MemoryConfig.MemoryConfig) =>
        settings.mode === "local" ? { ok: true as const } : prepareCredentials(files, env)
      let credentials = credentialsFor(config)
      // what `acx memory status` says about the model: what this worker uses, or why none
      const noteInForce = Effect.suspend(() =>
        WorkerLock.setInForce({
          mode: config.mode,
          model: config.model,
          localReason: config.mode === "local" ? "mode is local" : credentials.ok ? undefined : credentials.reason
        })
      ).pipe(Effect.mapError(databaseError("noting the worker's settings")))
      yield* noteInForce
      const sdkStore = yield* Effect.gen(function*() {
        const store = yield* SqliteSessionStore.makeWithClient()
        return yield* SessionStore.toSdkWithRuntime(store)
      }).pipe(Effect.mapError(databaseError("opening the observer's session store")))
      // the settings of the moment: an observer started after a reload runs with the new ones
      const startObserver: ObserverFactory = options.observer ?? ((session) =>
        agentObserver({
          files,
          config,
          env,
          sessionStore: sdkStore,
          pathToClaudeCodeExecutable: options.pathToClaudeCodeExecutable
        })(session))
      const warm = new Map<string, Warm>()
      const closeObserver = (sessionId: string) =>
        Effect.suspend(() => {
          const entry = warm.get(sessionId)
          warm.delete(sessionId)
          return entry === undefined ? Effect.void : entry.observer.close
        })

      // before the lock is given back (finalizers run last first)
      yield* Effect.addFinalizer(() =>
        Effect.forEach([...warm.keys()], closeObserver, { discard: true, concurrency: "unbounded" })
      )

      const localReason = (session: MemoryStore.SessionRow) =>
        Effect.gen(function*() {
          if (config.mode === "local") return "mode is local"
          if (!credentials.ok) return credentials.reason
          if (session.observerLocalReason !== null) return session.observerLocalReason
          const spend = yield* MemoryStore.spendOn(yield* Clock.currentTimeMillis)
          if (config.dailyBudgetUsd !== null && spend.costUsd >= config.dailyBudgetUsd) {
            return `the daily budget of $${config.dailyBudgetUsd} is spent ($${
              spend.costUsd.toFixed(4)
            } on ${spend.day})`
          }
          if (config.dailyBudgetTokens !== null && spend.tokens >= config.dailyBudgetTokens) {
            return `the daily budget of ${config.dailyBudgetTokens} tokens is spent (${spend.tokens} on ${spend.day})`
          }
          return undefined
        })

      const observerFor = (session: MemoryStore.SessionRow) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const existing = warm.get(session.id)
          if (existing !== undefined) {
            existing.lastUsed = now
            return existing
          }
          // a slot for it: the least recently used observer ends first
          while (warm.size >= maxObservers) {
            const oldest = [...warm.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0]!
            yield* closeObserver(oldest[0])
          }
          const observer = yield* startObserver({
            sessionId: session.id,
            resume: session.observerSessionId ?? undefined,
            usage: parseUsage(session.observerUsage)
          })
          const entry: Warm = { observer, instructed: session.observerSessionId !== null, lastUsed: now }
          warm.set(session.id, entry)
          return entry
        })

      /** Asks, and once more with a reminder when nothing in the reply parses. */
      const askTwice = (session: MemoryStore.SessionRow, prompt: (instructed: boolean) => string) =>
        Effect.gen(function*() {
          const entry = yield* observerFor(session)
          const answers: Array<ObserverAnswer> = []
          const ask = (text: string) =>
            entry.observer.ask(text).pipe(
              Effect.tap((answer) =>
                Effect.sync(() => answers.push(answer)).pipe(
                  Effect.zipRight(MemoryStore.saveObserver(session.id, answer))
                )
              )
            )
          const first = yield* ask(prompt(entry.instructed))
          entry.instructed = true
          const ledger = () => answers.flatMap((answer) => answer.ledger)
          if (first.error !== undefined) return { _tag: "Error" as const, answer: first, ledger: ledger() }
          const reply = ObserverReply.parse(first.text)
          if (!ObserverReply.isEmpty(reply)) return { _tag: "Reply" as const, reply, ledger: ledger() }
          const second = yield* ask(templates.reminder)
          if (second.error !== undefined) return { _tag: "Error" as const, answer: second, ledger: ledger() }
          const retried = ObserverReply.parse(second.text)
          return ObserverReply.isEmpty(retried)
            ? { _tag: "Unreadable" as const, text: second.text, ledger: ledger() }
            : { _tag: "Reply" as const, reply: retried, ledger: ledger() }
        })

      /**
       * {@link askTwice}, then a conversation that has grown past `observerMaxContextTokens` is
       * ended: the session's next batch starts a fresh one (with the instructions again).
       */
      const askParsed = (session: MemoryStore.SessionRow, prompt: (instructed: boolean) => string) =>
        Effect.tap(askTwice(session, prompt), (result) => {
          const last = result.ledger.at(-1)
          const context = last === undefined
            ? 0
            : last.inputTokens + last.cacheReadTokens + last.cacheCreationTokens
          if (context < config.observerMaxContextTokens) return Effect.void
          log(`session ${session.id}: the observer read ${context} tokens; its next batch starts a fresh conversation`)
          return closeObserver(session.id).pipe(Effect.zipRight(MemoryStore.forgetObserver(session.id)))
        })

      const facts = (session: MemoryStore.SessionRow, now: number): ObserverPrompts.SessionFacts => ({
        project: session.project,
        sessionId: session.id,
        now
      })

      const fail = (
        session: MemoryStore.SessionRow,
        events: ReadonlyArray<MemoryStore.EventRow>,
        error: string,
        extra: { readonly reply?: string | undefined; readonly ledger?: ReadonlyArray<MemoryStore.LedgerEntry> }
      ) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          if (extra.ledger !== undefined && extra.ledger.length > 0) yield* MemoryStore.recordLedger(extra.ledger, now)
          const failed = yield* MemoryStore.failBatch(events.map((event) => event.id), error, {
            reply: extra.reply,
            maxAttempts: config.maxAttempts,
            now
          })
          log(`session ${session.id}: events ${events.map((event) => event.id).join(",")} failed: ${error}`)
          if (failed > 0) yield* MemoryStore.setSessionStatus(session.id, "failed", error)
        })

      /** The session is recorded locally from now on (`why`: what the log adds to the reason). */
      const goLocal = (session: MemoryStore.SessionRow, reason: string, why: string) =>
        Effect.gen(function*() {
          yield* MemoryStore.setObserverLocal(session.id, reason)
          yield* closeObserver(session.id)
          log(`session ${session.id}: ${reason} (${why}); recording locally from now on`)
          return { ...session, observerLocalReason: reason }
        })

      /** Per session, how many batches in a row the observer answered with nothing readable. */
      const unreadableInARow = new Map<string, number>()

      /**
       * Nothing readable in the answer nor in the answer to the reminder: asking again would cost
       * the same for the same end, so the batch is recorded locally at once (never retried on the
       * model); after {@link UNREADABLE_BATCHES_BEFORE_LOCAL} such batches in a row the session
       * is recorded locally from then on. What the observer can cost a session whose replies never
       * parse is bounded by that, whatever the number of events.
       */
      const unreadable = (session: MemoryStore.SessionRow, reply: string) =>
        Effect.gen(function*() {
          const count = (unreadableInARow.get(session.id) ?? 0) + 1
          unreadableInARow.set(session.id, count)
          const shown = JSON.stringify(reply.slice(0, 200))
          if (count >= UNREADABLE_BATCHES_BEFORE_LOCAL) {
            return yield* goLocal(
              session,
              `the observer's replies had no readable XML for ${count} batches in a row`,
              `last reply ${shown}`
            )
          }
          const reason = "the observer's reply had no readable XML, twice"
          log(`session ${session.id}: ${reason} (${shown}); this batch is recorded locally`)
          return { ...session, observerLocalReason: reason }
        })

      const isBudgetError = (answer: ObserverAnswer) => answer.error?.subtype === "error_max_budget_usd"

      /**
       * What an error result said. An API error the CLI gave up on comes as subtype `success`
       * with no errors and the cause in the result's text (`API Error: Connection refused …`,
       * `API Error: 500 …`): that text is the error. Other results name their subtype and errors.
       */
      const answerError = (answer: ObserverAnswer) => {
        const error = answer.error!
        const detail = (error.messages.length > 0 ? error.messages.join("; ") : answer.text).trim()
        return error.subtype === "success"
          ? `the observer's model call failed: ${detail === "" ? "no reason given" : detail}`
          : `the observer's turn ended with ${error.subtype}${detail === "" ? "" : `: ${detail}`}`
      }

      /**
       * Asks the observer about some events: a readable reply goes to `onReply`; a spent query
       * budget sends the session local and runs `again` on it; anything else fails the events.
       */
      const consult = (
        session: MemoryStore.SessionRow,
        events: ReadonlyArray<MemoryStore.EventRow>,
        prompt: (instructed: boolean) => string,
        again: (local: MemoryStore.SessionRow) => Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient>,
        onReply: (
          reply: ObserverReply.ObserverReply,
          ledger: ReadonlyArray<MemoryStore.LedgerEntry>
        ) => Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient>
      ): Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient> =>
        Effect.gen(function*() {
          const outcome = yield* askParsed(session, prompt).pipe(Effect.either)
          if (outcome._tag === "Left") return yield* fail(session, events, outcome.left.message, {})
          const result = outcome.right
          switch (result._tag) {
            case "Error": {
              if (!isBudgetError(result.answer)) {
                return yield* fail(session, events, answerError(result.answer), {
                  reply: result.answer.text,
                  ledger: result.ledger
                })
              }
              yield* MemoryStore.recordLedger(result.ledger, yield* Clock.currentTimeMillis)
              const reason =
                `the observer's query budget (maxBudgetUsdPerQuery $${config.maxBudgetUsdPerQuery}) is spent`
              return yield* again(yield* goLocal(session, reason, result.answer.error?.subtype ?? "error"))
            }
            case "Unreadable":
              yield* MemoryStore.recordLedger(result.ledger, yield* Clock.currentTimeMillis)
              return yield* again(yield* unreadable(session, result.text))
            case "Reply":
              unreadableInARow.delete(session.id)
              return yield* onReply(result.reply, result.ledger)
          }
        })

      const observe = (
        session: MemoryStore.SessionRow,
        batch: ReadonlyArray<MemoryStore.EventRow>
      ): Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient> =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const ids = batch.map((event) => event.id)
          const reason = yield* localReason(session)
          if (reason !== undefined) {
            yield* MemoryStore.completeBatch({
              sessionId: session.id,
              project: session.project,
              eventIds: ids,
              observations: LocalObservations.observe(session.project, batch),
              summary: undefined,
              source: "local",
              ledger: []
            }, now)
            return
          }
          yield* consult(
            session,
            batch,
            (instructed) =>
              ObserverPrompts.observe(templates, batch, { first: !instructed, session: facts(session, now) }),
            (local) => observe(local, batch),
            (reply, ledger) =>
              MemoryStore.completeBatch({
                sessionId: session.id,
                project: session.project,
                eventIds: ids,
                observations: reply.observations,
                summary: undefined,
                source: "model",
                ledger
              }, now)
          )
        })

      const summarise = (
        session: MemoryStore.SessionRow,
        checkpoints: ReadonlyArray<MemoryStore.EventRow>
      ): Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient> =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const ids = checkpoints.map((event) => event.id)
          const covered = yield* MemoryStore.eventsSinceSummary(session.id, checkpoints[0]!.id)
          const store = (summary: ObserverReply.Summary | undefined, source: "model" | "local", extra?: {
            readonly observations: ReadonlyArray<ObserverReply.Observation>
            readonly ledger: ReadonlyArray<MemoryStore.LedgerEntry>
          }) =>
            MemoryStore.completeBatch({
              sessionId: session.id,
              project: session.project,
              eventIds: ids,
              observations: extra?.observations ?? [],
              summary,
              source,
              ledger: extra?.ledger ?? []
            }, now)
          // nothing happened since the last summary (a Stop then a SessionEnd): no model call
          if (covered.length === 0) return yield* store(undefined, "local")
          const reason = yield* localReason(session)
          if (reason !== undefined) {
            return yield* store(LocalObservations.summarise(session.project, covered, reason), "local")
          }
          const trigger = payloadField(checkpoints[0]!.payload, "trigger") ?? "Stop"
          // a fresh conversation (one ended for its length) has not seen them: name them
          const recorded = yield* MemoryStore.sessionObservations(session.id)
          yield* consult(
            session,
            checkpoints,
            (instructed) =>
              ObserverPrompts.summarise(templates, {
                trigger,
                first: !instructed,
                session: facts(session, now),
                recorded
              }),
            (local) => summarise(local, checkpoints),
            (reply, ledger) =>
              store(reply.skipSummary ? undefined : reply.summary, "model", {
                observations: reply.observations,
                ledger
              })
          )
        })

      /** One step for a session: a batch, a checkpoint, or nothing yet (a batch still filling). */
      const step = (sessionId: string) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const events = yield* MemoryStore.readyEvents(sessionId, now, config.batchSize)
          if (events.length === 0) return 0
          const session = yield* MemoryStore.session(sessionId)
          if (session === undefined) return 0
          const unit = MemoryStore.nextUnit(events)
          let handled: number
          if (unit._tag === "Checkpoints") {
            yield* summarise(session, unit.events)
            handled = unit.events.length
          } else {
            const batch = unit.events
            const filling = !unit.closed && batch.length < config.batchSize && session.endedAt === null &&
              now - batch.at(-1)!.createdAt < config.batchWaitSeconds * 1000
            if (filling) return 0
            yield* observe(session, batch)
            handled = batch.length
          }
          const after = yield* MemoryStore.session(sessionId)
          const left = yield* MemoryStore.readyEvents(sessionId, Number.MAX_SAFE_INTEGER, 1)
          if (after !== undefined && after.endedAt !== null && left.length === 0) {
            if (after.status === "active" || after.status === "interrupted") {
              yield* MemoryStore.setSessionStatus(sessionId, "completed")
            }
            yield* closeObserver(sessionId)
          }
          return handled
        })

      const ingestSpool = Effect.sync(() => Spool.ingest(files, config)).pipe(
        Effect.tap((recorded) =>
          recorded > 0 ? Effect.sync(() => log(`recorded ${recorded} spooled event(s)`)) : Effect.void
        ),
        Effect.catchAllDefect((defect) =>
          Effect.sync(() => log(`the spool could not be read yet: ${describe(defect)}`))
        )
      )

      /**
       * Re-reads config.json when it changed: later batches use the new settings, and observers
       * running with another model or budget are ended (the next batch starts one afresh).
       */
      const reload = Effect.gen(function*() {
        if (options.config !== undefined) return
        const stamp = MemoryConfig.stamp(home)
        if (stamp === configStamp) return
        configStamp = stamp
        const loaded = MemoryConfig.load(home)
        const before = config
        config = loaded.config
        idleTimeout = idleTimeoutOf(config)
        log(
          `worker ${pid}: settings re-read from ${loaded.file}: mode ${config.mode}, model ${config.model}${
            loaded.problems.length === 0 ? "" : ` (${loaded.problems.join("; ")})`
          }`
        )
        if (
          before.mode !== config.mode || before.model !== config.model ||
          before.maxBudgetUsdPerQuery !== config.maxBudgetUsdPerQuery
        ) {
          credentials = credentialsFor(config)
          yield* Effect.forEach([...warm.keys()], closeObserver, { discard: true })
        }
        yield* noteInForce
      })

      const loop = Effect.gen(function*() {
        let batches = 0
        let handled = 0
        let lastWork = yield* Clock.currentTimeMillis
        let retook = false
        while (true) {
          yield* reload
          yield* ingestSpool
          const now = yield* Clock.currentTimeMillis
          const interrupted = yield* MemoryStore.markInterrupted(now, config.interruptedAfterHours)
          if (interrupted > 0) log(`${interrupted} session(s) marked interrupted`)
          const sessions = yield* MemoryStore.sessionsWithWork(now)
          let worked = false
          for (const sessionId of sessions) {
            const count = yield* step(sessionId).pipe(Effect.mapError(databaseError(`processing session ${sessionId}`)))
            if (count > 0) {
              worked = true
              batches++
              handled += count
            }
          }
          if (worked) {
            lastWork = yield* Clock.currentTimeMillis
            retook = false
            continue
          }
          if ((yield* Clock.currentTimeMillis) - lastWork >= idleTimeout && sessions.length === 0) {
            // observers closed while the lock is ours (a worker started next never meets them); the
            // lock kept if a hook recorded an event since the queue was read (it saw this worker alive)
            yield* Effect.forEach([...warm.keys()], closeObserver, { discard: true, concurrency: "unbounded" })
            const released = yield* WorkerLock.releaseIfIdle(pid, yield* Clock.currentTimeMillis)
            if (released === "lost") return yield* WorkerLock.lost(pid, log)
            // a spooling hook's worker that met this one still holding the lock has gone: the spool
            // is looked at with the lock free, once per idle spell (a bad file must not keep it up)
            if (released === "work") continue
            if (!retook && Spool.waiting(files) && (retook = yield* WorkerLock.retake(pid, log))) continue
            break
          }
          yield* Effect.sleep(pollInterval)
        }
        log(`worker ${pid}: idle, exiting (${batches} batches, ${handled} events)`)
        return { _tag: "Idle", batches, events: handled } satisfies WorkerExit
      })

      const watch = WorkerLock.watch(pid, log)
      return yield* Effect.raceFirst(loop, watch) as Effect.Effect<WorkerExit, MemoryError | SqlError>
    }).pipe(Effect.mapError((cause) =>
      cause instanceof MemoryError
        ? cause
        : new MemoryError({ reason: "Database", description: `the worker failed: ${describe(cause)}`, cause })
    ))
  )
