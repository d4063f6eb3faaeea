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
import * as Either from "effect/Either"
import * as Equal from "effect/Equal"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
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
import * as PoolSlots from "./internal/poolSlots.js"

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

/**
 * A conversation's incarnation, the key of the pool's `RcMap`: the conversation's key and its
 * generation (a closed conversation's successor is a new entry, so a late release of the old one
 * never touches it). Equal by those alone, it carries what the send that opens it gives.
 */
class Incarnation implements Equal.Equal {
  constructor(
    readonly id: string,
    readonly key: string,
    readonly cwd: string,
    readonly deadline: number,
    readonly opener: object
  ) {}
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof Incarnation && that.id === this.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

/** A warm conversation: one Claude Code process, its lease, and the slot it holds. */
interface Entry {
  readonly ref: Incarnation
  readonly lease: AgentRegistry.Lease
  readonly session: AgentSession.AgentSession
  readonly slot: PoolSlots.Slot
  /** Done when its scope has closed: its process ended, its lease released. */
  readonly closed: Deferred.Deferred<void>
  lastUsed: number
  lost: AgentError | undefined
}

/** An open that failed, with the send that started it: the sends that joined it try again. */
class OpenFailed {
  constructor(readonly opener: object, readonly error: AgentError) {}
}

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
 * A running pool's state. The conversations live in an `RcMap`: a send holds its incarnation
 * for its scope, the last release starts the idle clock (`idleTimeout`), and the entry's scope
 * closes the process, releases the lease and frees the slot. Admission (`slots`: `maxWarm` slots,
 * first come first served) sits on top; under its lock change the generations, the warm entries
 * and the sends holding each incarnation (`users`), which says which warm conversation is idle
 * and may be closed for a newcomer.
 */
interface Pool {
  readonly settings: Settings
  readonly registry: AgentRegistry.AgentRegistry
  readonly store: SessionStore.SessionStore
  readonly poolScope: Scope.Scope
  readonly conversations: RcMap.RcMap<Incarnation, Entry, OpenFailed>
  /** Admission: slots, the queue, and the lock everything below changes under. */
  readonly slots: PoolSlots.PoolSlots
  /** The current generation of each conversation key. */
  readonly generations: Map<string, number>
  /** The open (warm) entry of each conversation key. */
  readonly warm: Map<string, Entry>
  /** How many sends hold each incarnation (by id). */
  readonly users: Map<string, number>
}

/**
 * Retires an incarnation (under the lock): the next send to its key opens a new one. True when
 * it was the key's warm entry.
 */
const retire = (pool: Pool, ref: Incarnation): boolean => {
  const generation = pool.generations.get(ref.key) ?? 0
  if (ref.id === `${ref.key}#${generation}`) pool.generations.set(ref.key, generation + 1)
  const warm = pool.warm.get(ref.key)?.ref === ref
  if (warm) pool.warm.delete(ref.key)
  return warm
}

const lostLease = (entry: Entry | undefined, error: AgentError) =>
  Effect.sync(() => {
    if (entry !== undefined) entry.lost ??= error
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
        (error) =>
          lostLease(entry(), error).pipe(
            Effect.zipRight(Effect.fail(
              new SessionStore.SessionStoreError({
                reason: "Storage",
                operation: "append",
                description: error.description,
                cause: error
              })
            ))
          )
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
    Effect.forkScoped
  )
}

const recordTurn = (pool: Pool, entry: Entry, turn: AgentSession.Turn): Effect.Effect<void> =>
  Effect.gen(function*() {
    const recorded = yield* Effect.either(
      pool.registry.record(entry.lease, { sessionId: turn.sessionId, usage: turn.conversation, status: "warm" })
    )
    if (recorded._tag === "Left") return yield* lostLease(entry, recorded.left)
    const onTurnComplete = pool.settings.options.onTurnComplete
    if (entry.lost === undefined && onTurnComplete !== undefined) {
      yield* Effect.suspend(() => onTurnComplete(entry.ref.key, turn)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("acx agent pool: onTurnComplete failed", cause))
      )
    }
  })

/**
 * Retires a warm entry (if still the key's) and closes it: at once when no send holds it,
 * otherwise its process ends now and its scope closes with the last release.
 */
const evict = (pool: Pool, entry: Entry): Effect.Effect<void> =>
  PoolSlots.locked(pool.slots, () => retire(pool, entry.ref)).pipe(
    Effect.flatMap((warm) =>
      warm ? RcMap.invalidate(pool.conversations, entry.ref).pipe(Effect.zipRight(entry.session.close)) : Effect.void
    ),
    Effect.withSpan("AgentPool.evict", { attributes: { key: entry.ref.key } })
  )

/**
 * Under the lock, every slot taken: the least recently used warm conversation that no send
 * holds, retired; its close ends when its process has ended.
 */
const idleVictim = (pool: Pool): PoolSlots.Victim | undefined => {
  let victim: Entry | undefined
  for (const entry of pool.warm.values()) {
    if ((pool.users.get(entry.ref.id) ?? 0) > 0) continue
    if (victim === undefined || entry.lastUsed < victim.lastUsed) victim = entry
  }
  if (victim === undefined) return undefined
  retire(pool, victim.ref)
  const { closed, ref, slot } = victim
  return { slot, close: RcMap.invalidate(pool.conversations, ref).pipe(Effect.zipRight(Deferred.await(closed))) }
}

/**
 * The `RcMap`'s lookup: a slot, the conversation's lease, then its session (resumed from the
 * registry's record), all closed with the entry's scope.
 */
const open = (pool: Pool, ref: Incarnation): Effect.Effect<Entry, OpenFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(closed, undefined))
    const slot = yield* PoolSlots.take(pool.slots, ref.opener, ref.deadline, () => idleVictim(pool))
    const lease = yield* Effect.acquireRelease(
      claim(pool, ref.key, ref.cwd, ref.deadline),
      (lease) => pool.registry.release(lease).pipe(Effect.ignoreLogged)
    )
    // the session's store and turn hook see the entry once it is made
    const made: { entry?: Entry } = {}
    const conversation = lease.conversation
    const session = yield* AgentSession.make({
      ...pool.settings.options.session,
      cwd: conversation.cwd,
      resume: conversation.sessionId,
      ...(conversation.turns > 0 ? { usage: conversation.usage } : {}),
      sessionStore: yield* SessionStore.toSdkWithRuntime(fencedStore(pool, lease, () => made.entry)),
      onTurnComplete: (turn) => made.entry === undefined ? Effect.void : recordTurn(pool, made.entry, turn)
    })
    const entry: Entry = { ref, lease, session, slot, closed, lastUsed: Date.now(), lost: undefined }
    made.entry = entry
    yield* Effect.addFinalizer(() => PoolSlots.locked(pool.slots, () => retire(pool, ref)))
    yield* PoolSlots.locked(pool.slots, () => pool.warm.set(ref.key, entry))
    yield* keepLease(pool, entry)
    return entry
  }).pipe(
    Effect.mapError((error) => new OpenFailed(ref.opener, error)),
    Effect.withSpan("AgentPool.create", { attributes: { key: ref.key } })
  )

/** Counts (under the lock) a send's hold on the key's current incarnation. */
const enter = (pool: Pool, key: string, cwd: string, deadline: number, ticket: object): Incarnation => {
  const ref = new Incarnation(`${key}#${pool.generations.get(key) ?? 0}`, key, cwd, deadline, ticket)
  pool.users.set(ref.id, (pool.users.get(ref.id) ?? 0) + 1)
  return ref
}

/**
 * Ends a send's hold. An open nobody waits for any more (its sends were interrupted) stops and
 * leaves the queue; a conversation whose lease was lost stops here.
 */
const leave = (pool: Pool, ref: Incarnation, entry: Entry | undefined): Effect.Effect<void> =>
  PoolSlots.locked(pool.slots, () => {
    const users = (pool.users.get(ref.id) ?? 1) - 1
    if (users > 0) pool.users.set(ref.id, users)
    else pool.users.delete(ref.id)
    if (entry !== undefined) entry.lastUsed = Date.now()
    return users === 0 && entry === undefined && pool.warm.get(ref.key)?.ref !== ref && (retire(pool, ref), true)
  }).pipe(
    Effect.tap((abandoned) => (abandoned ? RcMap.invalidate(pool.conversations, ref) : Effect.void)),
    Effect.zipRight(PoolSlots.signal(pool.slots)),
    Effect.zipRight(Effect.suspend(() => entry?.lost === undefined ? Effect.void : evict(pool, entry)))
  )

/**
 * One hold of the conversation's entry for the current scope (an `RcMap` lease). A failed open
 * is dropped from the map at once, so the next send tries again; a send that joined another
 * send's failed open tries again itself (until its own deadline), as if it had come later.
 */
const use = (pool: Pool, key: string, cwd: string | undefined): Effect.Effect<Entry, AgentError, Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const ticket = {}
      const resolved = cwd === undefined ? pool.settings.defaultCwd : path.resolve(cwd)
      const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(pool.settings.acquireTimeout)
      const outer = yield* Effect.scope
      while (true) {
        const ref = yield* PoolSlots.locked(pool.slots, () => enter(pool, key, resolved, deadline, ticket))
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        let entry: Entry | undefined
        yield* Scope.addFinalizer(scope, Effect.suspend(() => leave(pool, ref, entry)))
        const got = yield* restore(RcMap.get(pool.conversations, ref)).pipe(Scope.extend(scope), Effect.either)
        if (Either.isRight(got)) {
          entry = got.right
          entry.lastUsed = Date.now()
          return entry
        }
        yield* RcMap.invalidate(pool.conversations, ref)
        yield* PoolSlots.locked(pool.slots, () => retire(pool, ref))
        yield* Scope.close(scope, Exit.void)
        if (got.left.opener === ticket) return yield* got.left.error
      }
    })
  )

// a turn cut short because the lease was lost (the session closed under it) says so
const lostOr = (entry: Entry, error: AgentError): AgentError => entry.lost ?? error

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
    const settings = settingsOf(options)
    const pool: Pool = {
      settings,
      registry: yield* AgentRegistry.AgentRegistry,
      store: yield* SessionStore.SessionStore,
      poolScope: yield* Effect.scope,
      // closed with the pool's scope: every entry's scope closes (its process, lease and slot)
      conversations: yield* RcMap.make({
        lookup: (ref: Incarnation) => open(pool, ref),
        idleTimeToLive: settings.idleTimeout
      }),
      slots: yield* PoolSlots.make(settings.maxWarm, settings.acquireTimeout),
      generations: new Map(),
      warm: new Map(),
      users: new Map()
    }
    // runs before the map's own close (one entry after another): the processes end together
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...pool.warm.values()], (entry) => entry.session.close, {
        discard: true,
        concurrency: "unbounded"
      })
    )
    return {
      send: send(pool),
      ask: ask(pool),
      interrupt: (key) => Effect.suspend(() => pool.warm.get(key)?.session.interrupt ?? Effect.void),
      close: (key) =>
        Effect.suspend(() => {
          const entry = pool.warm.get(key)
          return entry === undefined ? Effect.void : evict(pool, entry)
        }),
      warm: Effect.sync(() => [...pool.warm.keys()]),
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
