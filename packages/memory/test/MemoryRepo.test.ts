/**
 * `MemoryRepo`, the one service the memory's callers use:
 * - no package outside `@acx/memory` names a memory table in its sources (the page, the demo and
 *   the CLI go through the service; a source scan keeps it so);
 * - its lists select exactly what a query says (a model of the stored rows, random queries:
 *   project, session, type, id bounds, id lists including the empty one, limits including
 *   negative, fractional, NaN and infinite ones, order, forgotten rows), on a real SQLite file;
 * - the live feed's start counts forgotten observations; the spend sums per day.
 */
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { migrations } from "../src/internal/migrations.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryRepo from "../src/MemoryRepo.js"
import * as MemorySeed from "../src/MemorySeed.js"

const packages = path.resolve(__dirname, "../..")

const tables = [
  ...new Set(
    migrations.flatMap((migration) =>
      migration.statements.flatMap((statement) => [...statement.matchAll(/CREATE (?:VIRTUAL )?TABLE (\w+)/gi)])
        .map((match) => match[1]!)
    )
  )
]

const sourcesOutsideMemory = (): Array<string> =>
  fs.readdirSync(packages).filter((name) => name !== "memory").flatMap((name) => {
    const src = path.join(packages, name, "src")
    if (!fs.existsSync(src)) return []
    return (fs.readdirSync(src, { recursive: true, encoding: "utf8" }))
      .filter((file) => /\.(ts|tsx|mts|mjs|js)$/.test(file))
      .map((file) => path.join(src, file))
  })

describe("MemoryRepo", () => {
  it("is the only way to the memory's tables: no other package's source names one", () => {
    expect(tables).toContain("memory_observations")
    expect(tables.length).toBeGreaterThanOrEqual(7)
    const named = sourcesOutsideMemory().flatMap((file) => {
      const text = fs.readFileSync(file, "utf8")
      return tables.filter((table) => new RegExp(`\\b${table}\\b`).test(text))
        .map((table) => `${path.relative(packages, file)}: ${table}`)
    })
    expect(named).toEqual([])
  })

  describe("on a seeded database", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-repo-"))
    const file = MemoryConfig.paths(home).database
    const run = <A>(effect: Effect.Effect<A, unknown, MemoryRepo.MemoryRepo>) =>
      Effect.runPromise(Effect.provide(effect, MemoryRepo.layerFile(file)))
    interface Stored {
      readonly id: number
      readonly project: string
      readonly sessionId: string
      readonly type: string
      forgotten: boolean
    }
    const stored: Array<Stored> = []
    const PROJECTS = ["/p/one", "/p/two"]
    const SESSIONS = ["s-a", "s-b", "s-c"]
    const TYPES = ["discovery", "change", "bugfix"] as const

    beforeAll(async () => {
      const rows = fc.sample(
        fc.record({
          project: fc.constantFrom(...PROJECTS),
          sessionId: fc.constantFrom(...SESSIONS),
          types: fc.array(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 4 })
        }),
        { numRuns: 25, seed: 22 }
      )
      await run(Effect.gen(function*() {
        const repo = yield* MemoryRepo.MemoryRepo
        for (const [index, batch] of rows.entries()) {
          yield* repo.completeBatch({
            sessionId: batch.sessionId,
            project: batch.project,
            eventIds: [],
            observations: batch.types.map((type) => MemorySeed.observation({ type, title: `${type} ${index}` })),
            summary: undefined,
            source: "local",
            ledger: []
          }, 1_000 + index)
        }
        const all = yield* repo.observations({ order: "oldest" })
        for (const row of all) {
          stored.push({ id: row.id, project: row.project, sessionId: row.sessionId, type: row.type, forgotten: false })
        }
        const forgotten = stored.filter((row) => row.id % 4 === 0)
        yield* repo.forget({ ids: forgotten.map((row) => `O${row.id}`) })
        for (const row of forgotten) row.forgotten = true
      }))
    })

    afterAll(() => fs.rmSync(home, { recursive: true, force: true }))

    // a limit that is no count is read totally: none or Infinity is no limit, NaN or below 0 is 0
    const limitOf = (limit: number | undefined) =>
      limit === undefined || limit === Number.POSITIVE_INFINITY
        ? stored.length
        : Number.isNaN(limit)
        ? 0
        : Math.max(0, Math.floor(limit))

    it("lists exactly the observations a query selects, in its order", async () => {
      const maxId = Math.max(...stored.map((row) => row.id))
      const query = fc.record({
        project: fc.option(fc.constantFrom(...PROJECTS, "/p/none"), { nil: undefined }),
        sessionId: fc.option(fc.constantFrom(...SESSIONS), { nil: undefined }),
        type: fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
        before: fc.option(fc.integer({ min: 0, max: maxId + 2 }), { nil: undefined }),
        after: fc.option(fc.integer({ min: 0, max: maxId + 2 }), { nil: undefined }),
        ids: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: maxId + 2 }), { maxLength: 6 }), { nil: undefined }),
        limit: fc.option(
          fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2.5)),
          { nil: undefined }
        ),
        order: fc.constantFrom("newest" as const, "oldest" as const),
        includeForgotten: fc.option(fc.boolean(), { nil: undefined })
      })
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const expected = stored
            .filter((row) =>
              (q.includeForgotten === true || !row.forgotten) &&
              (q.project === undefined || row.project === q.project) &&
              (q.sessionId === undefined || row.sessionId === q.sessionId) &&
              (q.type === undefined || row.type === q.type) &&
              (q.before === undefined || row.id < q.before) &&
              (q.after === undefined || row.id > q.after) &&
              (q.ids === undefined || q.ids.includes(row.id))
            )
            .sort((a, b) => q.order === "newest" ? b.id - a.id : a.id - b.id)
            .slice(0, limitOf(q.limit))
            .map((row) => row.id)
          const listed = await run(Effect.flatMap(MemoryRepo.MemoryRepo, (repo) => repo.observations(q)))
          expect(listed.map((row) => row.id)).toEqual(expected)
        }),
        { numRuns: 60 }
      )
    })

    it("starts a live feed after the newest observation, forgotten or not; an empty id list selects nothing", async () => {
      const newest = Math.max(...stored.map((row) => row.id))
      const [last, events, byIds] = await run(Effect.flatMap(MemoryRepo.MemoryRepo, (repo) =>
        Effect.all([
          Effect.flatMap(repo.forget({ ids: [`O${newest}`] }), () => repo.lastObservationId),
          repo.events({ ids: [], order: "oldest" }),
          repo.observations({ ids: [], order: "oldest", includeForgotten: true })
        ])))
      expect(last).toBe(newest)
      expect(events).toEqual([])
      expect(byIds).toEqual([])
    })
  })
})
