/**
 * The derived data of the SQL stores (`SessionDerive`, `StoreCatalog`), on SQLite and on a real
 * Postgres (`ACX_PG_URL`): every fixture session of packages/fixtures appended in batches, then
 * its metadata equals `SessionMetadata` over the same transcript, its counts and usage equal
 * `StatsFold` (what `acx stats` folds) over the same files, and search finds known words,
 * phrases and exclusions; a store written before the derived tables is migrated in place.
 */
import * as Pricing from "@acx/convert/Pricing"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StatsFold from "@acx/convert/StatsFold"
import * as Fixtures from "@acx/fixtures"
import { bundleWorker, type WorkerBundle } from "@acx/fixtures/workerBundle"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SearchQuery from "@acx/session-store/SearchQuery"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import {
  detectClaude,
  failuresOf,
  prepareStandInCli,
  projectKeyFor,
  promptMessage,
  promptStream,
  realClaude,
  realisticConversation,
  startModelDouble
} from "@acx/testing"
import { lastMessageHasToolResult, userSays } from "@acx/testing/ModelDouble"
import { runAppendWorkers } from "@acx/testing/SessionStoreConcurrency"
import { query } from "@anthropic-ai/claude-agent-sdk"
import { afterAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-catalog-"))
const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_catalog_test_${process.pid}_${randomUUID().slice(0, 8)}`

const schemas = [
  "realclaude",
  "fixtures",
  "migrated",
  "direct",
  "workers",
  "sdk",
  "killed",
  "deleting",
  "clock",
  "keyless"
]
afterAll(async () => {
  await Effect.runPromise(Scope.close(sharedScope, Exit.void))
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  await withPg(async (client) => {
    for (const id of schemas) await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}_${id}" CASCADE`)
  })
})

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

interface Backend {
  readonly name: string
  readonly skip: boolean
  readonly open: (id: string) => Effect.Effect<Store, SessionStore.SessionStoreError, Scope.Scope>
  /** The same store as the SDK's `SessionStore`. */
  readonly sdk: (id: string) => SessionStore.SdkSessionStore
  /** Makes store `id` look written by an acx without derived data (its tables and migration gone). */
  readonly downgrade: (id: string) => Promise<void>
  /** The arguments of workers/deriveWorker.ts for store `id`. */
  readonly deriveArgs: (id: string) => ReadonlyArray<string>
  /** Runs `workers` processes appending to one session of store `id` at once. */
  readonly appendWorkers: (id: string, run: { workers: number; batches: number; batchSize: number }) => Promise<void>
}

const DERIVED_TABLES = ["acx_session_meta", "acx_session_usage", "acx_session_text"]

// The worker processes run on plain Node from a bundle of their sources (through tsx's hooks,
// loading Effect and the drivers cost each start seconds of CPU), made once per worker file.
const bundles = new Map<string, Promise<WorkerBundle>>()
const workerFile = async (name: string) => {
  let bundle = bundles.get(name)
  if (bundle === undefined) {
    bundle = bundleWorker(new URL(`./workers/${name}.ts`, import.meta.url))
    bundles.set(name, bundle)
  }
  return (await bundle).file
}
afterAll(async () => {
  for (const bundle of bundles.values()) (await bundle).remove()
})

const runWorker = (args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.on("error", reject)
    child.on("exit", (code) => code === 0 ? resolve() : reject(new Error(`worker exited ${code}: ${stderr}`)))
  })

// Starts a deriving worker and kills it (SIGKILL) `delayMs` after it is ready; whether it finished.
const killDeriving = async (args: ReadonlyArray<string>, delayMs: number) => {
  const file = await workerFile("deriveWorker")
  return new Promise<boolean>((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.stdout.on("data", (chunk) => {
      out += String(chunk)
      if (out === "ready\n") setTimeout(() => child.kill("SIGKILL"), delayMs)
    })
    child.on("error", reject)
    child.on("exit", (code, signal) =>
      signal === "SIGKILL" || code === 0
        ? resolve(out.includes("done"))
        : reject(new Error(`worker exited ${code}: ${stderr}`)))
  })
}

const withPg = async (f: (client: pg.Client) => Promise<void>) => {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  await f(client).finally(() => client.end())
}

const backends: ReadonlyArray<Backend> = [
  {
    name: "SQLite",
    skip: false,
    open: (id) => SqliteSessionStore.make({ filename: path.join(root, `${id}.sqlite`) }),
    sdk: (id) => SqliteSessionStore.createSqliteSessionStore({ filename: path.join(root, `${id}.sqlite`) }),
    deriveArgs: (id) => ["sqlite", path.join(root, `${id}.sqlite`)],
    downgrade: async (id) => {
      const db = new Database(path.join(root, `${id}.sqlite`))
      try {
        // as an acx before the derived tables (migration 3) wrote it: the origins (4) came after them
        for (const table of [...DERIVED_TABLES, "acx_session_text_fts", "acx_session_origin"]) {
          db.exec(`DROP TABLE ${table}`)
        }
        db.exec("DROP INDEX acx_session_keys_behind")
        for (const column of ["derived_mtime", "derived_id"]) {
          db.exec(`ALTER TABLE acx_session_keys DROP COLUMN ${column}`)
        }
        db.exec("DELETE FROM acx_session_store_migrations WHERE migration_id >= 3")
      } finally {
        db.close()
      }
    },
    appendWorkers: async (id, run) =>
      runAppendWorkers(await workerFile("sqliteAppendWorker"), path.join(root, `${id}.sqlite`), run, { execArgv: [] })
  },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    open: (id) => PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema: `${SCHEMA}_${id}` }),
    sdk: (id) => PostgresSessionStore.createPostgresSessionStore({ url: PG_URL ?? "", schema: `${SCHEMA}_${id}` }),
    deriveArgs: (id) => ["postgres", PG_URL ?? "", `${SCHEMA}_${id}`],
    downgrade: (id) =>
      withPg(async (client) => {
        // as an acx before the derived tables (migration 4) wrote it: no origins (5), no clock
        // notification (6), no row owners (7)
        await client.query(`DROP TRIGGER acx_clock_notify ON "${SCHEMA}_${id}".acx_clock`)
        await client.query(`DROP FUNCTION "${SCHEMA}_${id}".acx_clock_notify()`)
        for (
          const table of ["claude_session_entries", "acx_session_keys", "acx_session_summaries", "acx_import_ledger"]
        ) {
          await client.query(`ALTER TABLE "${SCHEMA}_${id}".${table} DROP COLUMN db_user`)
        }
        for (const table of [...DERIVED_TABLES, "acx_session_origin"]) {
          await client.query(`DROP TABLE "${SCHEMA}_${id}".${table}`)
        }
        for (const column of ["derived_mtime", "derived_id"]) {
          await client.query(`ALTER TABLE "${SCHEMA}_${id}".acx_session_keys DROP COLUMN ${column}`)
        }
        await client.query(`DELETE FROM "${SCHEMA}_${id}".acx_session_store_migrations WHERE migration_id >= 4`)
      }),
    appendWorkers: async (id, run) => {
      const file = await workerFile("pgAppendWorker")
      await Promise.all(Array.from({ length: run.workers }, (_, worker) =>
        runWorker([
          file,
          PG_URL!,
          `${SCHEMA}_${id}`,
          "concurrency",
          "shared-session",
          String(worker),
          String(run.batches),
          String(run.batchSize)
        ])))
    }
  }
]

/**
 * Stores the tests only read, built once per file (on first use) and closed after it: the fixture
 * sessions appended in small batches with reads between (which the first test checks, and search
 * reads), and the same appended in batches of 40 (the reference the migrated and the killed
 * stores are compared with). Appending every fixture is most of this file's time.
 */
const sharedScope = Effect.runSync(Scope.make())
const shared = <A, E>(make: Effect.Effect<A, E, Scope.Scope>): Effect.Effect<A> => {
  let built: Promise<A> | undefined
  return Effect.promise(() => (built ??= Effect.runPromise(Scope.extend(make, sharedScope))))
}
const sharedStores = new Map<
  string,
  { readonly fixtures: Effect.Effect<Store>; readonly direct: Effect.Effect<Store> }
>()
const sharedOf = (backend: Backend) => {
  let stores = sharedStores.get(backend.name)
  if (stores === undefined) {
    stores = {
      fixtures: shared(Effect.tap(backend.open("fixtures"), (store) => appendFixtures(store, 7, 5))),
      direct: shared(Effect.tap(backend.open("direct"), (store) => appendFixtures(store, 40)))
    }
    sharedStores.set(backend.name, stores)
  }
  return stores
}

const entriesOf = (file: string): Array<SessionStore.SessionStoreEntry> =>
  Fixtures.readJsonLines(file).map((line) => line.value as SessionStore.SessionStoreEntry)

/**
 * Every fixture session and subagent, appended in batches of `batch` entries; with `readEvery`,
 * the catalog is read after every that many appends (the watermark advances part way each time).
 */
const appendFixtures = (store: Store, batch: number, readEvery?: number) => {
  let appends = 0
  return Effect.forEach(built.sessions, (session) =>
    Effect.gen(function*() {
      const files = [
        { key: { projectKey: session.projectKey, sessionId: session.sessionId }, file: session.file },
        ...session.subagents.map((agent) => ({
          key: {
            projectKey: session.projectKey,
            sessionId: session.sessionId,
            subpath: `subagents/agent-${agent.agentId}`
          },
          file: agent.file
        }))
      ]
      for (const { file, key } of files) {
        const entries = entriesOf(file)
        for (let start = 0; start < entries.length; start += batch) {
          yield* store.append(key, entries.slice(start, start + batch))
          if (readEvery !== undefined && ++appends % readEvery === 0) yield* store.catalog.refresh()
        }
      }
    }), { discard: true })
}

/** What `acx stats` folds over a session's files: its counts and per-model tokens. */
const statsOf = (session: Fixtures.BuiltSession) => {
  const totals = { user: 0, assistant: 0, toolCalls: 0, models: new Map<string, StatsFold.ModelCell>() }
  const files = [
    { file: session.file, kind: "main" as const },
    ...session.subagents.map((a) => ({ file: a.file, kind: "subagent" as const }))
  ]
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
    it.scoped(
      "every fixture session: metadata as SessionMetadata, counts and usage as StatsFold",
      () =>
        Effect.gen(function*() {
          const store = yield* sharedOf(backend).fixtures
          const listed = yield* store.catalog.listSessions()
          expect(listed.map((s) => s.sessionId).sort()).toEqual(built.sessions.map((s) => s.sessionId).sort())
          for (const session of built.sessions) {
            const row = listed.find((s) => s.sessionId === session.sessionId)!
            const metadata = SessionMetadata.sessionMetadata(Fixtures.readJsonLines(session.file).map((l) => l.value))
            for (
              const field of [
                "title",
                "firstPrompt",
                "lastPrompt",
                "cwd",
                "gitBranch",
                "startTime",
                "lastTime"
              ] as const
            ) {
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
        }),
      90_000
    )

    it.scoped("search: a word, a phrase, exclusions, filters, marked snippets", () =>
      Effect.gen(function*() {
        const store = yield* sharedOf(backend).fixtures
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
      }), 90_000)

    it.scoped("the clock moves with every append; a snippet is cut from the shown text", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("clock")
        expect(yield* store.catalog.clock()).toBe(0)
        const key = { projectKey: "clock", sessionId: randomUUID() }
        const secret = `sk-ant-api03-${"Q".repeat(16)}-zanzibar-${"R".repeat(24)}`
        const entry = { type: "user", uuid: randomUUID(), message: { role: "user", content: `key ${secret} ok` } }
        yield* store.append(key, [entry])
        const first = yield* store.catalog.clock()
        expect(first).toBeGreaterThan(0)
        const [listed] = yield* store.catalog.listSessions({ projectKey: key.projectKey })
        expect(listed?.mtime).toBe(first)
        yield* store.append(key, [{ ...entry, uuid: randomUUID() }])
        const second = yield* store.catalog.clock()
        expect(second).toBeGreaterThan(first)
        // a delete moves it too (a follower sees sessions go)
        yield* store.delete({ ...key, sessionId: randomUUID() })
        expect(yield* store.catalog.clock()).toBeGreaterThan(second)
        // a window of 3 words around "zanzibar" would show the secret's tail: cut from the masked
        // text it shows the mask instead
        const mask = (text: string) => text.replace(/sk-ant-[A-Za-z0-9_-]+/g, "[REDACTED]")
        const raw = yield* store.catalog.search("zanzibar", { projectKey: key.projectKey })
        expect(raw[0]?.snippet).toContain("**zanzibar**")
        const shown = yield* store.catalog.search("zanzibar", { projectKey: key.projectKey, mask })
        expect(shown.map((hit) => hit.snippet)).toEqual(["key [REDACTED] ok", "key [REDACTED] ok"])
      }))

    it.scoped("assistant entries without message id or uuid each count, across derive chunks", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("keyless")
        const key = { projectKey: "keyless", sessionId: randomUUID() }
        const entries = Array.from({ length: 2_100 }, (_, i) => ({
          type: "assistant",
          timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          message: {
            model: "claude-sonnet-4-5",
            content: [{ type: "text", text: `reply ${i}` }],
            usage: { output_tokens: 1 }
          }
        }))
        yield* store.append(key, entries)
        const [row] = yield* store.catalog.listSessions({ projectKey: key.projectKey })
        expect(row?.assistantMessages).toBe(entries.length)
        const usage = yield* store.catalog.usage({ sessionId: key.sessionId })
        expect(usage.reduce((n, message) => n + (message.tokens?.output ?? 0), 0)).toBe(entries.length)
      }))

    it.scoped("hostile queries: typed errors or plain matches, never an engine error", () =>
      Effect.gen(function*() {
        const store = yield* sharedOf(backend).fixtures
        const empty = yield* Effect.either(store.catalog.search("  \"\" - ** "))
        expect(searchError(empty)?.reason).toBe("Empty")
        const onlyExcluded = yield* Effect.either(store.catalog.search("-beads"))
        expect(searchError(onlyExcluded)?.reason).toBe("OnlyExclusions")
        for (
          const hostile of [
            "beads OR",
            "NEAR(beads",
            "body:beads",
            "beads*",
            "'; DROP TABLE x; --",
            "a & !b | c:*",
            "\"beads"
          ]
        ) {
          const result = yield* Effect.either(store.catalog.search(hostile))
          expect(Either.isRight(result), hostile).toBe(true)
        }
      }), 90_000)

    it.scoped(
      "a store written before the derived tables is migrated in place: the same derived data",
      () =>
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.flatMap(backend.open("migrated"), (store) => appendFixtures(store, 40)))
          yield* Effect.promise(() => backend.downgrade("migrated"))
          const migrated = yield* backend.open("migrated")
          const direct = yield* sharedOf(backend).direct
          const strip = (rows: ReadonlyArray<StoreCatalog.StoredSession>) => rows.map(({ mtime: _, ...row }) => row)
          const listed = yield* migrated.catalog.listSessions()
          expect(listed.length).toBe(built.sessions.length)
          expect(strip(listed)).toEqual(strip(yield* direct.catalog.listSessions()))
          const usageKey = (row: StoreCatalog.MessageUsageRow) =>
            JSON.stringify([row.sessionId, row.subpath, row.messageId, row.requestId, row.uuid])
          const sorted = (rows: ReadonlyArray<StoreCatalog.MessageUsageRow>) =>
            [...rows].sort((a, b) => usageKey(a) < usageKey(b) ? -1 : 1)
          expect(sorted(yield* migrated.catalog.usage())).toEqual(sorted(yield* direct.catalog.usage()))
          const hits = yield* migrated.catalog.search("beads", { limit: 500 })
          expect(hits.length).toBeGreaterThan(0)
          expect(hits).toEqual(yield* direct.catalog.search("beads", { limit: 500 }))
          // and it keeps deriving on append
          const spotter = sessionOf("258c7280")
          yield* migrated.append({ projectKey: spotter.projectKey, sessionId: spotter.sessionId }, [
            { type: "user", uuid: randomUUID(), message: { role: "user", content: "zanzibar quokka" } }
          ])
          expect((yield* migrated.catalog.search("quokka")).map((hit) => hit.sessionId)).toEqual([spotter.sessionId])
        }),
      60_000
    )

    it("a reader killed (-9) while deriving leaves nothing half derived: the next read completes it", async () => {
      await Effect.runPromise(
        Effect.scoped(Effect.flatMap(backend.open("killed"), (store) => appendFixtures(store, 25)))
      )
      // killed as the derivation starts (a first chunk's transaction open) and again part way
      // (some keys' chunks committed, the watermark moved): the cases a kill can leave. Points
      // after the end leave nothing to complete; more points between repeat these two
      for (const delayMs of [0, 120]) await killDeriving(backend.deriveArgs("killed"), delayMs)
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const killed = yield* backend.open("killed")
        const direct = yield* sharedOf(backend).direct
        const strip = (rows: ReadonlyArray<StoreCatalog.StoredSession>) => rows.map(({ mtime: _, ...row }) => row)
        expect(strip(yield* killed.catalog.listSessions())).toEqual(strip(yield* direct.catalog.listSessions()))
        const total = (rows: ReadonlyArray<StoreCatalog.MessageUsageRow>) =>
          rows.reduce((n, row) => n + (row.tokens?.output ?? 0), 0)
        expect(total(yield* killed.catalog.usage())).toBe(total(yield* direct.catalog.usage()))
        expect((yield* killed.catalog.search("beads", { limit: 500 })).length)
          .toBe((yield* direct.catalog.search("beads", { limit: 500 })).length)
      })))
    }, 120_000)

    it.scoped("deleting a subagent takes its share out of the session's counts and index", () =>
      Effect.gen(function*() {
        const store = yield* backend.open("deleting")
        yield* appendFixtures(store, 100)
        const spotter = sessionOf("258c7280")
        const key = { projectKey: spotter.projectKey, sessionId: spotter.sessionId }
        const before = (yield* store.catalog.listSessions({ sessionId: spotter.sessionId }))[0]!
        const agent = spotter.subagents.find((a) =>
          Fixtures.readJsonLines(a.file).some((l) => JSON.stringify(l.value).includes("beads"))
        )!
        const subpath = `subagents/agent-${agent.agentId}`
        const inAgent = (yield* store.catalog.search("beads", { limit: 500 })).filter((hit) => hit.subpath === subpath)
        expect(inAgent.length).toBeGreaterThan(0)
        yield* store.delete({ ...key, subpath })
        const after = (yield* store.catalog.listSessions({ sessionId: spotter.sessionId }))[0]!
        expect(after.subagents).toBe(before.subagents - 1)
        expect(after.entries).toBe(before.entries - Fixtures.readJsonLines(agent.file).length)
        expect((yield* store.catalog.search("beads", { limit: 500 })).filter((hit) => hit.subpath === subpath)).toEqual(
          []
        )
        expect((yield* store.catalog.usage({ sessionId: spotter.sessionId })).some((row) => row.subpath === subpath))
          .toBe(false)
        yield* store.delete(key)
        expect(yield* store.catalog.listSessions({ sessionId: spotter.sessionId })).toEqual([])
        expect(
          (yield* store.catalog.search("beads", { limit: 500 })).some((hit) => hit.sessionId === spotter.sessionId)
        ).toBe(false)
        // retention takes the derived rows with the sessions
        expect((yield* store.catalog.search("the")).length).toBeGreaterThan(0)
        expect(yield* store.deleteOlderThan(Number.MAX_SAFE_INTEGER)).toBe(built.sessions.length - 1)
        expect(yield* store.catalog.listSessions()).toEqual([])
        expect(yield* store.catalog.search("the")).toEqual([])
        expect(yield* store.catalog.usage()).toEqual([])
      }))

    it(
      "processes appending to one session while this one reads keep the derived counts equal to what is stored",
      async () => {
        // two writer processes interleave their appends as any more would
        const run = { workers: 2, batches: 12, batchSize: 5 }
        let done = false
        const appending = backend.appendWorkers("workers", run).finally(() => (done = true))
        await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const store = yield* backend.open("workers")
          while (!done) {
            yield* store.catalog.refresh()
            yield* Effect.sleep("20 millis")
          }
        })))
        await appending
        await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const store = yield* backend.open("workers")
          const key = { projectKey: "concurrency", sessionId: "shared-session" }
          const stored = (yield* store.load(key)) ?? []
          expect(stored.length).toBeGreaterThanOrEqual(run.workers * run.batches * run.batchSize)
          const [row] = yield* store.catalog.listSessions({ projectKey: key.projectKey })
          expect(row?.entries).toBe(stored.length)
          expect(row?.userMessages).toBe(stored.filter((entry) => entry.type === "user").length)
        })))
      },
      60_000
    )

    it(
      "the real Claude Code CLI mirroring through query(): derived data equal to its own transcript's",
      async ({ skip }) => {
        const detected = await detectClaude()
        if (!detected.available) return skip(`no Claude Code binary: ${detected.reason}`)
        const double = await startModelDouble({
          script: [
            {
              when: userSays("List the zanzibar project"),
              reply: {
                content: [
                  { type: "text" as const, text: "Listing the quokka files." },
                  { type: "tool_use" as const, name: "Bash", input: { command: "ls -a" } }
                ],
                usage: { inputTokens: 1000, outputTokens: 30, cacheReadInputTokens: 200 }
              }
            },
            {
              when: lastMessageHasToolResult,
              reply: { content: "The project is empty.", usage: { inputTokens: 1100, outputTokens: 8 } }
            }
          ]
        })
        const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-catalog-real-home-"))
        const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-catalog-real-project-")))
        const sdkStore = backend.sdk("realclaude")
        try {
          const claude = await realClaude({ baseUrl: double.url, path: detected.path })
          let sessionId = ""
          for await (
            const message of query({
              prompt: (async function*() {
                yield promptMessage("List the zanzibar project")
              })(),
              options: { ...claude.queryOptions(home), cwd, sessionStore: sdkStore, allowedTools: ["Bash"] }
            })
          ) {
            if (message.type === "result") sessionId = message.session_id
          }
          await sdkStore.close()
          const key = { projectKey: projectKeyFor(cwd), sessionId }
          const written = Fixtures.readJsonLines(
            path.join(home, ".claude", "projects", key.projectKey, `${sessionId}.jsonl`)
          )
            .map((line) => line.value)
          const stats = StatsFold.empty()
          const ctx = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" as const }
          for (const entry of written) StatsFold.foldEntry(stats, entry, ctx)
          const models = new Map<string, StatsFold.ModelCell>()
          for (const day of Object.values(stats.days)) {
            for (const [model, cell] of Object.entries(day.models)) models.set(model, cell)
          }
          await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const store = yield* backend.open("realclaude")
            const [row] = yield* store.catalog.listSessions({ projectKey: key.projectKey })
            expect(row).toMatchObject({ sessionId, firstPrompt: "List the zanzibar project", cwd, toolCalls: 1 })
            const usage = yield* store.catalog.usage({ sessionId })
            expect(rounded(usageByModel(usage))).toEqual(rounded(models))
            expect(usage.reduce((n, message) => n + (message.tokens?.output ?? 0), 0)).toBe(38)
            expect((yield* store.catalog.search("quokka")).map((hit) => hit.role)).toEqual(["assistant"])
            expect((yield* store.catalog.search("\"ls a\"", { role: "tool" })).length).toBe(1)
          })))
        } finally {
          await double.close()
          fs.rmSync(home, { recursive: true, force: true })
          fs.rmSync(cwd, { recursive: true, force: true })
        }
      },
      120_000
    )

    it("the SDK's query({ sessionStore }) mirroring gets the same derived data", async () => {
      const cwd = await fs.promises.realpath(await fs.promises.mkdtemp(path.join(os.tmpdir(), "acx-catalog-query-")))
      try {
        const conversation = realisticConversation({
          prompts: ["The date tests fail in CI, fix them"],
          subagent: true,
          mirror: true,
          cwd
        })
        const cli = await prepareStandInCli({ scenario: conversation.scenario, cwd })
        const sdkStore = backend.sdk("sdk")
        try {
          for await (
            const _ of query({
              prompt: promptStream(conversation.promptMessages),
              options: { ...cli.queryOptions, sessionStore: sdkStore }
            })
          ) { /* drain */ }
          expect(failuresOf(await cli.readLog())).toEqual([])
        } finally {
          await sdkStore.close()
          await cli.cleanup()
        }
        const main = conversation.transcript.main
        const subagents = Object.values(conversation.transcript.subagents)
        await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const store = yield* backend.open("sdk")
          const [row] = yield* store.catalog.listSessions({ projectKey: projectKeyFor(cwd) })
          const metadata = SessionMetadata.sessionMetadata(main)
          expect(row).toMatchObject({ sessionId: conversation.sessionId, ...metadata, subagents: subagents.length })
          expect(row?.firstPrompt).toBe("The date tests fail in CI, fix them")
          expect(row?.entries).toBe(main.length + subagents.reduce((n, entries) => n + entries.length, 0))
          const hits = yield* store.catalog.search("\"date tests\"", { role: "user" })
          expect(hits.map((hit) => hit.sessionId)).toEqual([conversation.sessionId])
          const usage = yield* store.catalog.usage({ sessionId: conversation.sessionId })
          expect(usage.some((message) => message.tokens !== undefined)).toBe(true)
        })))
      } finally {
        await fs.promises.rm(cwd, { recursive: true, force: true })
      }
    }, 60_000)
  })
}
