/**
 * Stored rows that are not entries: text that is not JSON, or JSON that is not an object with a
 * string `type` (written by something other than the adapter, or by a bug). `load` skips such a
 * row and reports it instead of failing the whole load, like the SDK's own reference adapters
 * (which skip malformed rows silently): one bad row must not make a session unresumable.
 *
 * A skipped row is reported twice: as an `Effect.logWarning` (annotated with the key and the row
 * id), and to the store's `onCorruptEntry` option when one is given, which is how a caller of
 * the SDK-facing Promise store observes it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as SessionStore from "./SessionStore.js"

/**
 * A stored row `load` skipped.
 *
 * @since 0.1.0
 * @category models
 */
export interface CorruptEntry {
  /** The key being loaded. */
  readonly key: SessionStore.SessionKey
  /** The row's id in the adapter's entries table, as the database reports it. */
  readonly rowId: string
  /** Why the row is not an entry. */
  readonly reason: string
  /** The start of the stored text (at most {@link PREVIEW_LENGTH} characters). */
  readonly preview: string
}

/**
 * Called once per skipped row, after the row was skipped; what it throws is logged and ignored.
 *
 * @since 0.1.0
 * @category models
 */
export type OnCorruptEntry = (corrupt: CorruptEntry) => void

/**
 * How much of a corrupt row's text a report carries.
 *
 * @since 0.1.0
 * @category constants
 */
export const PREVIEW_LENGTH = 200

/**
 * Decodes one stored row: the entry, or why the text is not one (not JSON; JSON but not an
 * object with a string `type`). Pure and total.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (text: string): Either.Either<SessionStore.SessionStoreEntry, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return Either.left(`not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Either.left(`not a JSON object: ${value === null ? "null" : Array.isArray(value) ? "array" : typeof value}`)
  }
  return typeof (value as { readonly type?: unknown }).type === "string"
    ? Either.right(value as SessionStore.SessionStoreEntry)
    : Either.left("no string \"type\"")
}

/**
 * Decodes a key's stored rows in order, skipping and reporting (see {@link report}) every row
 * that is not an entry.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeRows = (
  key: SessionStore.SessionKey,
  rows: ReadonlyArray<{ readonly id: string | number | bigint; readonly entry: string }>,
  onCorruptEntry: OnCorruptEntry | undefined
): Effect.Effect<Array<SessionStore.SessionStoreEntry>> =>
  Effect.suspend(() => {
    const entries: Array<SessionStore.SessionStoreEntry> = []
    const corrupt: Array<CorruptEntry> = []
    for (const row of rows) {
      const decoded = decode(row.entry)
      if (Either.isRight(decoded)) entries.push(decoded.right)
      else {
        corrupt.push({
          key,
          rowId: String(row.id),
          reason: decoded.left,
          preview: row.entry.slice(0, PREVIEW_LENGTH)
        })
      }
    }
    return corrupt.length === 0
      ? Effect.succeed(entries)
      : Effect.as(Effect.forEach(corrupt, report(onCorruptEntry), { discard: true }), entries)
  })

/**
 * Reports one skipped row: a warning log annotated with the key and row id, then the caller's
 * `onCorruptEntry`.
 *
 * @since 0.1.0
 * @category reporting
 */
export const report = (onCorruptEntry: OnCorruptEntry | undefined) => (corrupt: CorruptEntry): Effect.Effect<void> =>
  Effect.logWarning(`SessionStore load skipped corrupt row ${corrupt.rowId}: ${corrupt.reason}`).pipe(
    Effect.annotateLogs({
      projectKey: corrupt.key.projectKey,
      sessionId: corrupt.key.sessionId,
      subpath: corrupt.key.subpath ?? "",
      rowId: corrupt.rowId
    }),
    Effect.zipRight(
      onCorruptEntry === undefined ? Effect.void : Effect.try(() => onCorruptEntry(corrupt)).pipe(
        Effect.catchAll((error) => Effect.logWarning("SessionStore onCorruptEntry threw", error.error))
      )
    )
  )
