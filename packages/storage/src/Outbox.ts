/**
 * The durable outbox: ClaudeAgentStorage journals each converted message in a SQLite file
 * before delivery, and a background fiber delivers the journal to Acontext in order, removing
 * each entry once the API acknowledged it. An API outage only delays delivery; a crash or a
 * restart loses nothing — pending entries are delivered when the outbox starts again.
 *
 * Guarantees and limits:
 * - **Order**: entries are delivered one at a time in journal order (across sessions).
 * - **Exactly once** with acx's client (at least once with a duck-typed one; see `Delivery`):
 *   an entry is removed only after Acontext acknowledged it, and an entry whose answer was lost
 *   is not stored twice: after an ambiguous failure (a dropped connection, a timeout, a 5xx) the
 *   session's tail is read and an entry already there is not stored again. After a restart the
 *   first pending entry — the only one that can have been in flight when the process stopped
 *   (between the acknowledgement and the removal, or interrupted after `shutdownGracePeriod`)
 *   — is checked the same way before it is delivered, knowing the id of the session's newest
 *   message delivered from this journal (kept per session, written with each removal). The
 *   limit: a request still running on the server after the client gave up on it (a timeout)
 *   can land after the check. A normal
 *   shutdown lets the attempt in flight finish and starts no other: the rest stays journaled
 *   for the next start.
 * - **Transient failures** (transport, timeout, 408/429/5xx, after the client's own retries)
 *   are retried forever with a capped backoff: nothing is dropped during an outage.
 * - **Permanent failures** (e.g. 400, 401) mark the entry `failed` — kept in the journal,
 *   reported on `failures` and to the storage's error policy — and delivery moves on.
 * - **Durability**: SQLite in WAL mode with `synchronous=NORMAL` survives process crashes; use
 *   `synchronous: "FULL"` to also survive power loss, at the cost of one fsync per message.
 *
 * The SQLite driver, `@effect/sql-sqlite-node` (and through it `better-sqlite3`), is an optional
 * peer of `@acx/storage`, loaded when an outbox opens: without it, opening fails with
 * `OutboxError` reason `MissingDriver`, which names the package to install.
 *
 * @since 0.1.0
 */
import * as DriverImport from "@acx/environment/DriverImport"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { AcontextClient } from "./AcontextClient.js"
import { type Delivery, type DeliveryFailure, fromAcontextClient, type StoredId } from "./Delivery.js"
import { StorageError } from "./StorageError.js"

/**
 * One journaled message.
 *
 * @since 0.1.0
 * @category models
 */
export interface OutboxEntry {
  readonly sessionId: string
  readonly user: string | null
  readonly blob: unknown
  readonly meta: unknown
}

/**
 * An entry that could not be delivered (kept in the journal with status `failed`).
 *
 * @since 0.1.0
 * @category models
 */
export interface FailedEntry extends OutboxEntry {
  readonly id: number
  readonly attempts: number
  readonly lastError: string
}

/**
 * The outbox could not read or write its journal.
 *
 * @since 0.1.0
 * @category errors
 */
export class OutboxError extends Schema.TaggedError<OutboxError>("@acx/storage/Outbox/OutboxError")("OutboxError", {
  reason: Schema.Literal("Journal", "Open", "MissingDriver"),
  description: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `acx outbox ${this.reason} error: ${this.description}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Outbox {
  /** Journals an entry (durably) and wakes the delivery fiber. */
  readonly enqueue: (entry: OutboxEntry) => Effect.Effect<void, OutboxError>
  /** Entries waiting for delivery. */
  readonly pending: Effect.Effect<number>
  /** Waits until every entry journaled so far is delivered or failed. */
  readonly flush: Effect.Effect<void>
  /** Entries that failed permanently. */
  readonly failed: Effect.Effect<ReadonlyArray<FailedEntry>, OutboxError>
  /** Puts failed entries back in the queue (e.g. after fixing an API key). */
  readonly retryFailed: Effect.Effect<number, OutboxError>
  /** Permanent delivery failures, as they happen. */
  readonly failures: Stream.Stream<StorageError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const Outbox: Context.Tag<Outbox, Outbox> = Context.GenericTag<Outbox>("@acx/storage/Outbox")

/**
 * @since 0.1.0
 * @category models
 */
export interface OutboxOptions {
  /** The SQLite journal file (created if missing). */
  readonly filename: string
  /** Backoff between delivery attempts of an entry after a transient failure (default: 200 ms ×2, capped at 30 s). */
  readonly backoff?: Schedule.Schedule<unknown, DeliveryFailure> | undefined
  /** `"NORMAL"` (default, survives process crashes) or `"FULL"` (also power loss). */
  readonly synchronous?: "NORMAL" | "FULL" | undefined
  /**
   * On shutdown, how long the attempt in flight may take to finish before it is interrupted
   * (default 10 s; an interrupted attempt is retried on the next start).
   */
  readonly shutdownGracePeriod?: Duration.DurationInput | undefined
}

const defaultBackoff: Schedule.Schedule<unknown, DeliveryFailure> = Schedule.exponential("200 millis").pipe(
  Schedule.either(Schedule.spaced("30 seconds")),
  Schedule.jittered
)

interface Row {
  readonly id: number
  readonly sessionId: string
  readonly user: string | null
  readonly blob: string
  readonly meta: string | null
  readonly attempts: number
  readonly lastError: string | null
}

type SqliteClient = SqlClient.SqlClient

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const parseMeta = (meta: string | null): { readonly [key: string]: unknown } | null =>
  meta === null ? null : JSON.parse(meta) as { readonly [key: string]: unknown }

const journalError = (what: string) => <A>(effect: Effect.Effect<A, SqlError>) =>
  Effect.mapError(effect, (cause) => new OutboxError({ reason: "Journal", description: what, cause }))

const openError = (filename: string) => (cause: unknown) =>
  new OutboxError({ reason: "Open", description: `cannot open journal ${filename}`, cause })

/** Loads the optional SQLite driver and opens the journal file (closed with the scope). */
const openJournal = (options: OutboxOptions): Effect.Effect<SqliteClient, OutboxError, Scope.Scope> =>
  Effect.gen(function*() {
    const Sqlite = yield* Effect.tryPromise({
      try: () => DriverImport.load(() => import("@effect/sql-sqlite-node/SqliteClient")),
      catch: (cause) =>
        new OutboxError({
          reason: "MissingDriver",
          description:
            "the outbox needs the SQLite driver @effect/sql-sqlite-node: npm install @effect/sql-sqlite-node",
          cause
        })
    })
    const sql = yield* Layer.build(Sqlite.layer({ filename: options.filename })).pipe(
      Effect.map((context): SqliteClient => Context.get(context, Sqlite.SqliteClient)),
      Effect.mapError(openError(options.filename))
    )
    yield* createTables(sql, options.synchronous ?? "NORMAL").pipe(Effect.mapError(openError(options.filename)))
    return sql
  })

/** The journal's settings and tables. */
const createTables = (sql: SqliteClient, synchronous: "NORMAL" | "FULL") =>
  Effect.all([
    sql`PRAGMA busy_timeout = 5000`,
    sql.unsafe(`PRAGMA synchronous = ${synchronous}`),
    sql`CREATE TABLE IF NOT EXISTS acx_outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      user TEXT,
      blob TEXT NOT NULL,
      meta TEXT,
      status TEXT NOT NULL DEFAULT 'pending',
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      created_at INTEGER NOT NULL
    )`,
    sql`CREATE INDEX IF NOT EXISTS acx_outbox_pending ON acx_outbox (status, id)`,
    // Per session, the id of the newest message delivered from this journal (written with the
    // removal of its entry): after a restart it tells the entry that was in flight from an
    // equal message stored just before it.
    sql`CREATE TABLE IF NOT EXISTS acx_outbox_position (
      session_id TEXT PRIMARY KEY,
      last_message_id TEXT NOT NULL
    )`
  ], { discard: true })

const countPending = (sql: SqliteClient) =>
  sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM acx_outbox WHERE status = 'pending'`
    .pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)), journalError("count"))

const nextPending = (sql: SqliteClient) =>
  sql<Row>`SELECT id, session_id AS "sessionId", user, blob, meta, attempts, last_error AS "lastError"
    FROM acx_outbox WHERE status = 'pending' ORDER BY id LIMIT 1`.pipe(
    Effect.map((rows) => rows[0]),
    journalError("read next entry")
  )

/**
 * Delivery is sequential, so only the first pending entry can have been in flight when the
 * previous process stopped (a crash, or a shutdown past its grace period): Acontext may hold it
 * already. Its session's tail is read before it is delivered again.
 */
const markInDoubtAfterRestart = (sql: SqliteClient, delivery: Delivery) =>
  Effect.gen(function*() {
    const inFlightBefore = yield* nextPending(sql)
    if (inFlightBefore === undefined) return
    const position = yield* sql<{ readonly id: string }>`SELECT last_message_id AS id FROM acx_outbox_position
      WHERE session_id = ${inFlightBefore.sessionId}`.pipe(journalError("read the session position"))
    yield* delivery.markInDoubt(inFlightBefore.sessionId, position[0]?.id)
  })

/** What the delivery fiber works with. */
interface Courier {
  readonly sql: SqliteClient
  readonly delivery: Delivery
  readonly backoff: Schedule.Schedule<unknown, DeliveryFailure>
  /** Sessions created (or found existing) by this process. */
  readonly ensured: Set<string>
  readonly failures: PubSub.PubSub<StorageError>
  /**
   * Shutdown is graceful: `stopping` is signalled, the attempt in flight finishes (so an
   * acknowledged entry is removed, not redelivered), no new attempt or backoff starts, and only
   * after `shutdownGracePeriod` is the delivery fiber interrupted.
   */
  readonly stopping: Deferred.Deferred<void>
  readonly wake: Queue.Queue<void>
  readonly refreshPending: Effect.Effect<void>
}

type Attempted =
  | { readonly _tag: "Delivered"; readonly id: StoredId }
  | { readonly _tag: "Failed"; readonly failure: DeliveryFailure }
  | { readonly _tag: "Stopped" }

/** One attempt: creates the entry's session the first time this process meets it, then stores. */
const deliverOnce = (courier: Courier, row: Row): Effect.Effect<StoredId, DeliveryFailure> =>
  Effect.gen(function*() {
    const blob: unknown = JSON.parse(row.blob)
    const meta = parseMeta(row.meta)
    if (!courier.ensured.has(row.sessionId)) {
      yield* courier.delivery.createSession(row.sessionId, row.user).pipe(
        Effect.catchIf((failure) => failure.conflict, () => Effect.void)
      )
      courier.ensured.add(row.sessionId)
    }
    return (yield* courier.delivery.storeMessage(row.sessionId, blob, meta)).value
  })

/** Attempts until delivered, failed permanently, out of backoff, or stopping. */
const deliverWithRetry = (courier: Courier, row: Row): Effect.Effect<Attempted> =>
  Effect.gen(function*() {
    const { sql, stopping } = courier
    const backoff = yield* Schedule.driver(courier.backoff)
    while (true) {
      const result = yield* Effect.either(deliverOnce(courier, row))
      if (result._tag === "Right") return { _tag: "Delivered", id: result.right } as const
      const failure = result.left
      if (!failure.transient) return { _tag: "Failed", failure } as const
      yield* sql`UPDATE acx_outbox SET attempts = attempts + ${failure.attempts}, last_error = ${
        describe(failure.error)
      } WHERE id = ${row.id}`.pipe(Effect.orDie)
      if (yield* Deferred.isDone(stopping)) return { _tag: "Stopped" } as const
      const waited = yield* Effect.raceFirst(
        backoff.next(failure).pipe(Effect.as("retry" as const), Effect.orElseSucceed(() => "exhausted" as const)),
        Deferred.await(stopping).pipe(Effect.as("stopped" as const))
      )
      if (waited === "stopped") return { _tag: "Stopped" } as const
      if (waited === "exhausted") return { _tag: "Failed", failure } as const
    }
  })

/** A delivered entry leaves the journal, and its message becomes its session's position. */
const removeDelivered = (sql: SqliteClient, row: Row, id: StoredId) =>
  sql`DELETE FROM acx_outbox WHERE id = ${row.id}`.pipe(
    Effect.zipRight(
      id === null
        ? Effect.void
        : sql`INSERT OR REPLACE INTO acx_outbox_position (session_id, last_message_id)
            VALUES (${row.sessionId}, ${id})`
    ),
    sql.withTransaction,
    Effect.orDie
  )

/** A permanent failure: kept in the journal as failed, published and logged. */
const markFailed = (courier: Courier, row: Row, failure: DeliveryFailure) =>
  Effect.gen(function*() {
    const lastError = describe(failure.error)
    yield* courier.sql`UPDATE acx_outbox SET status = 'failed', attempts = attempts + ${failure.attempts},
      last_error = ${lastError} WHERE id = ${row.id}`.pipe(Effect.orDie)
    yield* PubSub.publish(
      courier.failures,
      new StorageError({
        reason: "Delivery",
        sessionId: row.sessionId,
        blob: JSON.parse(row.blob),
        meta: parseMeta(row.meta),
        attempts: row.attempts + failure.attempts,
        cause: failure.error
      })
    )
    yield* Effect.logWarning(`acx outbox: entry ${row.id} failed permanently: ${lastError}`).pipe(
      Effect.annotateLogs({ "acx.session_id": row.sessionId })
    )
  })

/** Delivers one entry; the bookkeeping after an answer (remove, or mark failed) runs uninterruptibly. */
const deliver = (courier: Courier, row: Row) =>
  Effect.uninterruptibleMask((restore) =>
    restore(deliverWithRetry(courier, row)).pipe(
      Effect.flatMap((attempted) => {
        switch (attempted._tag) {
          case "Delivered":
            return removeDelivered(courier.sql, row, attempted.id)
          case "Failed":
            return markFailed(courier, row, attempted.failure)
          case "Stopped":
            return Effect.void
        }
      }),
      Effect.zipRight(courier.refreshPending)
    )
  ).pipe(
    Effect.withSpan("Outbox.deliver", { attributes: { "acx.session_id": row.sessionId, "acx.entry": row.id } })
  )

/** The delivery fiber's loop: the oldest pending entry, else a wait for an enqueue or the stop. */
const deliveryLoop = (courier: Courier) =>
  Effect.gen(function*() {
    while (!(yield* Deferred.isDone(courier.stopping))) {
      const row = yield* Effect.orDie(nextPending(courier.sql))
      if (row === undefined) yield* Effect.raceFirst(Queue.take(courier.wake), Deferred.await(courier.stopping))
      else yield* deliver(courier, row)
    }
  })

/** Starts the delivery fiber; the scope's close stops it gracefully (see {@link Courier}). */
const startDelivery = (courier: Courier, gracePeriod: Duration.DurationInput | undefined) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDaemon(deliveryLoop(courier))
    yield* Effect.addFinalizer(() =>
      Deferred.succeed(courier.stopping, undefined).pipe(
        Effect.zipRight(Effect.timeout(Fiber.await(fiber), gracePeriod ?? "10 seconds")),
        Effect.ignore,
        Effect.zipRight(Fiber.interrupt(fiber))
      )
    )
  })

const enqueueEntry = (
  sql: SqliteClient,
  pendingCount: SubscriptionRef.SubscriptionRef<number>,
  wake: Queue.Queue<void>
) =>
(entry: OutboxEntry) =>
  sql`INSERT INTO acx_outbox (session_id, user, blob, meta, created_at) VALUES (${entry.sessionId}, ${entry.user}, ${
    JSON.stringify(entry.blob)
  }, ${entry.meta === null || entry.meta === undefined ? null : JSON.stringify(entry.meta)}, ${Date.now()})`.pipe(
    journalError("append entry"),
    Effect.zipRight(SubscriptionRef.update(pendingCount, (n) => n + 1)),
    Effect.zipRight(Queue.offer(wake, undefined)),
    Effect.asVoid,
    Effect.withSpan("Outbox.enqueue", { attributes: { "acx.session_id": entry.sessionId } })
  )

const failedEntries = (sql: SqliteClient) =>
  sql<Row>`SELECT id, session_id AS "sessionId", user, blob, meta, attempts, last_error AS "lastError"
    FROM acx_outbox WHERE status = 'failed' ORDER BY id`.pipe(
    journalError("read failed entries"),
    Effect.map((rows) =>
      rows.map((row): FailedEntry => ({
        id: row.id,
        sessionId: row.sessionId,
        user: row.user,
        blob: JSON.parse(row.blob),
        meta: parseMeta(row.meta),
        attempts: row.attempts,
        lastError: row.lastError ?? ""
      }))
    )
  )

const requeueFailed = (sql: SqliteClient) =>
  sql<{ readonly n: number }>`UPDATE acx_outbox SET status = 'pending' WHERE status = 'failed'
    RETURNING id AS n`.pipe(
    journalError("requeue failed entries"),
    Effect.map((rows) => rows.length)
  )

/**
 * Opens the journal and starts the delivery fiber (stopped when the scope closes; an entry
 * being delivered is finished first).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: OutboxOptions,
  delivery: Delivery
): Effect.Effect<Outbox, OutboxError, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* openJournal(options)
    const pendingCount = yield* SubscriptionRef.make(yield* countPending(sql))
    const refreshPending = Effect.flatMap(Effect.orDie(countPending(sql)), (n) => SubscriptionRef.set(pendingCount, n))
    const wake = yield* Queue.sliding<void>(1)
    const failures = yield* Effect.acquireRelease(PubSub.unbounded<StorageError>(), PubSub.shutdown)
    yield* markInDoubtAfterRestart(sql, delivery)
    yield* startDelivery({
      sql,
      delivery,
      backoff: options.backoff ?? defaultBackoff,
      ensured: new Set(),
      failures,
      stopping: yield* Deferred.make<void>(),
      wake,
      refreshPending
    }, options.shutdownGracePeriod)

    return Outbox.of({
      enqueue: enqueueEntry(sql, pendingCount, wake),
      pending: SubscriptionRef.get(pendingCount),
      flush: pendingCount.changes.pipe(Stream.takeUntil((n) => n === 0), Stream.runDrain),
      failed: failedEntries(sql),
      retryFailed: requeueFailed(sql).pipe(
        Effect.tap(() => Effect.zipRight(refreshPending, Queue.offer(wake, undefined)))
      ),
      failures: Stream.fromPubSub(failures)
    })
  })

/**
 * The outbox as a layer, delivering through acx's {@link AcontextClient}. Provide it next to
 * `ClaudeAgentStorage.layer` to make storage durable.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: OutboxOptions): Layer.Layer<Outbox, OutboxError, AcontextClient> =>
  Layer.scoped(Outbox, Effect.flatMap(AcontextClient, (client) => make(options, fromAcontextClient(client))))

/**
 * How long `flush` may wait by default in the Promise facade's `close()`.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_FLUSH_TIMEOUT: Duration.Duration = Duration.seconds(30)
