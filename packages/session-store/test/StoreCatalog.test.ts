/**
 * The derived data of the SQL stores (`SessionDerive`, `StoreCatalog`), on SQLite and on a real
 * Postgres (`ACX_PG_URL`): every fixture session of packages/fixtures appended in batches, then
 * its metadata equals `SessionMetadata` over the same transcript, its counts and usage equal
 * `StatsFold` (what `acx stats` folds) over the same files, and search finds known words,
 * phrases and exclusions; a store written before the derived tables is migrated in place.
 */
import * as Fixtures from "@acx/fixtures"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StatsFold from "@acx/convert/StatsFold"
import * as Pricing from "@acx/convert/Pricing"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SearchQuery from "@acx/session-store/SearchQuery"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-catalog-"))
const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_catalog_test_${process.pid}_${randomUUID().slice(0, 8)}`

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).finally(() => client.end())
})

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

interface Backend {
  readonly name: string
  readonly skip: boolean
  readonly open: (id: string) => Effect.Effect<Store, SessionStore.SessionStoreError, Scope.Scope>
}

const backends: ReadonlyArray<Backend> = [
  {
    name: "SQLite",
    skip: false,
    open: (id) => SqliteSessionStore.make({ filename: path.join(root, `${id}.sqlite`) })
  },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    open: (id) => PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema: `${SCHEMA}_${id}` })
  }
]

const entriesOf = (file: string): Array<SessionStore.SessionStoreEntry> =>
  Fixtures.readJsonLines(file).map((line) => line.value as SessionStore.SessionStoreEntry)

/** Every fixture session and subagent, appended in batches of `batch` entries. */
const appendFixtures = (store: SessionStore.SessionStore, batch: number) =>
  Effect.forEach(built.sessions, (session) =>
    Effect.gen(function*() {
      const files = [
        { key: { projectKey: session.projectKey, sessionId: session.sessionId }, file: session.file },
        ...session.subagents.map((agent) => ({
          key: { projectKey: session.projectKey, sessionId: session.sessionId, subpath: `subagents/agent-${agent.agentId}` },
          file: agent.file
        }))
      ]
      for (const { file, key } of files) {
        const entries = entriesOf(file)
        for (let start = 0; start < entries.length; start += batch) {
          yield* store.append(key, entries.slice(start, start + batch))
        }
      }
    }), { discard: true })

/** What `acx stats` folds over a session's files: its counts and per-model tokens. */
const statsOf = (session: Fixtures.BuiltSession) => {
  const totals = { user: 0, assistant: 0, toolCalls: 0, models: new Map<string, StatsFold.ModelCell>() }
  const files = [{ file: session.file, kind: "main" as const }, ...session.subagents.map((a) => ({ file: a.file, kind: "subagent" as const }))]
  for (const { file, kind } of files) {
    const state = StatsFold.empty()
    const ctx = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind }
    for (const line of Fixtures.readJsonLines(file)) StatsFold.foldEntry(state, line.value, ctx)
    for (const day of Object.values(state.days)) {
      totals.user += day.user
      totals.assistant += day.assistant
      totals.toolCalls += Object.values(day.toolCalls).reduce((a, b) => a + b, 0)
      for (const [model, cell] of Object.entries(day.models)) {
        const sum = totals.models.get(model) ?? StatsFold.emptyModelCell()
        StatsFold.addModelCell(sum, cell)
        totals.models.set(model, sum)
      }
    }
  }
  return totals
}

const usageByModel = (rows: ReadonlyArray<StoreCatalog.MessageUsageRow>) => {
  const models = new Map<string, StatsFold.ModelCell>()
  for (const row of rows) {
    if (row.model === undefined || row.tokens === undefined) continue
    const sum = models.get(row.model) ?? StatsFold.emptyModelCell()
    StatsFold.addModelCell(sum, { messages: 1, ...row.tokens })
    models.set(row.model, sum)
  }
  return models
}

const rounded = (models: Map<string, StatsFold.ModelCell>) =>
  Object.fromEntries([...models].map(([model, cell]) => [model, { ...cell, costUSD: Math.round(cell.costUSD * 1e6) }]))

const sessionOf = (id: string) => built.sessions.find((session) => session.sessionId.startsWith(id))!

const searchError = (exit: Either.Either<unknown, unknown>) =>
  Either.isLeft(exit) ? (exit.left as SearchQuery.SearchQueryError) : undefined

for (const backend of backends) {
  describe.skipIf(backend.skip)(`StoreCatalog on ${backend.name}`, () => {
    it.scoped("every fixture session: metadata as SessionMetadata, counts and usage as StatsFold", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("fixtures")
        yield* appendFixtures(store, 7)
        const listed = yield* store.catalog.listSessions()
        expect(listed.map((s) => s.sessionId).sort()).toEqual(built.sessions.map((s) => s.sessionId).sort())
        for (const session of built.sessions) {
          const row = listed.find((s) => s.sessionId === session.sessionId)!
          const metadata = SessionMetadata.sessionMetadata(Fixtures.readJsonLines(session.file).map((l) => l.value))
          for (const field of ["title", "firstPrompt", "lastPrompt", "cwd", "gitBranch", "startTime", "lastTime"] as const) {
            expect({ session: session.sessionId, field, value: row[field] })
              .toEqual({ session: session.sessionId, field, value: metadata[field] })
          }
          const stats = statsOf(session)
          expect({ user: row.userMessages, assistant: row.assistantMessages, toolCalls: row.toolCalls })
            .toEqual({ user: stats.user, assistant: stats.assistant, toolCalls: stats.toolCalls })
          expect(row.subagents).toBe(session.subagents.length)
          const entries = [session.file, ...session.subagents.map((a) => a.file)]
            .reduce((n, file) => n + Fixtures.readJsonLines(file).length, 0)
          expect(row.entries).toBe(entries)
          const usage = yield* store.catalog.usage({ sessionId: session.sessionId })
          expect(rounded(usageByModel(usage))).toEqual(rounded(stats.models))
        }
      }))

    it.scoped("search: a word, a phrase, exclusions, filters, marked snippets", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("search")
        yield* appendFixtures(store, 50)
        const spotter = sessionOf("258c7280")
        const beads = yield* store.catalog.search("beads", { limit: 500, open: "[[", close: "]]" })
        expect(beads.some((hit) => hit.sessionId === spotter.sessionId && hit.role === "tool")).toBe(true)
        for (const hit of beads) expect(hit.snippet.toLowerCase()).toContain("[[beads]]")
        const phrase = yield* store.catalog.search("\"sync beads\"", { limit: 500 })
        expect(phrase.length).toBeGreaterThan(0)
        expect(phrase.length).toBeLessThanOrEqual(beads.length)
        const withCredo = yield* store.catalog.search("beads credo", { limit: 500 })
        const withoutCredo = yield* store.catalog.search("beads -credo", { limit: 500 })
        expect(withCredo.length).toBeGreaterThan(0)
        expect(withoutCredo.length + withCredo.length).toBe(beads.length)
        const tools = yield* store.catalog.search("beads", { limit: 500, role: "tool" })
        expect(tools.length).toBeGreaterThan(0)
        expect(tools.every((hit) => hit.role === "tool")).toBe(true)
        const elsewhere = yield* store.catalog.search("beads", { projectKey: "no-such-project" })
        expect(elsewhere).toEqual([])
        const future = yield* store.catalog.search("beads", { since: Date.parse("2999-01-01T00:00:00Z") })
        expect(future).toEqual([])
        const limited = yield* store.catalog.search("beads", { limit: 2 })
        expect(limited.length).toBe(2)
        expect(limited.map((hit) => hit.score)).toEqual(beads.slice(0, 2).map((hit) => hit.score))
      }))

    it.scoped("hostile queries: typed errors or plain matches, never an engine error", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("hostile")
        yield* appendFixtures(store, 500)
        const empty = yield* Effect.either(store.catalog.search("  \"\" - ** "))
        expect(searchError(empty)?.reason).toBe("Empty")
        const onlyExcluded = yield* Effect.either(store.catalog.search("-beads"))
        expect(searchError(onlyExcluded)?.reason).toBe("OnlyExclusions")
        for (const hostile of ["beads OR", "NEAR(beads", "body:beads", "beads*", "'; DROP TABLE x; --", "a & !b | c:*", "\"beads"]) {
          const result = yield* Effect.either(store.catalog.search(hostile))
          expect(Either.isRight(result), hostile).toBe(true)
        }
      }))
  })
}
