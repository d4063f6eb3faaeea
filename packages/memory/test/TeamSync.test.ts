/**
 * The team memory's sync on real SQLite files and a real Postgres (a fresh schema per test): two
 * teammates' memories (two homes, their clones of one remote at different paths) exchange
 * observations and summaries; the SessionStart context of one shows the other's, marked with
 * author and machine; forgetting hides an entry for both; `<private>` text and secrets never
 * reach Postgres (checked on the schema's dump); an unreachable server loses nothing and a
 * repeated push (a kill between the insert and the watermark) stores nothing twice.
 */
import type { Observation } from "@acx/convert/ObserverReply"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterEach, describe, expect, it } from "vitest"
import * as HookRunner from "../src/HookRunner.js"
import * as MemoryAdmin from "../src/MemoryAdmin.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryCuration from "../src/MemoryCuration.js"
import type { MemoryError } from "../src/MemoryError.js"
import * as MemorySearch from "../src/MemorySearch.js"
import * as MemoryStore from "../src/MemoryStore.js"
import * as TeamConfig from "../src/TeamConfig.js"
import * as TeamSync from "../src/TeamSync.js"
import { dropSchema, dumpSchema, freshSchema, pgQuery, pgUrl, settled } from "./utils/teamPostgres.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const REMOTE = "github.com/acme/shop"
const SECRET = "sk-ant-api03-TEAMSECRETteamsecretTEAMSECRET0123456789abcdefABCDEF"
const PRIVATE = "PRIVATE-MARKER-do-not-share"

const roots: Array<string> = []
const schemas: Array<string> = []
afterEach(async () => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
  for (const schema of schemas.splice(0)) await dropSchema(schema)
})

interface Mate {
  readonly home: string
  readonly project: string
  readonly settings: TeamConfig.TeamSettings
}

const teammate = (root: string, user: string, machine: string, schema: string, url = pgUrl()): Mate => {
  const home = path.join(root, user, "acx")
  const project = path.join(root, user, "src", "shop")
  fs.mkdirSync(project, { recursive: true })
  const settings = Either.getOrThrow(
    TeamConfig.fromUrl(`${url}${url.includes("?") ? "&" : "?"}schema=${schema}`, { user, machine })
  )
  return { home, project, settings }
}

const world = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-team-"))
  roots.push(root)
  const schema = freshSchema()
  schemas.push(schema)
  return {
    root,
    schema,
    ana: teammate(root, "ana", "ana-laptop", schema),
    bo: teammate(root, "bo", "bo-desktop", schema)
  }
}

// both clones name the same remote; any other directory is not shared
const identifyFor = (...mates: ReadonlyArray<Mate>) => (cwd: string) =>
  mates.some((mate) => cwd === mate.project) ? REMOTE : cwd

const observation = (title: string, narrative: string): Observation => ({
  type: "decision",
  title,
  subtitle: undefined,
  facts: [`fact about ${title}`],
  narrative,
  concepts: [],
  filesRead: [],
  filesModified: []
})

/** A session recorded by the real hook, its events stored with these observations and a summary. */
const seed = async (mate: Mate, sessionId: string, observations: ReadonlyArray<Observation>, now: number) => {
  const at = hooksOf(mate.home, mate.project, sessionId)
  at("UserPromptSubmit", { prompt: `work on ${sessionId}` })
  at("PostToolUse", { tool_name: "Read", tool_use_id: `${sessionId}-t1`, tool_input: {}, tool_response: {} })
  const eventIds = query(mate.home, `SELECT id FROM memory_events WHERE session_id = '${sessionId}'`).map((row) =>
    row["id"] as number
  )
  await run(
    mate,
    MemoryStore.completeBatch({
      sessionId,
      project: mate.project,
      eventIds,
      observations,
      summary: {
        request: `the ${sessionId} request`,
        investigated: "",
        learned: `learned in ${sessionId}`,
        completed: "done",
        nextSteps: "",
        filesRead: [],
        filesEdited: [],
        notes: ""
      },
      source: "local",
      ledger: []
    }, now)
  )
}

const run = <A>(mate: Mate, effect: Effect.Effect<A, MemoryError, any>) =>
  Effect.runPromise(provideDatabase(mate.home, effect))

/** One sync of `mate`, once what the teammates wrote before it can be pulled. */
const sync = async (
  mate: Mate,
  identify: (cwd: string) => string | undefined,
  extra: Partial<TeamSync.SyncOptions> = {}
) => {
  await settled()
  return run(mate, TeamSync.syncOnce({ settings: mate.settings, identify, ...extra }))
}

const remoteCount = async (schema: string, table = "memory_observations") =>
  Number((await pgQuery<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${table}`))[0]!.n)

describe("TeamSync", () => {
  it("two teammates exchange observations; context marks the author; forgetting hides it for both", async () => {
    const { ana, bo, schema } = world()
    const identify = identifyFor(ana, bo)
    const t0 = Date.UTC(2026, 10, 1, 9)
    await seed(ana, "s-ana", [observation("Cart rounds tax once", "Tax is rounded per invoice, not per line")], t0)
    await seed(bo, "s-bo", [observation("Checkout retries payments", "Stripe calls retry twice")], t0 + 60_000)

    expect(await sync(ana, identify)).toMatchObject({ pushed: 2, projects: 1 })
    // each pulls the other's observation and summary, never its own back
    expect(await sync(bo, identify)).toMatchObject({ pushed: 2, pulled: 2 })
    expect(await sync(ana, identify)).toMatchObject({ pushed: 0, pulled: 2 })

    // the team's tables hold each entry once, under the remote, marked with who and where
    expect(await pgQuery(`SELECT project, author, machine, title FROM "${schema}".memory_observations ORDER BY title`))
      .toEqual([
        { project: REMOTE, author: "ana", machine: "ana-laptop", title: "Cart rounds tax once" },
        { project: REMOTE, author: "bo", machine: "bo-desktop", title: "Checkout retries payments" }
      ])
    // and searchable there
    expect(
      await pgQuery(
        `SELECT title FROM "${schema}".memory_observations WHERE search @@ plainto_tsquery('english', 'rounding')`
      )
    ).toEqual([{ title: "Cart rounds tax once" }])

    // bo's SessionStart (the hook's own rendering, from the local database) shows ana's entry, marked
    const boContext = HookRunner.contextFor(bo.home, bo.project)
    expect(boContext).toMatch(/\(by ana on ana-laptop\) Cart rounds tax once/)
    expect(boContext).toContain("Checkout retries payments")
    expect(boContext).not.toMatch(/\(by bo/)
    expect(HookRunner.contextFor(ana.home, ana.project)).toMatch(/\(by bo on bo-desktop\) Checkout retries payments/)
    // and bo's local search finds it
    expect((await run(bo, MemorySearch.search("rounds"))).map((result) => result.title)).toContain(
      "Cart rounds tax once"
    )

    // ana forgets her observation: after the syncs, bo no longer sees it
    const anaId = query(ana.home, "SELECT id FROM memory_observations WHERE title = 'Cart rounds tax once'")[0]!["id"]
    expect(await run(ana, MemoryCuration.forget({ ids: [`O${anaId}`] }))).toEqual([`O${anaId}`])
    expect(await sync(ana, identify)).toMatchObject({ forgotten: 1 })
    await sync(bo, identify)
    expect(HookRunner.contextFor(bo.home, bo.project)).not.toContain("Cart rounds tax once")
    expect(HookRunner.contextFor(bo.home, bo.project)).toContain("Checkout retries payments")

    // bo forgets ana's summary (a teammate's entry): hidden for ana too
    const anaSummary = query(bo.home, "SELECT id FROM memory_summaries WHERE author = 'ana'")[0]!["id"]
    await run(bo, MemoryCuration.forget({ ids: [`S${anaSummary}`] }))
    await sync(bo, identify)
    await sync(ana, identify)
    expect(query(ana.home, "SELECT forgotten_at FROM memory_summaries WHERE author IS NULL")[0]!["forgotten_at"])
      .not.toBeNull()
    // restoring is shared the same way
    await run(bo, MemoryCuration.restore([`S${anaSummary}`]))
    await sync(bo, identify)
    await sync(ana, identify)
    expect(query(ana.home, "SELECT forgotten_at FROM memory_summaries WHERE author IS NULL")[0]!["forgotten_at"])
      .toBeNull()

    // syncing again moves nothing, and each entry exists once everywhere
    expect(await sync(ana, identify)).toMatchObject({ pushed: 0, forgotten: 0 })
    expect(await remoteCount(schema)).toBe(2)
    expect(await remoteCount(schema, "memory_summaries")).toBe(2)
    expect(query(bo.home, "SELECT count(*) AS n FROM memory_observations")[0]!["n"]).toBe(2)
  })

  it("privacy: <private> text and secrets never reach Postgres, even from rows stored before a rule", async () => {
    const { ana, schema } = world()
    const identify = identifyFor(ana)
    await seed(ana, "s-ana", [observation("Deploy key rotated", "The deploy uses the new key")], Date.UTC(2026, 10, 1))
    // a row as an older acx might have left it: raw secret and private text in every text column
    const db = path.join(ana.home, "memory.db")
    const Database = (await import("better-sqlite3")).default
    const raw = new Database(db)
    raw.prepare(
      `UPDATE memory_observations SET narrative = ?, subtitle = ?, facts = ?`
    ).run(
      `ANTHROPIC_API_KEY=${SECRET} and <private>${PRIVATE}</private> done`,
      `token ${SECRET}`,
      JSON.stringify([`<private>${PRIVATE}</private>`, `key ${SECRET}`])
    )
    raw.prepare("UPDATE memory_summaries SET notes = ?").run(`password=${SECRET} <private>${PRIVATE}</private>`)
    raw.close()
    expect(await sync(ana, identify)).toMatchObject({ pushed: 2 })

    const { bytes, how } = await dumpSchema(schema)
    console.log(`[team privacy] schema bytes read with ${how}: ${bytes.length} characters`)
    expect(bytes).toContain("Deploy key rotated")
    expect(bytes).toContain("[REDACTED:")
    expect(bytes).not.toContain(SECRET)
    expect(bytes).not.toContain("TEAMSECRET")
    expect(bytes).not.toContain(PRIVATE)
    expect(bytes).not.toContain(ana.project)
  })

  it("an unreachable team database loses nothing; a push repeated after a kill stores nothing twice", async () => {
    const { ana, bo, root, schema } = world()
    const identify = identifyFor(ana, bo)
    await seed(ana, "s-1", [observation("First", "one"), observation("Second", "two")], Date.UTC(2026, 10, 1))

    // a port nothing listens on, with a password that must not appear in the error
    const down = teammate(root, "ana", "ana-laptop", schema, "postgres://ana:hunter2-pw@127.0.0.1:1/nothing")
    const failed = await Effect.runPromise(
      provideDatabase(
        ana.home,
        Effect.either(TeamSync.syncOnce({ settings: down.settings, identify, connectTimeoutMs: 2_000 }))
      )
    )
    expect(Either.isLeft(failed) && failed.left.reason).toBe("TeamUnreachable")
    const message = Either.isLeft(failed) ? failed.left.message : ""
    expect(message).toMatch(/127\.0\.0\.1:1: connection refused/)
    expect(message).not.toContain("hunter2")
    // memory goes on locally meanwhile
    await seed(ana, "s-2", [observation("Third", "three")], Date.UTC(2026, 10, 2))
    expect(HookRunner.contextFor(ana.home, ana.project)).toContain("Third")

    // reachable again: everything is caught up, once
    let batches = 0
    expect(await sync(ana, identify, { batchSize: 1, onBatch: () => batches++ })).toMatchObject({ pushed: 5 })
    expect(batches).toBeGreaterThanOrEqual(5)
    // a kill after the insert and before the watermark: the next push sends them again, and
    // the team database keeps one of each
    const Database = (await import("better-sqlite3")).default
    const raw = new Database(path.join(ana.home, "memory.db"))
    raw.prepare("DELETE FROM memory_meta WHERE key LIKE 'team.pushed.%'").run()
    raw.close()
    expect(await sync(ana, identify)).toMatchObject({ pushed: 0 })
    expect(await remoteCount(schema)).toBe(3)
    expect(await remoteCount(schema, "memory_summaries")).toBe(2)
    // and a teammate pulling twice (its watermark lost) stores each entry once; its first
    // session in the clone made the project known to its memory
    hooksOf(bo.home, bo.project, "s-bo")("SessionStart", { source: "startup" })
    await sync(bo, identify)
    const braw = new Database(path.join(bo.home, "memory.db"))
    braw.prepare("DELETE FROM memory_team_pulls").run()
    braw.close()
    await sync(bo, identify)
    expect(query(bo.home, "SELECT count(*) AS n FROM memory_observations WHERE author = 'ana'")[0]!["n"]).toBe(3)
  })

  it("deleting shared entries (forget --session) hides them for the team", async () => {
    const { ana, bo, schema } = world()
    const identify = identifyFor(ana, bo)
    await seed(ana, "s-gone", [observation("Soon deleted", "by a hard forget")], Date.UTC(2026, 10, 1))
    await seed(bo, "s-bo", [observation("Bo's own", "stays")], Date.UTC(2026, 10, 2))
    await sync(ana, identify)
    await sync(bo, identify)
    expect(HookRunner.contextFor(bo.home, bo.project)).toContain("Soon deleted")
    // another client of the server in a transaction since before the forget: a pull cannot
    // know whether it will commit something older, so it leaves the forget for after it ended
    const other = new pg.Client({ connectionString: pgUrl() })
    await other.connect()
    await other.query("BEGIN")
    await other.query("SELECT pg_current_xact_id()")
    const removed = await run(ana, MemoryAdmin.forget(MemoryConfig.paths(ana.home), { session: "s-gone", env: {} }))
    expect(removed.observations).toBe(1)
    const syncNow = (mate: Mate) => run(mate, TeamSync.syncOnce({ settings: mate.settings, identify }))
    expect(await syncNow(ana)).toMatchObject({ forgotten: 2 })
    expect(
      await pgQuery(`SELECT forgotten_by FROM "${schema}".memory_observations WHERE author = 'ana'`)
    ).toEqual([{ forgotten_by: "ana@ana-laptop" }])
    expect(await syncNow(bo)).toMatchObject({ pulled: 0 })
    expect(HookRunner.contextFor(bo.home, bo.project)).toContain("Soon deleted")
    await other.query("COMMIT")
    await other.end()
    // held back, never lost: the next sync hides it
    await sync(bo, identify)
    expect(HookRunner.contextFor(bo.home, bo.project)).not.toContain("Soon deleted")
    expect(HookRunner.contextFor(bo.home, bo.project)).toContain("Bo's own")
  })

  it("a project without a git remote is never shared", async () => {
    const { ana, schema } = world()
    await seed(ana, "s-1", [observation("Local only", "stays here")], Date.UTC(2026, 10, 1))
    expect(await sync(ana, (cwd) => cwd)).toEqual({
      pushed: 0,
      kept: 0,
      withheld: 0,
      forgotten: 0,
      pulled: 0,
      projects: 0
    })
    expect(await remoteCount(schema)).toBe(0)
  })
})
