/**
 * A store read as a config directory (`StoreProjects`, `StoreStats`): the fixture config dir
 * imported into SQLite and, with `ACX_PG_URL`, Postgres (the importer `acx sync` runs), then every
 * read compared with the config dir's on every fixture session — the listing field by field, each
 * transcript and subagent entry by entry, the statistics report for every grouping — plus the
 * statistics cache, a fork inside the store, and stored rows that are no entries.
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as Fixtures from "@acx/fixtures"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-projects-"))
const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_store_projects_${randomUUID().replace(/-/g, "").slice(0, 12)}`
const pricing = Pricing.builtinPricing

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).finally(() => client.end())
})

// what only a file has: where it is, its size and mtime
const withoutSource = ({ file: _f, mtime: _m, size: _s, ...rest }: SessionListing.ListedSession) => rest

const dirProjects = Effect.flatMap(ClaudeProjects.ClaudeProjects, Effect.succeed).pipe(
  Effect.provide(ClaudeProjects.layerNode({ configDir: built.configDir }))
)

// the report without the files it names (a store names keys, a directory files)
const reportOf = (folds: SessionStats.StatsFolds, by: StatsReport.GroupBy) => SessionStats.reportStats(folds, by).report

// An API message with usage, appended to a stored session.
const oneMore = (id: string, timestamp: string, inputTokens: number) => ({
  type: "assistant",
  uuid: randomUUID(),
  timestamp,
  requestId: `req_${id}`,
  message: {
    id: `msg_${id}`,
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [{ type: "text", text: "one more" }],
    usage: { input_tokens: inputTokens, output_tokens: 10 }
  }
})

const stores = [
  { name: "SQLite", skip: false, open: () => SqliteSessionStore.make({ filename: path.join(root, "store.sqlite") }) },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    open: () => PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema: SCHEMA })
  }
]

for (const backend of stores) {
  describe.skipIf(backend.skip)(`${backend.name}: a store read as the config dir it was imported from`, () => {
    it.scoped("listing, transcripts, subagents and statistics equal the config dir's", () =>
      Effect.gen(function*() {
        const store = yield* backend.open()
        // stored as written (`mask: false`): the store is compared with the files byte for byte
        yield* ClaudeImport.importClaudeDir({ from: { configDir: built.configDir }, to: store, mask: false }).pipe(
          Effect.provide(NodeContext.layer)
        )
        const dir = yield* dirProjects
        const stored = StoreProjects.make({ store, location: "store:test" })

        const listed = SessionListing.rows(yield* dir.listSessions())
        const fromStore = SessionListing.rows(yield* stored.listSessions())
        expect(fromStore.map(withoutSource)).toEqual(listed.map(withoutSource))
        expect(fromStore.every((row) => row.file === `store:test#${row.projectKey}/${row.sessionId}`)).toBe(true)
        expect((yield* stored.listProjects()).map((p) => [p.projectKey, p.sessions]))
          .toEqual((yield* dir.listProjects()).filter((p) => p.sessions > 0).map((p) => [p.projectKey, p.sessions]))

        for (const session of built.sessions) {
          const { projectKey, sessionId } = session
          const a = yield* dir.readSession(projectKey, sessionId)
          const b = yield* stored.readSession(projectKey, sessionId)
          expect({ sessionId, entries: b.entries }).toEqual({ sessionId, entries: a.entries })
          const agentsA = yield* dir.readSubagents(projectKey, sessionId)
          const agentsB = yield* stored.readSubagents(projectKey, sessionId)
          expect(agentsB.map(({ agentId, entries, meta }) => ({ agentId, entries, meta })))
            .toEqual(agentsA.map(({ agentId, entries, meta }) => ({ agentId, entries, meta })))
          for (const agent of agentsA) {
            const one = yield* stored.readSubagent(projectKey, sessionId, agent.agentId)
            expect(one.entries).toEqual(agent.entries)
          }
        }

        const cacheDir = path.join(root, `cache-${backend.name}`)
        const dirFolds = yield* SessionStats.foldStats(dir, undefined, {
          pricing,
          cacheDir: path.join(root, "dir-cache")
        })
        const storeFolds = yield* StoreStats.foldStats({ store, location: "store:test", pricing, cacheDir })
        for (const by of StatsReport.groupings) {
          expect({ by, report: reportOf(storeFolds, by) }).toEqual({ by, report: reportOf(dirFolds, by) })
        }
        const one = built.sessions.find((session) => session.subagents.length > 0)!
        const oneDir = yield* SessionStats.foldStats(dir, one.projectKey, {
          pricing,
          cacheDir: path.join(root, "dir-cache"),
          sessionId: one.sessionId
        })
        const oneStore = yield* StoreStats.foldStats({
          store,
          location: "store:test",
          pricing,
          cacheDir,
          projectKey: one.projectKey,
          sessionId: one.sessionId
        })
        expect(reportOf(oneStore, "model")).toEqual(reportOf(oneDir, "model"))
      }), 120_000)

    it.scoped(
      "the statistics cache: a session nothing was appended to is not read again",
      () =>
        Effect.gen(function*() {
          const store = yield* backend.open()
          const cacheDir = path.join(root, `cache2-${backend.name}`)
          const location = `store:cache-${backend.name}`
          const first = yield* StoreStats.foldStats({ store, location, pricing, cacheDir })
          expect(first.run.files.cached).toBe(0)
          const again = yield* StoreStats.foldStats({ store, location, pricing, cacheDir })
          expect(again.run.files.folded).toBe(0)
          expect(again.run.files.cached).toBe(first.run.files.folded)
          expect(reportOf(again, "day")).toEqual(reportOf(first, "day"))

          const grown = built.sessions[0]!
          yield* store.append({ projectKey: grown.projectKey, sessionId: grown.sessionId }, [
            oneMore("store_projects", "2026-11-28T10:00:00.000Z", 1000)
          ])
          const after = yield* StoreStats.foldStats({ store, location, pricing, cacheDir })
          const transcripts = 1 + grown.subagents.length
          expect(after.run.files.folded).toBe(transcripts)
          expect(after.run.files.cached).toBe(first.run.files.folded - transcripts)
          expect(reportOf(after, "model").total.tokens.input).toBe(reportOf(first, "model").total.tokens.input + 1000)

          // a damaged cache is ignored and rewritten, never an error
          for (const name of fs.readdirSync(cacheDir)) fs.writeFileSync(path.join(cacheDir, name), "{not json")
          const rebuilt = yield* StoreStats.foldStats({ store, location, pricing, cacheDir })
          expect(rebuilt.run.files.cached).toBe(0)
          expect(reportOf(rebuilt, "model")).toEqual(reportOf(after, "model"))
        }),
      120_000
    )

    it.scoped(
      "the folds kept in memory (a page's memo): the same reports, an append in the next call",
      () =>
        Effect.gen(function*() {
          const store = yield* backend.open()
          const cacheDir = path.join(root, `cache3-${backend.name}`)
          const location = `store:memo-${backend.name}`
          const memo = StoreStats.makeMemo()
          const plain = yield* StoreStats.foldStats({ store, location, pricing, cacheDir: null })
          const first = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          const again = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          for (const by of StatsReport.groupings) {
            expect({ by, report: reportOf(first, by) }).toEqual({ by, report: reportOf(plain, by) })
            expect({ by, report: reportOf(again, by) }).toEqual({ by, report: reportOf(plain, by) })
          }
          expect(again.run.files.folded).toBe(0)
          // answered from memory: the cache file is not read (gone, it is not missed)
          fs.rmSync(cacheDir, { recursive: true, force: true })
          const fromMemory = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          expect(fromMemory.run.files.folded).toBe(0)
          expect(reportOf(fromMemory, "session")).toEqual(reportOf(plain, "session"))

          const grown = built.sessions[1]!
          yield* store.append({ projectKey: grown.projectKey, sessionId: grown.sessionId }, [
            oneMore("store_memo", "2026-11-28T11:00:00.000Z", 500)
          ])
          const after = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          expect(after.run.files.folded).toBe(1 + grown.subagents.length)
          expect(reportOf(after, "model").total.tokens.input).toBe(reportOf(plain, "model").total.tokens.input + 500)
          const unremembered = yield* StoreStats.foldStats({ store, location, pricing, cacheDir: null })
          expect(reportOf(after, "day")).toEqual(reportOf(unremembered, "day"))
          // another pricing table: nothing of the memo is reused
          const priced = yield* StoreStats.foldStats({
            store,
            location,
            pricing: { ...pricing, models: { ...pricing.models, "acx-test-model": Object.values(pricing.models)[0]! } },
            cacheDir,
            memo
          })
          expect(priced.run.files.cached).toBe(0)
          // over a catalog that keeps its list (Postgres), nothing changed is the same result
          yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo }) // folded: remembered
          const remembered = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          const same = yield* StoreStats.foldStats({ store, location, pricing, cacheDir, memo })
          if (backend.name === "Postgres") expect(same).toBe(remembered)
          expect(reportOf(same, "day")).toEqual(reportOf(after, "day"))
        }),
      120_000
    )

    it.scoped("a fork inside the store, and what a store does not hold", () =>
      Effect.gen(function*() {
        const store = yield* backend.open()
        const stored = StoreProjects.make({ store, location: "store:test" })
        const source = built.sessions[0]!
        const forked = yield* stored.forkSession(source.projectKey, source.sessionId, { title: "from the store" })
        expect(forked.file).toBe(`store:test#${source.projectKey}/${forked.sessionId}`)
        const listed = (yield* stored.listSessions(source.projectKey)).find((s) => s.sessionId === forked.sessionId)
        expect(listed?.title).toBe("from the store")
        expect((yield* stored.readSession(source.projectKey, forked.sessionId)).entries.length).toBe(forked.entries)

        const missing = yield* Effect.flip(stored.readSession(source.projectKey, randomUUID()))
        expect(missing.reason).toBe("NotFound")
        const noAgent = yield* Effect.flip(stored.readSubagent(source.projectKey, source.sessionId, "nope"))
        expect(noAgent.reason).toBe("NotFound")
        const noProject = yield* Effect.flip(stored.listSessions("-no-such-project"))
        expect(noProject.reason).toBe("NotFound")
        const nothing = yield* Effect.flip(
          stored.forkSession(source.projectKey, source.sessionId, { upToUuid: "not-a-uuid-of-it" })
        )
        expect(nothing.reason).toBe("NotFound")
      }), 60_000)
  })
}

describe("StoreProjects.transcriptOf", () => {
  it("keeps entries in order, reports values that are no entries, leaves agent metadata out", () => {
    const read = StoreProjects.transcriptOf([
      { type: "user", uuid: "u1" },
      { type: StoreProjects.AGENT_METADATA, agentType: "Explore" },
      { type: "assistant", uuid: 7 },
      null,
      [1],
      { no: "type" },
      { type: "system", timestamp: "2026-01-01T00:00:00Z" }
    ])
    expect(read.entries.map((entry) => entry.type)).toEqual(["user", "system"])
    expect(read.errors.map((error) => [error.line, error.reason])).toEqual([
      [3, "InvalidEntry"],
      [4, "NotAnObject"],
      [5, "NotAnObject"],
      [6, "InvalidEntry"]
    ])
  })

  it("reads agent ids from subagent subpaths only", () => {
    expect(StoreProjects.agentIdOf("subagents/agent-a1")).toBe("a1")
    expect(StoreProjects.agentIdOf("subagents/nested/dir/agent-b2")).toBe("b2")
    expect(StoreProjects.agentIdOf("agent-a1")).toBeUndefined()
    expect(StoreProjects.agentIdOf("subagents/agent-")).toBeUndefined()
    expect(StoreProjects.agentIdOf("subagents/agent-..")).toBeUndefined()
    expect(StoreProjects.agentIdOf("subagents/notes")).toBeUndefined()
  })
})
