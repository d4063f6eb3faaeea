/**
 * Finding a session by what a user typed: its id, or a prefix of it. One rule for the CLI
 * (`acx show 1f3a…`) and the web page (`/api/session/1f3a…`):
 *
 * - the query is a session id or its prefix: hex digits and dashes, starting with a digit, 4 to
 *   36 characters. Anything else (`../x`, a slash, a dot, too short) is `Malformed` before any id
 *   is looked at, so a query can never name a path.
 * - case does not matter. Claude Code names sessions by lowercase UUID, and a hex digit is the
 *   same digit in either case: a UUID pasted in capitals finds its session. Ids and query are
 *   compared lowercased.
 * - an id equal to the query wins, even when it is also the prefix of another id; else the one
 *   id that starts with the query. Several matches are `Ambiguous` (with the matches, so a
 *   message can name them); none is `NotFound`.
 *
 * Pure and total: the caller lists the ids (from a directory, an index, a store).
 *
 * @since 0.1.0
 */

/**
 * The shortest prefix looked up: shorter ones match too many sessions to mean one.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_PREFIX_LENGTH = 4

/**
 * The longest query: a UUID's 36 characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LENGTH = 36

const QUERY = /^[0-9a-f][0-9a-f-]*$/i

/**
 * What a lookup found.
 *
 * @since 0.1.0
 * @category models
 */
export type LookupResult<A> =
  | { readonly _tag: "Found"; readonly value: A }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "Ambiguous"; readonly matches: ReadonlyArray<A> }
  | { readonly _tag: "Malformed" }

/**
 * Whether a query is (a prefix of) a session id at all: hex digits and dashes, starting with a
 * digit, {@link MIN_PREFIX_LENGTH} to {@link MAX_LENGTH} characters.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isWellFormed = (query: string): boolean =>
  query.length >= MIN_PREFIX_LENGTH && query.length <= MAX_LENGTH && QUERY.test(query)

/**
 * The one value whose id is `query`, else the one whose id starts with it (case-insensitively).
 *
 * @since 0.1.0
 * @category lookup
 */
export const lookup = <A>(
  values: Iterable<A>,
  idOf: (value: A) => string,
  query: string
): LookupResult<A> => {
  if (!isWellFormed(query)) return { _tag: "Malformed" }
  const wanted = query.toLowerCase()
  const exact: Array<A> = []
  const prefixed: Array<A> = []
  for (const value of values) {
    const id = idOf(value).toLowerCase()
    if (id === wanted) exact.push(value)
    else if (id.startsWith(wanted)) prefixed.push(value)
  }
  const matches = exact.length > 0 ? exact : prefixed
  if (matches.length === 1) return { _tag: "Found", value: matches[0]! }
  return matches.length === 0 ? { _tag: "NotFound" } : { _tag: "Ambiguous", matches }
}

/**
 * {@link lookup} over plain ids.
 *
 * @since 0.1.0
 * @category lookup
 */
export const lookupId = (ids: Iterable<string>, query: string): LookupResult<string> => lookup(ids, (id) => id, query)
