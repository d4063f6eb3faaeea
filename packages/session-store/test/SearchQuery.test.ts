/**
 * The query language and its translations (`SearchQuery`), property-tested: any text either
 * parses or fails with a typed reason; what parses runs on a real FTS5 table without an engine
 * error and selects exactly the documents the terms describe; snippets mark what matched.
 */
import * as SearchQuery from "@acx/session-store/SearchQuery"
import { afterAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import { randomUUID } from "node:crypto"
import pg from "pg"

// Words from a small vocabulary, so generated documents and queries share words.
const word = fc.constantFrom("beads", "sync", "credo", "Fix", "tests", "é", "naïve", "42", "x_y", "日本")
const query = fc.array(
  fc.record({ words: fc.array(word, { minLength: 1, maxLength: 2 }), exclude: fc.boolean() }),
  { minLength: 1, maxLength: 4 }
)
const queryText = (terms: ReadonlyArray<{ words: ReadonlyArray<string>; exclude: boolean }>) =>
  terms.map((t) => `${t.exclude ? "-" : ""}"${t.words.join(" ")}"`).join(" ")
const documents = fc.sample(fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(" ")), 60)

// Whether a document holds a term (its words in a row), accents aside: the rule both engines must follow.
const contains = (body: string, term: SearchQuery.Term) => {
  const plain = (w: string) => w.normalize("NFD").replace(/\p{M}/gu, "")
  const words = SearchQuery.wordsOf(body).map(plain)
  const wanted = term.words.map(plain)
  return words.some((_, at) => wanted.every((w, k) => words[at + k] === w))
}

const db = new Database(":memory:")
db.exec("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')")
const insert = db.prepare("INSERT INTO docs (rowid, body) VALUES (?, ?)")
const match = db.prepare("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rowid")

const noise = fc.constantFrom(
  " ",
  "  ",
  ".",
  "-",
  "\"",
  "*",
  ":",
  "(",
  ")",
  "^",
  "NEAR",
  "AND",
  "OR",
  "NOT",
  "'",
  ";",
  "\u0000"
)
const hostileText = fc.array(fc.oneof(word, noise, fc.string()), { maxLength: 12 }).map((parts) => parts.join(" "))

describe("SearchQuery", () => {
  it("parses words, phrases and exclusions", () => {
    const parsed = SearchQuery.parse("Beads \"sync  beads\" -credo -\"fix tests\" src/foo.ts")
    expect(Either.getOrThrow(parsed).terms).toEqual([
      { words: ["beads"], exclude: false },
      { words: ["sync", "beads"], exclude: false },
      { words: ["credo"], exclude: true },
      { words: ["fix", "tests"], exclude: true },
      { words: ["src", "foo", "ts"], exclude: false }
    ])
  })

  it("fails with a reason naming the problem", () => {
    const reason = (text: string) =>
      Either.match(SearchQuery.parse(text), { onLeft: (e) => e.reason, onRight: () => "ok" })
    expect(reason("")).toBe("Empty")
    expect(reason("-- \"\" ...")).toBe("Empty")
    expect(reason("-beads -\"sync it\"")).toBe("OnlyExclusions")
    expect(reason(Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "))).toBe("TooLong")
    const error = Either.flip(SearchQuery.parse("-beads")).pipe(Either.getOrThrow)
    expect(error.message).toContain("\"-beads\"")
  })

  it("any text: a typed error or an expression FTS5 runs", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const parsed = SearchQuery.parse(text)
        if (Either.isLeft(parsed)) {
          expect(["Empty", "OnlyExclusions", "TooLong"]).toContain(parsed.left.reason)
          return
        }
        expect(() => match.all(SearchQuery.toFts5(parsed.right))).not.toThrow()
        expect(SearchQuery.toTsquery(parsed.right)).toMatch(/^[\p{L}\p{N}'&!()<\->\s]+$/u)
      }),
      { numRuns: 500 }
    )
  })

  it("selects exactly the documents every included term is in and no excluded term is", () => {
    db.exec("DELETE FROM docs")
    documents.forEach((body, i) => insert.run(i + 1, body))
    fc.assert(
      fc.property(query, (terms) => {
        const text = terms.map((t) => `${t.exclude ? "-" : ""}"${t.words.join(" ")}"`).join(" ")
        const parsed = SearchQuery.parse(text)
        if (Either.isLeft(parsed)) return
        const expected = documents.flatMap((body, i) =>
          parsed.right.terms.every((term) => contains(body, term) !== term.exclude) ? [i + 1] : []
        )
        const rows = match.all(SearchQuery.toFts5(parsed.right)) as Array<{ rowid: number }>
        expect(rows.map((row) => row.rowid)).toEqual(expected)
      }),
      { numRuns: 300 }
    )
  })

  it("snippets mark every included word, whatever the delimiters", () => {
    const query = Either.getOrThrow(SearchQuery.parse("beads -credo"))
    const text = "one two three. Sync BEADS now; then more words follow here and there and beyond the window"
    expect(SearchQuery.snippet(text, query, { open: "<", close: ">", words: 4 })).toBe("…Sync <BEADS> now; then…")
    fc.assert(fc.property(fc.string(), fc.string(), fc.string(), (before, open, close) => {
      const out = SearchQuery.snippet(`${before} beads`, query, { open, close, words: 1000 })
      expect(out).toContain(`${open}beads${close}`)
    }))
  })
})

const PG_URL = process.env.ACX_PG_URL
describe.skipIf(PG_URL === undefined)("SearchQuery on Postgres", () => {
  const table = `acx_search_query_${randomUUID().replace(/-/g, "").slice(0, 12)}`
  const client = new pg.Client({ connectionString: PG_URL })
  afterAll(async () => {
    await client.query(`DROP TABLE IF EXISTS ${table}`)
    await client.end()
  })

  it("to_tsquery over the indexed words selects what the terms describe (accents kept apart)", async () => {
    await client.connect()
    await client.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, words TSVECTOR)`)
    for (const [i, body] of documents.entries()) {
      await client.query(`INSERT INTO ${table} VALUES ($1, to_tsvector('simple', $2))`, [
        i + 1,
        SearchQuery.wordsOf(body).join(" ")
      ])
    }
    // Postgres' `simple` keeps accents: compare words as written, lower-cased
    const exact = (body: string, term: SearchQuery.Term) => {
      const words = SearchQuery.wordsOf(body)
      return words.some((_, at) => term.words.every((w, k) => words[at + k] === w))
    }
    const samples = fc.sample(query, 150)
    for (const terms of samples) {
      const parsed = SearchQuery.parse(queryText(terms))
      if (Either.isLeft(parsed)) continue
      const expected = documents.flatMap((body, i) =>
        parsed.right.terms.every((term) => exact(body, term) !== term.exclude) ? [i + 1] : []
      )
      const { rows } = await client.query<{ id: number }>(
        `SELECT id FROM ${table} WHERE words @@ to_tsquery('simple', $1) ORDER BY id`,
        [SearchQuery.toTsquery(parsed.right)]
      )
      expect({ query: queryText(terms), ids: rows.map((row) => row.id) }).toEqual({
        query: queryText(terms),
        ids: expected
      })
    }
  })
})
