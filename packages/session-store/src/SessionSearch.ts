/**
 * Searching every conversation of a store, as people and models are shown it: the catalog's
 * ranked hits (`StoreCatalog.search`) with every secret masked by the session page's mask
 * (`@acx/convert/Redact.redactSecrets`), and one result shape for all who show them — `acx
 * search --json` prints a {@link SearchResult}, the MCP tool `search_sessions` answers one.
 *
 * The index keeps text as written (`StoreCatalog`); masking happens here, on the read: each
 * matched field is masked whole before its snippet is cut, so a secret the snippet's window
 * would cut in half (`…ant-api03-…` without its `sk-`) is never half shown, and a change of the
 * mask needs no re-index.
 *
 * @since 0.3.0
 */
import * as Redact from "@acx/convert/Redact"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SearchQuery from "./SearchQuery.js"
import type * as SessionStore from "./SessionStore.js"
import * as StoreCatalog from "./StoreCatalog.js"

/**
 * One hit as shown: the catalog's hit (`StoreCatalog.SearchHit`: project, session, subpath,
 * the entry uuid that is the turn to open, role, time, snippet, score), its strings masked, and
 * its time as ISO 8601 for readers that are not programs.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Hit = Schema.Struct({
  ...StoreCatalog.SearchHit.fields,
  /** `timeMs` as ISO 8601 (UTC), when the entry has a time. */
  time: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "SessionSearchHit" })

/**
 * @since 0.3.0
 * @category models
 */
export type Hit = typeof Hit.Type

/**
 * What one search answers: the query as given, the store searched (without its password), and
 * the hits, best first.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SearchResult = Schema.Struct({
  query: Schema.String,
  target: Schema.String,
  hits: Schema.Array(Hit)
}).annotations({ identifier: "SessionSearchResult" })

/**
 * @since 0.3.0
 * @category models
 */
export type SearchResult = typeof SearchResult.Type

/**
 * The mask every shown text goes through: the session page's (`SecretMask.maskText`).
 *
 * @since 0.3.0
 * @category masking
 */
export const mask: (text: string) => string = Redact.redactSecrets

/**
 * A catalog hit as shown: its strings masked (the snippet already is, see {@link search}) and its
 * time in ISO 8601.
 *
 * @since 0.3.0
 * @category masking
 */
export const shownHit = (hit: StoreCatalog.SearchHit): Hit => {
  const { projectKey, sessionId, subpath, uuid, ...rest } = hit
  return {
    ...rest,
    projectKey: mask(projectKey),
    sessionId: mask(sessionId),
    subpath: mask(subpath),
    ...(uuid === undefined ? {} : { uuid: mask(uuid) }),
    ...(isoOf(hit.timeMs) === undefined ? {} : { time: isoOf(hit.timeMs)! })
  }
}

// a time a Date can hold (toISOString throws beyond ±8.64e15 ms)
const isoOf = (ms: number | undefined): string | undefined => {
  const date = ms === undefined ? undefined : new Date(ms)
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/**
 * The options of {@link search}: the catalog's, without the mask (it is always the page's).
 *
 * @since 0.3.0
 * @category models
 */
export type SearchOptions = Omit<StoreCatalog.SearchOptions, "mask">

/**
 * Ranked, masked hits of a query over a catalog (the derived data is advanced first, by the
 * read itself: a search right after a sync sees every entry it stored).
 *
 * @since 0.3.0
 * @category searching
 */
export const search = (
  catalog: StoreCatalog.StoreCatalog,
  query: string,
  options: SearchOptions = {}
): Effect.Effect<ReadonlyArray<Hit>, SessionStore.SessionStoreError | SearchQuery.SearchQueryError> =>
  Effect.map(catalog.search(query, { ...options, mask }), (hits) => hits.map(shownHit))
