/**
 * The memory page's requests decoded strictly (re-exported by `MemoryView`): the timeline's query
 * parameters and the curation bodies. Total: any input gives a value or one line saying why not.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * The most observations one page of the timeline holds.
 *
 * @since 0.1.0
 * @category requests
 */
export const MAX_LIMIT = 200

/**
 * The timeline's query, checked.
 *
 * @since 0.1.0
 * @category requests
 */
export interface ObservationsQuery {
  readonly project: string | undefined
  readonly q: string | undefined
  readonly type: string | undefined
  readonly limit: number
  /** Only observations older than this one (its row id): the next page. */
  readonly before: number | undefined
}

const nonEmpty = (value: string | null): string | undefined =>
  value === null || value.trim() === "" ? undefined : value.trim()

/**
 * Reads `project`, `q`, `type`, `limit` (1 to {@link MAX_LIMIT}, default 50) and `before` (an
 * observation id, `O12` or `12`); a message for a value that cannot be used.
 *
 * @since 0.1.0
 * @category requests
 */
export const observationsQuery = (params: URLSearchParams): Either.Either<ObservationsQuery, string> => {
  const limitText = nonEmpty(params.get("limit"))
  const limit = limitText === undefined ? 50 : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return Either.left(`limit must be a whole number from 1 to ${MAX_LIMIT}`)
  }
  const beforeText = nonEmpty(params.get("before"))
  const before = beforeText === undefined ? undefined : /^[oO]?(\d{1,15})$/.exec(beforeText)?.[1]
  if (beforeText !== undefined && before === undefined) return Either.left("before must be an observation id")
  return Either.right({
    project: nonEmpty(params.get("project")),
    q: nonEmpty(params.get("q")),
    type: nonEmpty(params.get("type")),
    limit,
    before: before === undefined ? undefined : Number(before)
  })
}

const Id = Schema.String.pipe(Schema.pattern(/^[OoSs]?\d{1,15}$/), Schema.maxLength(17))
const Ids = Schema.Array(Id).pipe(Schema.minItems(1), Schema.maxItems(10_000))
const Text = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096))

/**
 * `POST /api/memory/forget`: ids, or a filter with at least one condition.
 *
 * @since 0.1.0
 * @category requests
 */
export const ForgetBody = Schema.Union(
  Schema.Struct({ ids: Ids }),
  Schema.Struct({
    filter: Schema.Struct({
      project: Schema.optional(Text),
      session: Schema.optional(Text),
      query: Schema.optional(Text),
      type: Schema.optional(Text),
      before: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.nonNegative()))
    }).pipe(
      Schema.filter((filter) =>
        Object.values(filter).some((value) => value !== undefined) || "the filter needs at least one condition"
      )
    )
  })
)

/**
 * `POST /api/memory/restore`: the ids a forget returned.
 *
 * @since 0.1.0
 * @category requests
 */
export const RestoreBody = Schema.Struct({ ids: Ids })

/**
 * A request body decoded strictly (no unknown key), or the reason in one line.
 *
 * @since 0.1.0
 * @category requests
 */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, body: unknown): Either.Either<A, string> =>
  Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "first" })(body).pipe(
    Either.mapLeft((error) => ParseResult.TreeFormatter.formatErrorSync(error).split("\n").join(" "))
  )
