/**
 * Curation with undo: forgetting observations (and summaries) softly — a row gets a
 * `forgotten_at` time and every reader leaves it out (search, entries by id, timelines, the
 * SessionStart context, the MCP tools, the status counts) — and restoring them. Nothing is
 * deleted, so a restore gives back exactly what was there; `MemoryAdmin.forget` is the hard
 * delete.
 *
 * Each call is one transaction that takes the write lock first, and returns the ids it changed
 * (an id already in the asked state, or unknown, is not in the answer): the undo of a forget is
 * a restore of what it returned.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { MemoryError } from "./MemoryError.js"
import { formatId, parseId, toMatchExpression } from "./MemorySearch.js"
import { writeTransaction } from "./MemoryStore.js"

/**
 * Which observations to forget: every condition given must hold (at least one is given).
 *
 * @since 0.1.0
 * @category models
 */
export interface CurationFilter {
  /** Only this project (the absolute directory Claude Code ran in). */
  readonly project?: string | undefined
  /** Only this Claude Code session. */
  readonly session?: string | undefined
  /** Only observations matching these words (full-text, every word, as `MemorySearch.search`). */
  readonly query?: string | undefined
  /** Only observations of this type (decision, bugfix, …). */
  readonly type?: string | undefined
  /** Only observations written before this time (epoch ms). */
  readonly before?: number | undefined
}

/**
 * What a forget names: entries by id (`O12`, `S3`; a bare number is an observation) or the
 * observations a filter selects.
 *
 * @since 0.1.0
 * @category models
 */
export type ForgetSelection =
  | { readonly ids: ReadonlyArray<string> }
  | { readonly filter: CurationFilter }

/**
 * At most this many ids in one call (a filter has no such bound).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_IDS = 10_000

const databaseError = (what: string) => (cause: SqlError | MemoryError) =>
  cause instanceof MemoryError
    ? cause
    : new MemoryError({ reason: "Database", description: `${what}: ${cause.message.split("\n")[0]}`, cause })

const invalid = (description: string) => new MemoryError({ reason: "InvalidArgument", description })

/** The ids by table, or why they cannot be used. */
const parseIds = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (ids.length === 0) return yield* invalid("no id to change")
    if (ids.length > MAX_IDS) return yield* invalid(`more than ${MAX_IDS} ids in one call`)
    const observations: Array<number> = []
    const summaries: Array<number> = []
    for (const text of ids) {
      const parsed = parseId(text)
      if (parsed === undefined || parsed.kind === "prompt") {
        return yield* invalid(`"${text}" is not an observation or summary id (O12, S3)`)
      }
      ;(parsed.kind === "observation" ? observations : summaries).push(parsed.id)
    }
    return { observations, summaries }
  })

const hasCondition = (filter: CurationFilter): boolean => Object.values(filter).some((value) => value !== undefined)

/**
 * Forgets entries softly, in one transaction; returns the ids forgotten (`O12`, `S3`), in id
 * order. `InvalidArgument` for an empty selection, an id that is not one, a filter with no
 * condition or with a query of no word; nothing is changed then.
 *
 * @since 0.1.0
 * @category curation
 */
export const forget = Effect.fn("MemoryCuration.forget")(function*(
  selection: ForgetSelection,
  now: number = Date.now()
) {
  const sql = yield* SqlClient.SqlClient
  if ("ids" in selection) {
    const { observations, summaries } = yield* parseIds(selection.ids)
    return yield* writeTransaction(Effect.gen(function*() {
      const o = observations.length === 0 ? [] : yield* sql<{ id: number }>`
        UPDATE memory_observations SET forgotten_at = ${now}
        WHERE forgotten_at IS NULL AND ${sql.in("id", observations)} RETURNING id`
      const s = summaries.length === 0 ? [] : yield* sql<{ id: number }>`
        UPDATE memory_summaries SET forgotten_at = ${now}
        WHERE forgotten_at IS NULL AND ${sql.in("id", summaries)} RETURNING id`
      return [...ids("observation", o), ...ids("summary", s)]
    }))
  }
  const filter = selection.filter
  if (!hasCondition(filter)) {
    return yield* invalid("say what to forget: a project, a session, words, a type or a time")
  }
  const match = filter.query === undefined ? undefined : toMatchExpression(filter.query)
  if (filter.query !== undefined && match === undefined) {
    return yield* invalid(`nothing to search for in "${filter.query}"`)
  }
  const where = sql.and([
    sql`forgotten_at IS NULL`,
    ...(filter.project === undefined ? [] : [sql`project = ${filter.project}`]),
    ...(filter.session === undefined ? [] : [sql`session_id = ${filter.session}`]),
    ...(filter.type === undefined ? [] : [sql`type = ${filter.type}`]),
    ...(filter.before === undefined ? [] : [sql`created_at < ${filter.before}`]),
    ...(match === undefined
      ? []
      : [sql`id IN (SELECT rowid FROM memory_observations_fts WHERE memory_observations_fts MATCH ${match})`])
  ])
  const rows = yield* writeTransaction(
    sql<{ id: number }>`UPDATE memory_observations SET forgotten_at = ${now} WHERE ${where} RETURNING id`
  )
  return ids("observation", rows)
}, Effect.mapError(databaseError("forgetting")))

const ids = (kind: "observation" | "summary", rows: ReadonlyArray<{ readonly id: number }>): Array<string> =>
  rows.map((row) => row.id).sort((a, b) => a - b).map((id) => formatId(kind, id))

/**
 * Restores forgotten entries (the undo of {@link forget}), in one transaction; returns the ids
 * restored (`O12`, `S3`), in id order.
 *
 * @since 0.1.0
 * @category curation
 */
export const restore = Effect.fn("MemoryCuration.restore")(function*(entryIds: ReadonlyArray<string>) {
  const sql = yield* SqlClient.SqlClient
  const { observations, summaries } = yield* parseIds(entryIds)
  return yield* writeTransaction(Effect.gen(function*() {
    const o = observations.length === 0 ? [] : yield* sql<{ id: number }>`
      UPDATE memory_observations SET forgotten_at = NULL
      WHERE forgotten_at IS NOT NULL AND ${sql.in("id", observations)} RETURNING id`
    const s = summaries.length === 0 ? [] : yield* sql<{ id: number }>`
      UPDATE memory_summaries SET forgotten_at = NULL
      WHERE forgotten_at IS NOT NULL AND ${sql.in("id", summaries)} RETURNING id`
    return [...ids("observation", o), ...ids("summary", s)]
  }))
}, Effect.mapError(databaseError("restoring")))
