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

/** A pool's options, decoded, with its defaults. */
interface Settings {
  readonly options: AgentPoolOptions
  readonly maxWarm: number
  readonly idleTimeout: Duration.Duration
  readonly acquireTimeout: Duration.Duration
  readonly leaseTtl: Duration.Duration
  readonly owner: string
  readonly defaultCwd: string
}

const settingsOf = (options: AgentPoolOptions): Settings => ({
  options,
  maxWarm: Math.max(1, Math.floor(options.maxWarm ?? 4)),
  idleTimeout: Duration.decode(options.idleTimeout ?? Duration.minutes(10)),
  acquireTimeout: Duration.decode(options.acquireTimeout ?? Duration.seconds(60)),
  leaseTtl: Duration.decode(options.leaseTtl ?? Duration.seconds(30)),
  owner: options.owner ?? defaultOwner(),
  defaultCwd: path.resolve(options.cwd ?? process.cwd())
})

/**
 * A running pool's state: the warm conversations (`entries`), those being made (`creating`), the
 * sends waiting for a slot (`queue`, first come first served), all changed under `lock`; `changed`
 * wakes the waiting sends when a slot may have come free.
 */
interface Pool {
  readonly settings: Settings
  readonly registry: AgentRegistry.AgentRegistry
  readonly store: SessionStore.SessionStore
  readonly poolScope: Scope.Scope
  readonly lock: Effect.Semaphore
  readonly entries: Map<string, Entry>
  readonly creating: Map<string, Deferred.Deferred<Entry, AgentError>>
  readonly changed: Ref.Ref<Deferred.Deferred<void>>
  // a newcomer never takes a slot or a victim ahead of a send already waiting (it would run
  // first, being already scheduled)
  readonly queue: Array<object>
}

/** Wakes every send waiting for a slot. */
const signal = (pool: Pool): Effect.Effect<void> =>
  Effect.flatMap(
    Deferred.make<void>(),
    (next) => Effect.flatMap(Ref.getAndSet(pool.changed, next), (previous) => Deferred.succeed(previous, undefined))
  )

/** Closes an entry already taken out of `entries`: its process ends, its lease is released. */
const closeEntry = (pool: Pool, entry: Entry): Effect.Effect<void> =>
  entry.session.close.pipe(
    Effect.zipRight(Scope.close(entry.scope, Exit.void)),
    Effect.zipRight(pool.registry.release(entry.lease).pipe(Effect.ignoreLogged)),
    Effect.withSpan("AgentPool.closeEntry", { attributes: { key: entry.key } })
  )

const lostLease = (entry: Entry, error: AgentError) =>
  Effect.sync(() => {
    entry.lost ??= error
  })

/** The store the conversation's SDK writes to: every append checks the lease in its transaction. */
const fencedStore = (
  pool: Pool,
  lease: AgentRegistry.Lease,
  entry: () => Entry | undefined
): SessionStore.SessionStore => ({
  ...pool.store,
  append: (key, entries) =>
    pool.registry.withLease(lease, pool.store.append(key, entries)).pipe(
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

/** The conversation's lease, waiting (until `deadline`) while another pool process holds it. */
const claim = (
  pool: Pool,
  key: string,
  cwd: string,
  deadline: number
): Effect.Effect<AgentRegistry.Lease, AgentError> =>
  Effect.gen(function*() {
    const { acquireTimeout, leaseTtl, owner } = pool.settings
    while (true) {
      const lease = yield* pool.registry.claim(key, { owner, cwd, ttl: leaseTtl })
      if (Option.isSome(lease)) return lease.value
      if ((yield* Clock.currentTimeMillis) >= deadline) {
        const held = yield* pool.registry.get(key)
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

/** Keeps the lease while warm; a lease that cannot be renewed closes the conversation. */
const keepLease = (pool: Pool, entry: Entry) => {
  const every = Duration.millis(Duration.toMillis(pool.settings.leaseTtl) / 3)
  return pool.registry.renew(entry.lease).pipe(
    Effect.repeat(Schedule.spaced(every)),
    Effect.delay(every),
    // evicted from outside: closing the entry's scope interrupts this very fiber
    Effect.catchAll((error) =>
      lostLease(entry, error).pipe(
        Effect.zipRight(Effect.forkIn(Effect.interruptible(evict(pool, entry)), pool.poolScope))
      )
    ),
    // a pool used inside an uninterruptible region must still be able to stop this loop
    Effect.interruptible,
    Effect.forkIn(entry.scope)
  )
}

/** A warm conversation: its lease, then its session (resumed from the registry's record). */
const create = (pool: Pool, key: string, cwd: string, deadline: number): Effect.Effect<Entry, AgentError> =>
  Effect.gen(function*() {
    const lease = yield* claim(pool, key, cwd, deadline)
    const scope = yield* Scope.make()
    let entry: Entry | undefined
    const built = yield* Effect.gen(function*() {
      const sdkStore = yield* SessionStore.toSdkWithRuntime(fencedStore(pool, lease, () => entry))
      const conversation = lease.conversation
      const session = yield* AgentSession.make({
        ...pool.settings.options.session,
        cwd: conversation.cwd,
        resume: conversation.sessionId,
        ...(conversation.turns > 0 ? { usage: conversation.usage } : {}),
        sessionStore: sdkStore,
        onTurnComplete: (turn) => recordTurn(pool, key, turn)
      }).pipe(Scope.extend(scope))
      entry = { key, lease, session, scope, inUse: 0, lastUsed: Date.now(), lost: undefined }
      yield* keepLease(pool, entry)
      return entry
    }).pipe(Effect.exit)
    if (Exit.isFailure(built)) {
      yield* Scope.close(scope, Exit.void)
      yield* pool.registry.release(lease).pipe(Effect.ignoreLogged)
      return yield* Effect.failCause(built.cause)
    }
    return built.value
  }).pipe(Effect.withSpan("AgentPool.create", { attributes: { key } }))

const recordTurn = (pool: Pool, key: string, turn: AgentSession.Turn): Effect.Effect<void> =>
  Effect.gen(function*() {
    const entry = pool.entries.get(key)
    if (entry === undefined) return
    const recorded = yield* Effect.either(
      pool.registry.record(entry.lease, { sessionId: turn.sessionId, usage: turn.conversation, status: "warm" })
    )
    if (recorded._tag === "Left") return yield* lostLease(entry, recorded.left)
    const onTurnComplete = pool.settings.options.onTurnComplete
    if (entry.lost === undefined && onTurnComplete !== undefined) {
      yield* Effect.suspend(() => onTurnComplete(key, turn)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("acx agent pool: onTurnComplete failed", cause))
      )
    }
  })

/** Takes an entry out of the pool (if still there) and closes it. */
const evict = (pool: Pool, entry: Entry): Effect.Effect<void> =>
  pool.lock.withPermits(1)(Effect.sync(() => {
    const present = pool.entries.get(entry.key) === entry
    if (present) pool.entries.delete(entry.key)
    return present
  })).pipe(
    Effect.flatMap((present) => (present ? closeEntry(pool, entry).pipe(Effect.zipRight(signal(pool))) : Effect.void))
  )

const leaveQueue = (pool: Pool, ticket: object) => {
  const index = pool.queue.indexOf(ticket)
  if (index !== -1) pool.queue.splice(index, 1)
  return index === 0
}

// The least recently used idle entry, when every slot is taken and this send is first in line.
const victimFor = (pool: Pool, first: boolean): Entry | undefined => {
  let victim: Entry | undefined
  if (!first || pool.entries.size + pool.creating.size < pool.settings.maxWarm) return undefined
  for (const entry of pool.entries.values()) {
    if (entry.inUse === 0 && (victim === undefined || entry.lastUsed < victim.lastUsed)) victim = entry
  }
  return victim
}

/** One look (under the lock) at what a send for `key` can do now. */
const attempt = (pool: Pool, key: string, ticket: object): Effect.Effect<Attempt> =>
  Effect.gen(function*() {
    const ready = pool.entries.get(key)
    if (ready !== undefined) {
      ready.inUse += 1
      ready.lastUsed = Date.now()
      leaveQueue(pool, ticket)
      return { _tag: "Ready", entry: ready } as const
    }
    const pending = pool.creating.get(key)
    if (pending !== undefined) return { _tag: "Await", created: pending } as const
    const first = pool.queue.length === 0 || pool.queue[0] === ticket
    const full = pool.entries.size + pool.creating.size >= pool.settings.maxWarm
    const victim = victimFor(pool, first)
    if (!first || (full && victim === undefined)) {
      if (!pool.queue.includes(ticket)) pool.queue.push(ticket)
      return { _tag: "Wait", changed: yield* Ref.get(pool.changed) } as const
    }
    if (victim !== undefined) pool.entries.delete(victim.key)
    leaveQueue(pool, ticket)
    const created = yield* Deferred.make<Entry, AgentError>()
    pool.creating.set(key, created)
    return { _tag: "Create", created, victim } as const
  })

type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** Waits for a slot to come free until `deadline`: false when it did not in time. */
const waitForSlot = (
  changed: Deferred.Deferred<void>,
  deadline: number,
  restore: Restore
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const left = deadline - (yield* Clock.currentTimeMillis)
    return left > 0 &&
      Option.isSome(yield* restore(Deferred.await(changed).pipe(Effect.timeoutOption(Duration.millis(left)))))
  })

/** Makes the entry of a `Create` attempt, hands it to the sends awaiting it, and counts its creator's use. */
const createEntry = (
  pool: Pool,
  next: Extract<Attempt, { readonly _tag: "Create" }>,
  key: string,
  cwd: string,
  deadline: number,
  restore: Restore
): Effect.Effect<Entry, AgentError> =>
  Effect.gen(function*() {
    // the victim's process ends before the new one starts: never maxWarm + 1 processes
    if (next.victim !== undefined) yield* closeEntry(pool, next.victim)
    const made = yield* Effect.exit(restore(create(pool, key, cwd, deadline)))
    yield* pool.lock.withPermits(1)(Effect.sync(() => {
      pool.creating.delete(key)
      if (Exit.isSuccess(made)) {
        // in use by its creator from the start: no waiter may take it for a victim
        made.value.inUse = 1
        made.value.lastUsed = Date.now()
        pool.entries.set(key, made.value)
      }
    }))
    yield* Deferred.done(next.created, made)
    yield* signal(pool)
    return yield* made
  })

/**
 * Waits for (or makes) the conversation's entry and counts one use of it. Run uninterruptibly
 * with `restore` around the waits, so an interrupted caller never leaves a use counted.
 */
const acquire = (pool: Pool, key: string, cwd: string, restore: Restore): Effect.Effect<Entry, AgentError> => {
  const ticket = {}
  const { acquireTimeout, maxWarm } = pool.settings
  return Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(acquireTimeout)
    while (true) {
      const next = yield* pool.lock.withPermits(1)(attempt(pool, key, ticket))
      switch (next._tag) {
        case "Ready":
          return next.entry
        case "Await":
          yield* restore(Effect.either(Deferred.await(next.created)))
          continue
        case "Wait": {
          if (yield* waitForSlot(next.changed, deadline, restore)) continue
          return yield* new AgentError({
            reason: "Timeout",
            description: `every one of the ${maxWarm} warm conversations is busy (waited ${
              Duration.format(acquireTimeout)
            } for a slot)`
          })
        }
        case "Create":
          return yield* createEntry(pool, next, key, cwd, deadline, restore)
      }
    }
  }).pipe(
    // a send that stops waiting (timeout, interruption) leaves the queue; the next one looks again
    Effect.ensuring(
      pool.lock.withPermits(1)(Effect.sync(() => leaveQueue(pool, ticket))).pipe(
        Effect.flatMap((wasFirst) => (wasFirst ? signal(pool) : Effect.void))
      )
    )
  )
}

const releaseUse = (pool: Pool, entry: Entry) =>
  pool.lock.withPermits(1)(Effect.sync(() => {
    entry.inUse -= 1
    entry.lastUsed = Date.now()
  })).pipe(
    Effect.zipRight(signal(pool)),
    // a conversation whose lease was lost stops here
    Effect.zipRight(Effect.suspend(() => entry.lost === undefined ? Effect.void : evict(pool, entry)))
  )

// a turn cut short because the lease was lost (the session closed under it) says so
const lostOr = (entry: Entry, error: AgentError): AgentError => entry.lost ?? error

/** One use of the conversation's entry for the current scope. */
const use = (pool: Pool, key: string, cwd: string | undefined): Effect.Effect<Entry, AgentError, Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    acquire(pool, key, cwd === undefined ? pool.settings.defaultCwd : path.resolve(cwd), restore).pipe(
      Effect.tap((entry) => Effect.addFinalizer(() => releaseUse(pool, entry)))
    )
  )

const send = (pool: Pool): AgentPool["send"] => (key, prompt, sendOptions) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const entry = yield* use(pool, key, sendOptions?.cwd)
    const events = yield* entry.session.submit(prompt)
    const leaseCheck = Effect.suspend(() => (entry.lost === undefined ? Effect.void : Effect.fail(entry.lost)))
    return Stream.concat(events, Stream.drain(Stream.fromEffect(leaseCheck))).pipe(
      Stream.catchAll((error) => Stream.fail(lostOr(entry, error)))
    )
  })).pipe(Stream.withSpan("AgentPool.send", { attributes: { key } }))

const ask = (pool: Pool): AgentPool["ask"] => (key, prompt, askOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const entry = yield* use(pool, key, askOptions?.cwd)
    const turn = yield* entry.session.ask(prompt).pipe(Effect.mapError((error) => lostOr(entry, error)))
    if (entry.lost !== undefined) return yield* entry.lost
    return turn
  })).pipe(Effect.withSpan("AgentPool.ask", { attributes: { key } }))

/** Takes out (under the lock) the entries that `pick` chooses, and closes them: how many it closed. */
const closeAll = (pool: Pool, pick: (entry: Entry) => boolean): Effect.Effect<number> =>
  Effect.gen(function*() {
    const picked = yield* pool.lock.withPermits(1)(Effect.sync(() => {
      const found = [...pool.entries.values()].filter(pick)
      for (const entry of found) pool.entries.delete(entry.key)
      return found
    }))
    yield* Effect.forEach(picked, (entry) => closeEntry(pool, entry), { discard: true, concurrency: "unbounded" })
    return picked.length
  })

// idle conversations are closed after idleTimeout
const sweepIdle = (pool: Pool) => {
  const idleMillis = Duration.toMillis(pool.settings.idleTimeout)
  const sweep = Effect.suspend(() => {
    const now = Date.now()
    return closeAll(pool, (entry) => entry.inUse === 0 && now - entry.lastUsed >= idleMillis).pipe(
      Effect.flatMap((closed) => (closed > 0 ? signal(pool) : Effect.void))
    )
  })
  const every = Duration.millis(Math.max(10, Math.min(idleMillis / 2, 5_000)))
  return Effect.forkIn(Effect.interruptible(Effect.repeat(sweep, Schedule.spaced(every))), pool.poolScope)
}

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
    const pool: Pool = {
      settings: settingsOf(options),
      registry: yield* AgentRegistry.AgentRegistry,
      store: yield* SessionStore.SessionStore,
      poolScope: yield* Effect.scope,
      lock: yield* Effect.makeSemaphore(1),
      entries: new Map(),
      creating: new Map(),
      changed: yield* Ref.make(yield* Deferred.make<void>()),
      queue: []
    }
    yield* sweepIdle(pool)
    yield* Effect.addFinalizer(() => closeAll(pool, () => true))
    return {
      send: send(pool),
      ask: ask(pool),
      interrupt: (key) =>
        Effect.suspend(() => {
          const entry = pool.entries.get(key)
          return entry === undefined ? Effect.void : entry.session.interrupt
        }),
      close: (key) =>
        Effect.suspend(() => {
          const entry = pool.entries.get(key)
          return entry === undefined ? Effect.void : evict(pool, entry)
        }),
      warm: Effect.sync(() => [...pool.entries.keys()]),
      conversation: pool.registry.get,
      conversations: pool.registry.list,
      owner: pool.settings.owner
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
