/**
 * Many conversations, a bounded number of Claude Code processes. Conversations are named by the
 * app's own key (a chat id); at most `maxWarm` are warm (one process each). A send to a cold
 * conversation takes a free slot, or closes the least recently used idle conversation, or — when
 * every warm conversation is busy — waits (`acquireTimeout`, then `Timeout`): never a
 * `maxWarm + 1`th process. A conversation idle for `idleTimeout` is closed. The next send to a
 * closed conversation resumes it from the session store, transparently.
 *
 * The {@link AgentRegistry} records each conversation (SDK session id, cwd, status, usage), so a
 * restarted pool resumes every conversation, and leases it: a pool process holds a conversation
 * while it is warm (renewed every third of `leaseTtl`), so two pool processes on one Postgres
 * never run one conversation at the same time. Transcript appends and turn records are fenced
 * by the lease: an owner that lost it (paused past its expiry, say) writes nothing more — its
 * turn fails with `LeaseLost` and its process is closed. When an owner dies, its leases expire
 * and another pool process resumes its conversations.
 *
 * Needs an {@link AgentRegistry} and a `SessionStore` (`@acx/session-store`) in context, best on
 * one database ({@link layerDatabase} builds both from `sqlite:FILE` or a `postgres://` URL): the
 * fenced append then runs in the same transaction as the lease check.
 *
 * @example
 * ```ts
 * import { AgentPool } from "@acx/agent"
 * import { Effect, Layer, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const pool = yield* AgentPool.make({ maxWarm: 8, cwd: "/srv/app", session: { model: "claude-sonnet-4-5" } })
 *   const turn = yield* pool.ask("chat-42", "Summarise the open issues")
 * })
 * Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(AgentPool.layerDatabase("sqlite:/var/lib/app/agent.db"))))
 * ```
 *
 * @since 0.1.0
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import { AgentError } from "./AgentError.js"
import * as AgentRegistry from "./AgentRegistry.js"
import * as AgentSession from "./AgentSession.js"
import { openDatabase } from "./internal/database.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentPoolOptions {
  /** At most this many Claude Code processes. Default 4. */
  readonly maxWarm?: number | undefined
  /** A warm conversation without a turn for this long is closed. Default 10 minutes. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** How long a send waits for a slot (or for another owner's lease). Default 60 s. */
  readonly acquireTimeout?: Duration.DurationInput | undefined
  /** A lease's life; renewed every third of it while warm. Default 30 s. */
  readonly leaseTtl?: Duration.DurationInput | undefined
  /** This pool process's name in the registry. Default `<hostname>:<pid>:<random>`. */
  readonly owner?: string | undefined
  /** The cwd of new conversations (a send may name its own). Default `process.cwd()`. */
  readonly cwd?: string | undefined
  /** Options of every conversation's session (model, tools, env, binary, …). */
  readonly session?:
    | Omit<AgentSession.AgentSessionOptions, "cwd" | "resume" | "usage" | "sessionStore" | "onTurnComplete">
    | undefined
  /** Runs after each recorded turn (not after a turn whose lease was lost). */
  readonly onTurnComplete?: ((key: string, turn: AgentSession.Turn) => Effect.Effect<void, unknown>) | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentPool {
  /** A turn of conversation `key` (created with `cwd` if new); see `AgentSession.send`. */
  readonly send: (
    key: string,
    prompt: AgentSession.Prompt,
    options?: { readonly cwd?: string | undefined }
  ) => Stream.Stream<AgentEvent, AgentError>
  /** Runs a turn to its end. */
  readonly ask: (
    key: string,
    prompt: AgentSession.Prompt,
    options?: { readonly cwd?: string | undefined }
  ) => Effect.Effect<AgentSession.Turn, AgentError>
  /** Interrupts the running turn of `key`, if warm. */
  readonly interrupt: (key: string) => Effect.Effect<void>
  /** Closes the process of `key` (the conversation stays, and resumes at its next send). */
  readonly close: (key: string) => Effect.Effect<void>
  /** The keys of the warm conversations. */
  readonly warm: Effect.Effect<ReadonlyArray<string>>
  readonly conversation: (key: string) => Effect.Effect<Option.Option<AgentRegistry.Conversation>, AgentError>
  readonly conversations: Effect.Effect<ReadonlyArray<AgentRegistry.Conversation>, AgentError>
  /** This pool process's owner name. */
  readonly owner: string
}

/**
 * @since 0.1.0
 * @category tags
 */
export const AgentPool: Context.Tag<AgentPool, AgentPool> = Context.GenericTag<AgentPool>("@acx/agent/AgentPool")

interface Entry {
  readonly key: string
  readonly lease: AgentRegistry.Lease
  readonly session: AgentSession.AgentSession
  readonly scope: Scope.CloseableScope
  inUse: number
  lastUsed: number
  lost: AgentError | undefined
}

type Attempt =
  | { readonly _tag: "Ready"; readonly entry: Entry }
  | { readonly _tag: "Await"; readonly created: Deferred.Deferred<Entry, AgentError> }
  | {
    readonly _tag: "Create"
    readonly created: Deferred.Deferred<Entry, AgentError>
    readonly victim: Entry | undefined
  }
  | { readonly _tag: "Wait"; readonly changed: Deferred.Deferred<void> }

const defaultOwner = () => `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`

/**
 * Starts a pool; the scope closes every conversation and releases its leases.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: AgentPoolOptions = {}
): Effect.Effect<AgentPool, never, Scope.Scope | AgentRegistry.AgentRegistry | SessionStore.SessionStore> =>
  Effect.gen(function*() {
    const registry = yield* AgentRegistry.AgentRegistry
    const store = yield* SessionStore.SessionStore
    const poolScope = yield* Effect.scope
    const maxWarm = Math.max(1, Math.floor(options.maxWarm ?? 4))
    const idleTimeout = Duration.decode(options.idleTimeout ?? Duration.minutes(10))
    const acquireTimeout = Duration.decode(options.acquireTimeout ?? Duration.seconds(60))
    const leaseTtl = Duration.decode(options.leaseTtl ?? Duration.seconds(30))
    const owner = options.owner ?? defaultOwner()
    const defaultCwd = path.resolve(options.cwd ?? process.cwd())

    const lock = yield* Effect.makeSemaphore(1)
    const entries = new Map<string, Entry>()
    const creating = new Map<string, Deferred.Deferred<Entry, AgentError>>()
    const changedRef = yield* Ref.make(yield* Deferred.make<void>())
    const signal = Effect.flatMap(
      Deferred.make<void>(),
      (next) => Effect.flatMap(Ref.getAndSet(changedRef, next), (previous) => Deferred.succeed(previous, undefined))
    )

    /** Closes an entry already taken out of `entries`: its process ends, its lease is released. */
    const closeEntry = (entry: Entry): Effect.Effect<void> =>
      entry.session.close.pipe(
        Effect.zipRight(Scope.close(entry.scope, Exit.void)),
        Effect.zipRight(registry.release(entry.lease).pipe(Effect.ignoreLogged)),
        Effect.withSpan("AgentPool.closeEntry", { attributes: { key: entry.key } })
      )

    const lostLease = (entry: Entry, error: AgentError) =>
      Effect.sync(() => {
        entry.lost ??= error
      })

    /** The store the conversation's SDK writes to: every append checks the lease in its transaction. */
    const fencedStore = (lease: AgentRegistry.Lease, entry: () => Entry | undefined): SessionStore.SessionStore => ({
      ...store,
      append: (key, entries) =>
        registry.withLease(lease, store.append(key, entries)).pipe(
          Effect.catchIf(
            (error): error is AgentError => error instanceof AgentError,
            (error) => {
              const current = entry()
              return (current === undefined ? Effect.void : lostLease(current, error)).pipe(
                Effect.zipRight(Effect.fail(
                  new SessionStore.SessionStoreError({
                    reason: "Storage",
                    operation: "append",
                    description: error.description,
                    cause: error
                  })
                ))
              )
            }
          )
        )
    })

    const claim = (key: string, cwd: string, deadline: number): Effect.Effect<AgentRegistry.Lease, AgentError> =>
      Effect.gen(function*() {
        while (true) {
          const lease = yield* registry.claim(key, { owner, cwd, ttl: leaseTtl })
          if (Option.isSome(lease)) return lease.value
          if ((yield* Clock.currentTimeMillis) >= deadline) {
            const held = yield* registry.get(key)
            return yield* new AgentError({
              reason: "LeaseLost",
              description: `conversation ${key} is held by ${
                Option.match(held, { onNone: () => "another process", onSome: (c) => c.owner ?? "another process" })
              } (waited ${Duration.format(acquireTimeout)})`
            })
          }
          yield* Effect.sleep(Duration.millis(Math.min(250, Duration.toMillis(leaseTtl) / 4)))
        }
      })

    const create = (key: string, cwd: string, deadline: number): Effect.Effect<Entry, AgentError> =>
      Effect.gen(function*() {
        const lease = yield* claim(key, cwd, deadline)
        const scope = yield* Scope.make()
        let entry: Entry | undefined
        const built = yield* Effect.gen(function*() {
          const sdkStore = yield* SessionStore.toSdkWithRuntime(fencedStore(lease, () => entry))
          const conversation = lease.conversation
          const session = yield* AgentSession.make({
            ...options.session,
            cwd: conversation.cwd,
            resume: conversation.sessionId,
            ...(conversation.turns > 0 ? { usage: conversation.usage } : {}),
            sessionStore: sdkStore,
            onTurnComplete: (turn) => recordTurn(key, turn)
          }).pipe(Scope.extend(scope))
          entry = { key, lease, session, scope, inUse: 0, lastUsed: Date.now(), lost: undefined }
          const owned = entry
          // keep the lease while warm; a lease that cannot be renewed closes the conversation
          yield* registry.renew(lease).pipe(
            Effect.repeat(Schedule.spaced(Duration.millis(Duration.toMillis(leaseTtl) / 3))),
            Effect.delay(Duration.millis(Duration.toMillis(leaseTtl) / 3)),
            // evicted from outside: closing the entry's scope interrupts this very fiber
            Effect.catchAll((error) =>
              lostLease(owned, error).pipe(
                Effect.zipRight(Effect.forkIn(Effect.interruptible(evict(owned)), poolScope))
              )
            ),
            // a pool used inside an uninterruptible region must still be able to stop this loop
            Effect.interruptible,
            Effect.forkIn(scope)
          )
          return owned
        }).pipe(Effect.exit)
        if (Exit.isFailure(built)) {
          yield* Scope.close(scope, Exit.void)
          yield* registry.release(lease).pipe(Effect.ignoreLogged)
          return yield* Effect.failCause(built.cause)
        }
        return built.value
      }).pipe(Effect.withSpan("AgentPool.create", { attributes: { key } }))

    const recordTurn = (key: string, turn: AgentSession.Turn): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entry = entries.get(key)
        if (entry === undefined) return
        const recorded = yield* Effect.either(
          registry.record(entry.lease, { sessionId: turn.sessionId, usage: turn.conversation, status: "warm" })
        )
        if (recorded._tag === "Left") return yield* lostLease(entry, recorded.left)
        if (entry.lost === undefined && options.onTurnComplete !== undefined) {
          yield* Effect.suspend(() => options.onTurnComplete!(key, turn)).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("acx agent pool: onTurnComplete failed", cause))
          )
        }
      })

    /** Takes an entry out of the pool (if still there) and closes it. */
    const evict = (entry: Entry): Effect.Effect<void> =>
      lock.withPermits(1)(Effect.sync(() => {
        const present = entries.get(entry.key) === entry
        if (present) entries.delete(entry.key)
        return present
      })).pipe(
        Effect.flatMap((present) => (present ? closeEntry(entry).pipe(Effect.zipRight(signal)) : Effect.void))
      )

    // sends waiting for a slot, first come first served: a newcomer never takes a slot or a
    // victim ahead of a send already waiting (it would run first, being already scheduled)
    const queue: Array<object> = []
    const leaveQueue = (ticket: object) => {
      const index = queue.indexOf(ticket)
      if (index !== -1) queue.splice(index, 1)
      return index === 0
    }

    const attempt = (key: string, ticket: object): Effect.Effect<Attempt> =>
      Effect.gen(function*() {
        const ready = entries.get(key)
        if (ready !== undefined) {
          ready.inUse += 1
          ready.lastUsed = Date.now()
          leaveQueue(ticket)
          return { _tag: "Ready", entry: ready } as const
        }
        const pending = creating.get(key)
        if (pending !== undefined) return { _tag: "Await", created: pending } as const
        const first = queue.length === 0 || queue[0] === ticket
        const occupied = entries.size + creating.size
        let victim: Entry | undefined
        if (first && occupied >= maxWarm) {
          for (const entry of entries.values()) {
            if (entry.inUse === 0 && (victim === undefined || entry.lastUsed < victim.lastUsed)) victim = entry
          }
        }
        if (!first || (occupied >= maxWarm && victim === undefined)) {
          if (!queue.includes(ticket)) queue.push(ticket)
          return { _tag: "Wait", changed: yield* Ref.get(changedRef) } as const
        }
        if (victim !== undefined) entries.delete(victim.key)
        leaveQueue(ticket)
        const created = yield* Deferred.make<Entry, AgentError>()
        creating.set(key, created)
        return { _tag: "Create", created, victim } as const
      })

    /**
     * Waits for (or makes) the conversation's entry and counts one use of it. Run uninterruptibly
     * with `restore` around the waits, so an interrupted caller never leaves a use counted.
     */
    const acquire = (
      key: string,
      cwd: string,
      restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    ): Effect.Effect<Entry, AgentError> => {
      const ticket = {}
      return Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(acquireTimeout)
        while (true) {
          const next = yield* lock.withPermits(1)(attempt(key, ticket))
          switch (next._tag) {
            case "Ready":
              return next.entry
            case "Await":
              yield* restore(Effect.either(Deferred.await(next.created)))
              continue
            case "Wait": {
              const left = deadline - (yield* Clock.currentTimeMillis)
              const woke = left > 0 &&
                Option.isSome(
                  yield* restore(Deferred.await(next.changed).pipe(Effect.timeoutOption(Duration.millis(left))))
                )
              if (!woke) {
                return yield* new AgentError({
                  reason: "Timeout",
                  description: `every one of the ${maxWarm} warm conversations is busy (waited ${
                    Duration.format(acquireTimeout)
                  } for a slot)`
                })
              }
              continue
            }
            case "Create": {
              // the victim's process ends before the new one starts: never maxWarm + 1 processes
              if (next.victim !== undefined) yield* closeEntry(next.victim)
              const made = yield* Effect.exit(restore(create(key, cwd, deadline)))
              yield* lock.withPermits(1)(Effect.sync(() => {
                creating.delete(key)
                if (Exit.isSuccess(made)) {
                  // in use by its creator from the start: no waiter may take it for a victim
                  made.value.inUse = 1
                  made.value.lastUsed = Date.now()
                  entries.set(key, made.value)
                }
              }))
              yield* Deferred.done(next.created, made)
              yield* signal
              if (Exit.isFailure(made)) return yield* Effect.failCause(made.cause)
              return made.value
            }
          }
        }
      }).pipe(
        // a send that stops waiting (timeout, interruption) leaves the queue; the next one looks again
        Effect.ensuring(
          lock.withPermits(1)(Effect.sync(() => leaveQueue(ticket))).pipe(
            Effect.flatMap((wasFirst) => (wasFirst ? signal : Effect.void))
          )
        )
      )
    }

    const releaseUse = (entry: Entry) =>
      lock.withPermits(1)(Effect.sync(() => {
        entry.inUse -= 1
        entry.lastUsed = Date.now()
      })).pipe(
        Effect.zipRight(signal),
        // a conversation whose lease was lost stops here
        Effect.zipRight(entry.lost === undefined ? Effect.void : evict(entry))
      )

    // a turn cut short because the lease was lost (the session closed under it) says so
    const lostOr = (entry: Entry, error: AgentError): AgentError => entry.lost ?? error

    const cwdOf = (given: string | undefined) => (given === undefined ? defaultCwd : path.resolve(given))

    /** One use of the conversation's entry for the current scope. */
    const use = (key: string, cwd: string | undefined): Effect.Effect<Entry, AgentError, Scope.Scope> =>
      Effect.uninterruptibleMask((restore) =>
        acquire(key, cwdOf(cwd), restore).pipe(Effect.tap((entry) => Effect.addFinalizer(() => releaseUse(entry))))
      )

    const send: AgentPool["send"] = (key, prompt, sendOptions) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const entry = yield* use(key, sendOptions?.cwd)
        const events = yield* entry.session.submit(prompt)
        const leaseCheck = Effect.suspend(() => (entry.lost === undefined ? Effect.void : Effect.fail(entry.lost)))
        return Stream.concat(events, Stream.drain(Stream.fromEffect(leaseCheck))).pipe(
          Stream.catchAll((error) => Stream.fail(lostOr(entry, error)))
        )
      })).pipe(Stream.withSpan("AgentPool.send", { attributes: { key } }))

    // idle conversations are closed after idleTimeout
    const sweep = Effect.gen(function*() {
      const now = Date.now()
      const idle = yield* lock.withPermits(1)(Effect.sync(() => {
        const found = [...entries.values()].filter((entry) =>
          entry.inUse === 0 && now - entry.lastUsed >= Duration.toMillis(idleTimeout)
        )
        for (const entry of found) entries.delete(entry.key)
        return found
      }))
      if (idle.length === 0) return
      yield* Effect.forEach(idle, closeEntry, { discard: true, concurrency: "unbounded" })
      yield* signal
    })
    const sweepEvery = Duration.millis(Math.max(10, Math.min(Duration.toMillis(idleTimeout) / 2, 5_000)))
    yield* Effect.forkIn(Effect.interruptible(Effect.repeat(sweep, Schedule.spaced(sweepEvery))), poolScope)

    yield* Effect.addFinalizer(() =>
      lock.withPermits(1)(Effect.sync(() => {
        const all = [...entries.values()]
        entries.clear()
        return all
      })).pipe(Effect.flatMap((all) => Effect.forEach(all, closeEntry, { discard: true, concurrency: "unbounded" })))
    )

    return {
      send,
      ask: (key, prompt, askOptions) =>
        Effect.scoped(Effect.gen(function*() {
          const entry = yield* use(key, askOptions?.cwd)
          const turn = yield* entry.session.ask(prompt).pipe(Effect.mapError((error) => lostOr(entry, error)))
          if (entry.lost !== undefined) return yield* entry.lost
          return turn
        })).pipe(Effect.withSpan("AgentPool.ask", { attributes: { key } })),
      interrupt: (key) =>
        Effect.suspend(() => {
          const entry = entries.get(key)
          return entry === undefined ? Effect.void : entry.session.interrupt
        }),
      close: (key) =>
        Effect.suspend(() => {
          const entry = entries.get(key)
          return entry === undefined ? Effect.void : evict(entry)
        }),
      warm: Effect.sync(() => [...entries.keys()]),
      conversation: registry.get,
      conversations: registry.list,
      owner
    }
  })

/**
 * The pool as a layer (on a registry and a store in context).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: AgentPoolOptions = {}
): Layer.Layer<AgentPool, never, AgentRegistry.AgentRegistry | SessionStore.SessionStore> =>
  Layer.scoped(AgentPool, make(options))

/**
 * A registry and a session store on ONE database, named by a `DatabaseSpec` of
 * `@acx/environment`: `sqlite:FILE`, a path ending `.db` / `.sqlite`, or a `postgres://` /
 * `postgresql://` URL whose `?schema=` names the Postgres schema of both. The driver (`@effect/sql-sqlite-node` or `@effect/sql-pg`)
 * is loaded when the layer is built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDatabase = (
  database: string
): Layer.Layer<AgentRegistry.AgentRegistry | SessionStore.SessionStore, AgentError> =>
  Layer.scopedContext(openDatabase(database))
