/**
 * A search ranks only the newest `StoreCatalog.SEARCH_CANDIDATES` matches that pass its filters
 * (SQLite and a real Postgres, `ACX_PG_URL`): a word with more matches than that returns the best
 * of the newest, ranked; an old match beyond them is not ranked however relevant; a rare word and
 * a filter that leaves few matches still find the oldest texts.
 */
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-search-"))
const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_search_test_${process.pid}_${randomUUID().slice(0, 8)}`

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).finally(() => client.end())
})

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

const backends: ReadonlyArray<{
  readonly name: string
  readonly open: () => Effect.Effect<Store, SessionStore.SessionStoreError, Scope.Scope>
}> = [
  { name: "SQLite", open: () => SqliteSessionStore.make({ filename: path.join(root, "search.sqlite") }) },
  {
    name: "Postgres",
    open: () => PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema: SCHEMA })
  }
]

const user = (content: string) => ({
  type: "user",
  uuid: randomUUID(),
  timestamp: "2026-11-01T10:00:00.000Z",
  message: { role: "user", content }
})

// One text per entry, oldest first: `count` fillers that hold "alpha" once in many words.
const fillers = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => user(`${tag} filler ${i} alpha ${"lorem ipsum dolor ".repeat(6)}`))

for (const backend of backends) {
  describe(`StoreCatalog search bounds on ${backend.name}`, () => {
    it.scoped(
      "a word with more matches than SEARCH_CANDIDATES: the best of the newest, ranked",
      () =>
        Effect.gen(function*() {
          const store = yield* backend.open()
          const K = StoreCatalog.SEARCH_CANDIDATES
          const elsewhere = { projectKey: "old-project", sessionId: randomUUID() }
          const main = { projectKey: "busy-project", sessionId: randomUUID() }
          // text ids follow derivation (each read derives what was appended since, key by key):
          // a refresh after each append makes them follow the appends here
          const append = (key: typeof main, entries: ReadonlyArray<SessionStore.SessionStoreEntry>) =>
            Effect.zipRight(store.append(key, entries), store.catalog.refresh())
          // oldest: the best "alpha" texts of all (beyond the newest K), a rare word, another project
          yield* append(main, [user("alpha alpha alpha alpha oldest best quokka")])
          yield* append(elsewhere, [user("alpha in the old project")])
          // then more than K plain matches, two good ones among the newest, and the newest match
          yield* append(main, fillers(K + 200, "bulk"))
          yield* append(main, [user("alpha alpha alpha newer good one")])
          yield* append(main, fillers(50, "late"))
          yield* append(main, [user("alpha alpha newest match")])

          const hits = yield* store.catalog.search("alpha", { limit: 20 })
          expect(hits).toHaveLength(20)
          const snippets = hits.map((hit) => hit.snippet)
          // ranked within the candidates: the two repeated-word texts first, best first
          expect(snippets[0]).toContain("newer good one")
          expect(snippets[1]).toContain("newest match")
          expect(snippets.slice(2).filter((snippet) => !snippet.includes("filler"))).toEqual([])
          // bounded: the best match of all is older than the newest K, so it is not ranked
          expect(snippets.some((snippet) => snippet.includes("oldest best"))).toBe(false)
          // a rare word ranks all of its matches, however old
          expect((yield* store.catalog.search("quokka")).map((hit) => hit.snippet)).toEqual([
            "alpha alpha alpha alpha oldest best **quokka**"
          ])
          // filters choose the candidates: the other project's one old match is found
          const old = yield* store.catalog.search("alpha", { projectKey: elsewhere.projectKey })
          expect(old.map((hit) => hit.sessionId)).toEqual([elsewhere.sessionId])
          // a limit above K ranks that many
          const many = yield* store.catalog.search("alpha", { limit: StoreCatalog.MAX_LIMIT })
          expect(many).toHaveLength(StoreCatalog.MAX_LIMIT)
          expect(many[0]?.snippet).toContain("newer good one")
        }),
      { timeout: 120_000 }
    )
  })
}
