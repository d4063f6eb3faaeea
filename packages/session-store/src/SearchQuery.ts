/**
 * The query language of a store's full-text search, and its safe translation to each engine:
 * words (all must appear), `"phrases"` (the words in that order), and `-word` / `-"phrase"`
 * exclusions. Words are what both engines index: runs of letters and digits (FTS5's `unicode61`
 * tokenizer; the Postgres index splits its text the same way), case-insensitive. Punctuation
 * inside a term splits it into a phrase (`foo.bar` finds "foo bar", "foo-bar", "foo.bar"), as the
 * engines themselves would.
 *
 * The translation never passes user text through as syntax: each word is quoted for FTS5 and is
 * a bare letters-and-digits lexeme for `to_tsquery`, so no input can make an engine reject the
 * expression or reach SQL (the expression is a bound parameter too). Queries that cannot mean
 * anything fail with a {@link SearchQueryError} naming the problem. Pure and total.
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * A query that cannot be searched: `Empty` (no word at all), `OnlyExclusions` (nothing to match,
 * only things to leave out), `TooLong` (more than {@link MAX_TERMS} terms), or `Rejected` (the
 * engine refused it; its message is in `description`).
 *
 * @since 0.2.0
 * @category errors
 */
export class SearchQueryError extends Schema.TaggedError<SearchQueryError>(
  "@acx/session-store/SearchQuery/SearchQueryError"
)("SearchQueryError", {
  reason: Schema.Literal("Empty", "OnlyExclusions", "TooLong", "Rejected"),
  query: Schema.String,
  description: Schema.String
}) {
  /**
   * @since 0.2.0
   */
  override get message(): string {
    return `cannot search for ${JSON.stringify(this.query)}: ${this.description}`
  }
}

/**
 * One term: the words it stands for (one for a word, several for a phrase) and whether results
 * must not contain it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Term {
  readonly words: ReadonlyArray<string>
  readonly exclude: boolean
}

/**
 * A parsed query: at least one included term.
 *
 * @since 0.2.0
 * @category models
 */
export interface Query {
  readonly terms: ReadonlyArray<Term>
}

/**
 * The most terms a query may have.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_TERMS = 32

const WORD = /[\p{L}\p{N}]+/gu

/**
 * The words of a text as the indexes split it: runs of letters and digits, lower-cased.
 *
 * @since 0.2.0
 * @category parsing
 */
export const wordsOf = (text: string): Array<string> => (text.match(WORD) ?? []).map((word) => word.toLowerCase())

// `-"a b"`, `"a b"` (an unclosed quote runs to the end), `-word`, `word`
const TOKEN = /(-?)"([^"]*)"?|(-?)([^\s"]+)/gu

/**
 * Parses a query (see the module doc).
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (query: string): Either.Either<Query, SearchQueryError> => {
  const terms: Array<Term> = []
  for (const match of query.matchAll(TOKEN)) {
    const quoted = match[2]
    const exclude = (quoted !== undefined ? match[1] : match[3]) === "-"
    const words = wordsOf(quoted ?? match[4] ?? "")
    if (words.length > 0) terms.push({ words, exclude })
  }
  const fail = (reason: SearchQueryError["reason"], description: string) =>
    Either.left(new SearchQueryError({ reason, query, description }))
  if (terms.length === 0) return fail("Empty", "it has no word to search for (letters or digits)")
  if (terms.length > MAX_TERMS) {
    return fail("TooLong", `it has ${terms.length} terms, at most ${MAX_TERMS} are searched`)
  }
  if (terms.every((term) => term.exclude)) {
    return fail("OnlyExclusions", "it only excludes words; add a word or \"phrase\" to search for")
  }
  return Either.right({ terms })
}

/**
 * The query's included terms only: what a hit is ranked by (an exclusion only filters).
 *
 * @since 0.2.0
 * @category parsing
 */
export const included = (query: Query): Query => ({ terms: query.terms.filter((term) => !term.exclude) })

const fts5Term = (term: Term): string => `"${term.words.join(" ")}"`

/**
 * The query as an FTS5 `MATCH` expression: `("a" AND "b c") NOT ("d" OR "e")`. Every term is a
 * double-quoted string of letters, digits and spaces, so FTS5 reads it as a word or phrase,
 * never as an operator or column filter.
 *
 * @since 0.2.0
 * @category translation
 */
export const toFts5 = (query: Query): string => {
  const included = query.terms.filter((term) => !term.exclude).map(fts5Term)
  const excluded = query.terms.filter((term) => term.exclude).map(fts5Term)
  const positive = `(${included.join(" AND ")})`
  return excluded.length === 0 ? positive : `${positive} NOT (${excluded.join(" OR ")})`
}

const tsTerm = (term: Term): string => {
  const phrase = term.words.map((word) => `'${word}'`).join(" <-> ")
  const grouped = term.words.length > 1 ? `(${phrase})` : phrase
  return term.exclude ? `!${grouped}` : grouped
}

/**
 * The query as `to_tsquery('simple', …)` text: `'a' & ('b' <-> 'c') & !'d'`. Lexemes are
 * letters and digits only (quoted all the same), so `to_tsquery` cannot reject it.
 *
 * @since 0.2.0
 * @category translation
 */
export const toTsquery = (query: Query): string => query.terms.map(tsTerm).join(" & ")

// How words compare in a snippet: case and accents aside, as the indexes compare them.
const fold = (word: string): string => word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()

/**
 * How a snippet marks matches and how long it is.
 *
 * @since 0.2.0
 * @category models
 */
export interface SnippetOptions {
  /** Written before each matched word. */
  readonly open: string
  /** Written after each matched word. */
  readonly close: string
  /** Words shown (default 24). */
  readonly words?: number | undefined
}

/**
 * The part of `text` around its first match of the query's included words, each matched word
 * between `open` and `close`, `…` where text was left out. The same on every engine (it works
 * on the stored field, not the engine's own highlighter), and the delimiters are never parsed
 * by anything, so a caller may choose any. Total: a text without a match gives its start.
 *
 * @since 0.2.0
 * @category snippets
 */
export const snippet = (text: string, query: Query, options: SnippetOptions): string => {
  const wanted = new Set(query.terms.filter((term) => !term.exclude).flatMap((term) => term.words.map(fold)))
  const tokens = [...text.matchAll(WORD)]
  if (tokens.length === 0) return text.slice(0, 200)
  const size = Math.max(1, Math.floor(options.words ?? 24))
  const first = Math.max(0, tokens.findIndex((token) => wanted.has(fold(token[0]))))
  const from = Math.max(0, Math.min(first - Math.floor(size / 3), tokens.length - size))
  const to = Math.min(tokens.length, from + size)
  let out = from > 0 ? "…" : ""
  let at = from > 0 ? tokens[from]!.index! : 0
  for (let i = from; i < to; i++) {
    const token = tokens[i]!
    const start = token.index!
    const end = start + token[0].length
    out += text.slice(at, start)
    out += wanted.has(fold(token[0])) ? `${options.open}${token[0]}${options.close}` : token[0]
    at = end
  }
  return to < tokens.length ? `${out}…` : out + text.slice(at)
}
