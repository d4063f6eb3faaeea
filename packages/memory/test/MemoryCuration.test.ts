/**
 * Soft delete on real SQLite files: forgetting by id and by filter (one transaction, the ids
 * forgotten returned), every reader leaving forgotten entries out (search, entries by id, the
 * timeline, the SessionStart context, the MCP tools' functions, the status counts) and showing
 * them again after a restore; bad selections refused with nothing changed; a database at
 * migration 2 migrated to 3 with its data and its context unchanged.
 */
import type { Observation } from "@acx/convert/ObserverReply"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as HookRunner from "../src/HookRunner.js"
import { migrations, MIGRATIONS_TABLE, migrationsTableSql } from "../src/internal/migrations.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryAdmin from "../src/MemoryAdmin.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryContext from "../src/MemoryContext.js"
import * as MemoryCuration from "../src/MemoryCuration.js"
import * as MemoryDatabase from "../src/MemoryDatabase.js"
import type { MemoryError } from "../src/MemoryError.js"
import * as MemorySearch from "../src/MemorySearch.js"
import * as MemoryStore from "../src/MemoryStore.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

const makeHome = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-curation-"))
  roots.push(root)
  return { acxHome: path.join(root, "acx"), project: path.join(root, "shop") }
}

const observation = (title: string, narrative: string, type: Observation["type"] = "discovery"): Observation => ({
  type,
  title,
  subtitle: undefined,
  facts: [],
  narrative,
  concepts: [],
  filesRead: [],
  filesModified: []
})

/** A session recorded by the real hook, then its events stored with these observations. */
const seed = async (
  acxHome: string,
  project: string,
  sessionId: string,
  observations: ReadonlyArray<Observation>,
  now: number
) => {
  const at = hooksOf(acxHome, project, sessionId)
  at("UserPromptSubmit", { prompt: `work on ${sessionId}` })
  at("PostToolUse", { tool_name: "Read", tool_use_id: `${sessionId}-t1`, tool_input: {}, tool_response: {} })
  const eventIds = query(
    acxHome,
    `SELECT id FROM memory_events WHERE session_id = '${sessionId}' AND state = 'pending'`
  )
    .map((row) => row["id"] as number)
  await Effect.runPromise(provideDatabase(
    acxHome,
    MemoryStore.completeBatch({
      sessionId,
      project,
      eventIds,
      observations,
      summary: {
        request: `the ${sessionId} request`,
        investigated: "",
        learned: "",
        completed: "done",
        nextSteps: "",
        filesRead: [],
        filesEdited: [],
        notes: ""
      },
      source: "local",
      ledger: []
    }, now)
  ))
}

const run = <A>(acxHome: string, effect: Effect.Effect<A, MemoryError, any>) =>
  Effect.runPromise(provideDatabase(acxHome, effect))

const fail = <A>(acxHome: string, effect: Effect.Effect<A, MemoryError, any>) =>
  Effect.runPromise(provideDatabase(acxHome, Effect.either(effect))).then((either) => {
    if (Either.isRight(either)) throw new Error(`expected a failure, got ${JSON.stringify(either.right)}`)
    return either.left
  })

const world = async () => {
  const { acxHome, project } = makeHome()
  const t0 = Date.UTC(2026, 0, 10, 12)
  await seed(acxHome, project, "s-a", [
    observation("Cart rounding fixed", "The cart total rounded tax twice", "bugfix"),
    observation("Checkout uses Stripe", "Payments go through the stripe adapter", "decision")
  ], t0)
  await seed(acxHome, project, "s-b", [observation("Invoice layout", "Invoices list the tax per line")], t0 + 60_000)
  return { acxHome, project, t0 }
}

const titles = async (acxHome: string, words: string) =>
  (await run(acxHome, MemorySearch.search(words))).map((result) => result.id).sort()

describe("MemoryCuration", () => {
  it("forgets by id: search, get, timeline, context and status leave it out; restore brings it all back", async () => {
    const { acxHome, project } = await world()
    const context = HookRunner.contextFor(acxHome, project)
    expect(context).toContain("Cart rounding fixed")
    expect(await titles(acxHome, "tax")).toEqual(["O1", "O3"])

    expect(await run(acxHome, MemoryCuration.forget({ ids: ["O1", "O9"] }))).toEqual(["O1"])
    // forgetting it again changes nothing and says so
    expect(await run(acxHome, MemoryCuration.forget({ ids: ["o1"] }))).toEqual([])
    expect(await titles(acxHome, "tax")).toEqual(["O3"])
    expect(await run(acxHome, MemorySearch.get(["O1", "O2"]))).toHaveLength(1)
    expect((await fail(acxHome, MemorySearch.show("O1"))).reason).toBe("NotFound")
    const timeline = await run(acxHome, MemorySearch.timeline("O2"))
    expect(timeline.map((entry) => entry.id)).not.toContain("O1")
    expect(HookRunner.contextFor(acxHome, project)).not.toContain("Cart rounding fixed")
    const paths = MemoryConfig.paths(acxHome)
    const status = await run(acxHome, MemoryAdmin.status(paths, MemoryConfig.load(acxHome)))
    expect([status.counts.observations, status.forgotten]).toEqual([2, { observations: 1, summaries: 0 }])

    expect(await run(acxHome, MemoryCuration.restore(["O1", "O2"]))).toEqual(["O1"])
    expect(await titles(acxHome, "tax")).toEqual(["O1", "O3"])
    expect(HookRunner.contextFor(acxHome, project)).toBe(context)
    expect((await run(acxHome, MemorySearch.show("O1"))).fields["title"]).toBe("Cart rounding fixed")
  })

  it("forgets summaries by id: out of the context and search, back on restore", async () => {
    const { acxHome, project } = await world()
    expect(HookRunner.contextFor(acxHome, project)).toContain("the s-a request")
    expect(await run(acxHome, MemoryCuration.forget({ ids: ["S1"] }))).toEqual(["S1"])
    expect(HookRunner.contextFor(acxHome, project)).not.toContain("the s-a request")
    expect(await titles(acxHome, "request")).toEqual(["S2"])
    expect(await run(acxHome, MemoryCuration.restore(["S1"]))).toEqual(["S1"])
    expect(await titles(acxHome, "request")).toEqual(["S1", "S2"])
  })

  it("forgets what a filter selects (words, type, session, project, time), in one call", async () => {
    const { acxHome, project, t0 } = await world()
    expect(await run(acxHome, MemoryCuration.forget({ filter: { project, query: "tax" } }))).toEqual(["O1", "O3"])
    expect(await titles(acxHome, "tax")).toEqual([])
    expect(await run(acxHome, MemoryCuration.restore(["O1", "O3"]))).toEqual(["O1", "O3"])
    expect(await run(acxHome, MemoryCuration.forget({ filter: { type: "decision" } }))).toEqual(["O2"])
    expect(await run(acxHome, MemoryCuration.forget({ filter: { session: "s-b" } }))).toEqual(["O3"])
    expect(await run(acxHome, MemoryCuration.forget({ filter: { before: t0 + 1 } }))).toEqual(["O1"])
    expect(await run(acxHome, MemoryCuration.forget({ filter: { project: "/elsewhere" } }))).toEqual([])
    expect(query(acxHome, "SELECT count(*) AS n FROM memory_observations WHERE forgotten_at IS NULL")[0]!["n"]).toBe(0)
  })

  it("refuses selections that name nothing, with nothing changed", async () => {
    const { acxHome } = await world()
    for (
      const selection of [
        { ids: [] },
        { ids: ["O1", "P1"] },
        { ids: ["../x"] },
        { filter: {} },
        { filter: { query: "!!" } }
      ] satisfies ReadonlyArray<MemoryCuration.ForgetSelection>
    ) {
      expect((await fail(acxHome, MemoryCuration.forget(selection))).reason).toBe("InvalidArgument")
    }
    expect((await fail(acxHome, MemoryCuration.restore(["x"]))).reason).toBe("InvalidArgument")
    expect(query(acxHome, "SELECT count(*) AS n FROM memory_observations WHERE forgotten_at IS NOT NULL")[0]!["n"])
      .toBe(0)
  })

  it("migrates a database at migration 2 to the latest, data and context unchanged", async () => {
    const { acxHome, project } = makeHome()
    fs.mkdirSync(acxHome, { recursive: true })
    const file = MemoryConfig.paths(acxHome).database
    // the file as the previous release wrote it: migrations 1 and 2 only
    const db = new Database(file)
    Sqlite.configure(db)
    db.exec(migrationsTableSql)
    for (const migration of migrations.filter((m) => m.id <= 2)) {
      for (const statement of migration.statements) db.exec(statement)
      db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (migration_id, name) VALUES (?, ?)`).run(migration.id, migration.name)
    }
    const insert = db.prepare(
      `INSERT INTO memory_observations (session_id, project, type, title, narrative, source, created_at)
       VALUES (?, ?, ?, ?, ?, 'local', ?)`
    )
    for (let i = 0; i < 5; i++) {
      insert.run("s-old", project, "change", `Old change ${i}`, "before", 1_700_000_000_000 + i)
    }
    // what the previous release's hook injected: its query, without the new column
    const before = MemoryContext.render(
      project,
      (db.prepare(
        "SELECT id, type, title, subtitle, created_at FROM memory_observations WHERE project = ? ORDER BY created_at DESC"
      ).all(project) as Array<{ id: number; type: string; title: string; subtitle: null; created_at: number }>).map((
        row
      ) => ({ _tag: "Observation" as const, ...row, createdAt: row.created_at })),
      MemoryConfig.defaults.contextTokens
    )
    db.close()

    // the ui's way in: never creates, migrates with the hook's immediate transaction
    const ids = await Effect.runPromise(
      MemoryCuration.forget({ ids: ["O2"] }).pipe(Effect.provide(MemoryDatabase.layerExisting(file)))
    )
    expect(ids).toEqual(["O2"])
    expect(query(acxHome, `SELECT max(migration_id) AS id FROM ${MIGRATIONS_TABLE}`)[0]!["id"]).toBe(
      migrations.at(-1)!.id
    )
    expect(query(acxHome, "SELECT count(*) AS n FROM memory_observations")[0]!["n"]).toBe(5)
    await run(acxHome, MemoryCuration.restore(["O2"]))
    expect(HookRunner.contextFor(acxHome, project)).toBe(before)
    expect(HookRunner.contextReport(acxHome, project)).toEqual({ context: before, text: before })
    expect(HookRunner.contextReport(acxHome, "/nowhere").text).toBe("(nothing remembered for /nowhere yet)")
  })

  it("layerExisting never creates a database", async () => {
    const { acxHome } = makeHome()
    const file = MemoryConfig.paths(acxHome).database
    const error = await Effect.runPromise(
      Effect.flip(MemoryCuration.restore(["O1"]).pipe(Effect.provide(MemoryDatabase.layerExisting(file))))
    )
    expect(error.reason).toBe("NotFound")
    expect(fs.existsSync(file)).toBe(false)
    expect(fs.existsSync(acxHome)).toBe(false)
  })
})
