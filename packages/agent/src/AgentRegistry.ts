/**
 * Where a pool keeps its conversations, in SQLite or Postgres through `@effect/sql` (by default
 * the same database as the session store): the app's key → the SDK session id, the
 * conversation's cwd (a resume must use it: the SDK loads a session under the project key of its
 * cwd), status, usage totals, timestamps — and one lease per conversation.
 *
 * A lease names its owner (a pool process), expires (`lease_expires_at`, on the database's clock)
 * and carries a fencing token (`fence`, raised by every claim). Only the holder of a live lease
 * with the current fence may record a turn or append to the transcript ({@link withLease} runs
 * the append in a transaction that first checks the lease, locking its row on Postgres): an
 * owner paused past its lease — whose conversation another process has since claimed — finds
 * its fence stale when it wakes, and writes nothing.
 *
 * @since 0.1.0
 */
import * as AgentUsage from "@acx/convert/AgentUsage"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AgentError } from "./AgentError.js"
import { describe } from "./internal/describe.js"

/**
 * What a conversation is doing: no process (`idle`), a warm process between turns (`warm`), a
 * turn running (`busy`).
 *
 * @since 0.1.0
 * @category models
 */
export type ConversationStatus = "idle" | "warm" | "busy"

/**
 * A conversation as the registry holds it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Conversation {
  readonly key: string
  readonly sessionId: string | undefined
  readonly cwd: string
  readonly status: ConversationStatus
  readonly turns: number
  readonly costUsd: number
  readonly usage: AgentUsage.ConversationUsage
  readonly owner: string | undefined
  /** Epoch ms on the database's clock. */
  readonly leaseExpiresAt: number | undefined
  readonly fence: number
  readonly createdAt: number
  readonly updatedAt: number
}

/**
 * A claimed conversation: the holder's name and fencing token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Lease {
  readonly key: string
  readonly owner: string
  readonly fence: number
  readonly ttl: Duration.Duration
  /** The conversation as claimed (its session id, cwd and usage, to resume it). */
  readonly conversation: Conversation
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentRegistry {
  readonly get: (key: string) => Effect.Effect<Option.Option<Conversation>, AgentError>
  readonly list: Effect.Effect<ReadonlyArray<Conversation>, AgentError>
  /**
   * Claims the conversation (created with `cwd` if new) for `owner`: succeeds when nobody holds a
   * live lease (or `owner` does); `None` when another owner's lease is live.
   */
  readonly claim: (
    key: string,
    options: { readonly owner: string; readonly cwd: string; readonly ttl: Duration.DurationInput }
  ) => Effect.Effect<Option.Option<Lease>, AgentError>
  /** Extends a live lease; fails with `LeaseLost` when it expired or was taken. */
  readonly renew: (lease: Lease) => Effect.Effect<void, AgentError>
  /** Records a turn (session id, usage, status) under the lease; `LeaseLost` when it is not live. */
  readonly record: (
    lease: Lease,
    update: {
      readonly sessionId: string | undefined
      readonly usage: AgentUsage.ConversationUsage
      readonly status: ConversationStatus
    }
  ) => Effect.Effect<void, AgentError>
  /** Gives the conversation up (status `idle`); a lease no longer held is left alone. */
  readonly release: (lease: Lease) => Effect.Effect<void, AgentError>
  /**
   * Runs `effect` in a transaction that first checks the lease is live and current (locking its
   * row on Postgres, so no claim interleaves): `LeaseLost` otherwise, and nothing of `effect` runs.
   */
  readonly withLease: <A, E, R>(lease: Lease, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | AgentError, R>
  /** Forgets a conversation (its transcript stays in the store). */
  readonly remove: (key: string) => Effect.Effect<void, AgentError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const AgentRegistry: Context.Tag<AgentRegistry, AgentRegistry> = Context.GenericTag<AgentRegistry>(
  "@acx/agent/AgentRegistry"
)

const TABLE = "acx_agent_conversations"

interface Row {
  readonly key: string
  readonly session_id: string | null
  readonly cwd: string
  readonly status: string
  readonly turns: number | string
  readonly cost_usd: number | string
  readonly usage: string
  readonly owner: string | null
  readonly lease_expires_at: number | string | null
  readonly fence: number | string
  readonly created_at: number | string
  readonly updated_at: number | string
}

const parseUsage = (text: string): AgentUsage.ConversationUsage => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null
      ? { ...AgentUsage.empty, ...(value as Partial<AgentUsage.ConversationUsage>), pending: [] }
      : AgentUsage.empty
  } catch {
    return AgentUsage.empty
  }
}

const statusOf = (status: string): ConversationStatus => status === "warm" || status === "busy" ? status : "idle"

const fromRow = (row: Row): Conversation => ({
  key: row.key,
  sessionId: row.session_id ?? undefined,
  cwd: row.cwd,
  status: statusOf(row.status),
  turns: Number(row.turns),
  costUsd: Number(row.cost_usd),
  usage: parseUsage(row.usage),
  owner: row.owner ?? undefined,
  leaseExpiresAt: row.lease_expires_at === null ? undefined : Number(row.lease_expires_at),
  fence: Number(row.fence),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at)
})

const registryError = (operation: string) => (error: SqlError | AgentError): AgentError =>
  error._tag === "AgentError"
    ? error
    : new AgentError({
      reason: "Registry",
      description: `registry ${operation}: ${describe(error.cause ?? error)}`,
      cause: error
    })

const leaseLost = (lease: Lease, why: string) =>
  new AgentError({
    reason: "LeaseLost",
    description: `conversation ${lease.key}: ${why}`,
    ...(lease.conversation.sessionId === undefined ? {} : { sessionId: lease.conversation.sessionId })
  })

/**
 * Where the registry's table lives: on Postgres, `schema` when given (it must exist: the session
 * store on the same database creates it), else the connection's search path.
 *
 * @since 0.1.0
 * @category models
 */
export interface MakeOptions {
  readonly schema?: string | undefined
}

const millis = (ttl: Duration.DurationInput) => Math.max(1, Math.round(Duration.toMillis(ttl)))

// The registry's table, created if missing; concurrent CREATE TABLE IF NOT EXISTS can collide on
// Postgres: serialised there by an advisory lock.
const createTable = (sql: SqlClient.SqlClient, qualified: string, isPg: boolean): Effect.Effect<void, AgentError> => {
  const table = sql(qualified)
  const create = sql`CREATE TABLE IF NOT EXISTS ${table} (
    key TEXT PRIMARY KEY,
    session_id TEXT NULL,
    cwd TEXT NOT NULL,
    status TEXT NOT NULL,
    turns BIGINT NOT NULL DEFAULT 0,
    cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
    usage TEXT NOT NULL,
    owner TEXT NULL,
    lease_expires_at BIGINT NULL,
    fence BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`
  return (isPg
    ? sql.withTransaction(sql`SELECT pg_advisory_xact_lock(hashtext(${qualified}))`.pipe(Effect.zipRight(create)))
    : create).pipe(Effect.asVoid, Effect.mapError(registryError("create table")))
}

/**
 * Builds the registry on the `SqlClient` in context (SQLite or Postgres), creating its table.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = (options: MakeOptions = {}): Effect.Effect<AgentRegistry, AgentError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const qualified = options.schema === undefined ? TABLE : `${options.schema}.${TABLE}`
    const table = sql(qualified)
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    // the database's clock, so owners on machines with skewed clocks agree on expiry
    const now = sql.literal(
      isPg
        ? "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        : "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
    )
    yield* createTable(sql, qualified, isPg)

    const get = (key: string) =>
      sql<Row>`SELECT * FROM ${table} WHERE key = ${key}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
        Effect.mapError(registryError("get")),
        Effect.withSpan("AgentRegistry.get", { attributes: { key } })
      )

    const claim: AgentRegistry["claim"] = (key, options) =>
      Effect.gen(function*() {
        const ttl = millis(options.ttl)
        yield* sql`INSERT INTO ${table} (key, session_id, cwd, status, usage, fence, created_at, updated_at)
        VALUES (${key}, NULL, ${options.cwd}, 'idle', ${JSON.stringify(AgentUsage.empty)}, 0, ${now}, ${now})
        ON CONFLICT (key) DO NOTHING`
        const rows = yield* sql<Row>`UPDATE ${table}
        SET owner = ${options.owner}, lease_expires_at = ${now} + ${ttl}, fence = fence + 1, status = 'warm',
          updated_at = ${now}
        WHERE key = ${key} AND (owner IS NULL OR owner = ${options.owner} OR lease_expires_at < ${now})
        RETURNING *`
        return Option.map(Option.fromNullable(rows[0]), (row): Lease => {
          const conversation = fromRow(row)
          return { key, owner: options.owner, fence: conversation.fence, ttl: Duration.millis(ttl), conversation }
        })
      }).pipe(
        sql.withTransaction,
        Effect.mapError(registryError("claim")),
        Effect.withSpan("AgentRegistry.claim", { attributes: { key, owner: options.owner } })
      )

    const renew: AgentRegistry["renew"] = (lease) =>
      sql<{ readonly key: string }>`UPDATE ${table} SET lease_expires_at = ${now} + ${millis(lease.ttl)}
      WHERE key = ${lease.key} AND owner = ${lease.owner} AND fence = ${lease.fence} AND lease_expires_at > ${now}
      RETURNING key`.pipe(
        Effect.mapError(registryError("renew")),
        Effect.flatMap((rows) =>
          rows.length === 1 ? Effect.void : Effect.fail(leaseLost(lease, "the lease expired or was taken"))
        ),
        Effect.withSpan("AgentRegistry.renew", { attributes: { key: lease.key } })
      )

    const record: AgentRegistry["record"] = (lease, update) =>
      sql<{ readonly key: string }>`UPDATE ${table}
      SET session_id = COALESCE(${update.sessionId ?? null}, session_id), usage = ${
        JSON.stringify({ ...update.usage, pending: [] })
      },
        turns = ${update.usage.turns}, cost_usd = ${update.usage.costUsd}, status = ${update.status},
        lease_expires_at = ${now} + ${millis(lease.ttl)}, updated_at = ${now}
      WHERE key = ${lease.key} AND owner = ${lease.owner} AND fence = ${lease.fence} AND lease_expires_at > ${now}
      RETURNING key`.pipe(
        Effect.mapError(registryError("record")),
        Effect.flatMap((rows) =>
          rows.length === 1
            ? Effect.void
            : Effect.fail(leaseLost(lease, "the lease expired or was taken: turn not recorded"))
        ),
        Effect.withSpan("AgentRegistry.record", { attributes: { key: lease.key } })
      )

    const release: AgentRegistry["release"] = (lease) =>
      sql`UPDATE ${table} SET owner = NULL, lease_expires_at = NULL, status = 'idle', updated_at = ${now}
      WHERE key = ${lease.key} AND owner = ${lease.owner} AND fence = ${lease.fence}`.pipe(
        Effect.asVoid,
        Effect.mapError(registryError("release")),
        Effect.withSpan("AgentRegistry.release", { attributes: { key: lease.key } })
      )

    const guard = (lease: Lease) =>
      sql<{ readonly live: number | string | boolean }>`SELECT
        CASE WHEN owner = ${lease.owner} AND fence = ${lease.fence} AND lease_expires_at > ${now} THEN 1 ELSE 0 END
        AS live
      FROM ${table} WHERE key = ${lease.key}${sql.literal(isPg ? " FOR UPDATE" : "")}`.pipe(
        Effect.mapError(registryError("check lease")),
        Effect.flatMap((rows) =>
          rows.length === 1 && Number(rows[0]!.live) === 1
            ? Effect.void
            : Effect.fail(leaseLost(lease, "the lease expired or was taken: nothing written"))
        )
      )

    const withLease: AgentRegistry["withLease"] = (lease, effect) =>
      sql.withTransaction(Effect.zipRight(guard(lease), effect)).pipe(
        Effect.catchIf(
          (error): error is SqlError => error instanceof SqlError,
          (error) => Effect.fail(registryError("transaction")(error))
        )
      )

    return {
      get,
      list: sql<Row>`SELECT * FROM ${table} ORDER BY updated_at DESC`.pipe(
        Effect.map((rows) => rows.map(fromRow)),
        Effect.mapError(registryError("list"))
      ),
      claim,
      renew,
      record,
      release,
      withLease,
      remove: (key: string) =>
        sql`DELETE FROM ${table} WHERE key = ${key}`.pipe(Effect.asVoid, Effect.mapError(registryError("remove")))
    }
  }).pipe(Effect.withSpan("AgentRegistry.make", { attributes: { schema: options.schema } }))

/**
 * Builds the registry on the `SqlClient` in context (SQLite or Postgres), creating its table.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<AgentRegistry, AgentError, SqlClient.SqlClient> = makeWith()

/**
 * The registry on the `SqlClient` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<AgentRegistry, AgentError, SqlClient.SqlClient> = Layer.effect(AgentRegistry, make)
