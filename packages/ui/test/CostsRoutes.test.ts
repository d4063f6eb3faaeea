/**
 * `GET /api/costs` over real HTTP on the fixtures: its `day` is the document `acx stats --by day
 * --json` prints (computed here by `collectStats`, the function the CLI calls) for the same range,
 * its other groupings agree with it, and a bad range is a 400 with one line.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as CostsView from "../src/CostsView.js"
import { startServer, type TestServer } from "./utils/server.js"

let t: TestServer
let home: string
let previousHome: string | undefined

// the fixtures' days: 2025-09-07, 2025-10-10, 2025-10-12, 2026-02-10, 2026-02-11
const RANGES: ReadonlyArray<StatsReport.DayRange> = [
  { since: "2025-10-01", until: "2026-02-11" },
  { since: "2025-09-01", until: "2025-10-12" }
]

const query = (range: StatsReport.DayRange): string =>
  `?${new URLSearchParams(Object.entries(range).filter((entry): entry is [string, string] => entry[1] !== undefined))}`

const costs = async (search: string): Promise<CostsView.CostsResponse> => {
  const response = await t.request(`/api/costs${search}`)
  expect(response.status).toBe(200)
  return (await response.json()) as CostsView.CostsResponse
}

const cliDocument = (range: StatsReport.DayRange) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.make({ configDir: t.configDir, cacheDir: path.join(home, "cache") })
      // what `acx stats --by day --since … --until … --json` prints
      return SessionStats.statsJson(yield* SessionStats.collectStats(projects, undefined, { by: "day", range }))
    }).pipe(Effect.provide(NodeContext.layer))
  )

beforeAll(async () => {
  // collectStats reads pricing.json and its cache from $ACX_HOME, as the CLI does: the server's home
  home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-costs-home-"))
  previousHome = process.env["ACX_HOME"]
  process.env["ACX_HOME"] = home
  t = await startServer({ acxHome: home })
  // the first request folds every transcript into the cache; after it, both read the cache alike
  await costs("")
})

afterAll(async () => {
  await t.close()
  if (previousHome === undefined) delete process.env["ACX_HOME"]
  else process.env["ACX_HOME"] = previousHome
  fs.rmSync(home, { recursive: true, force: true })
})

describe("GET /api/costs", () => {
  for (const range of [...RANGES, {}]) {
    it(`serves acx stats --by day --json as its day document (${JSON.stringify(range)})`, async () => {
      const expected = await cliDocument(range)
      const body = await costs(query(range))
      // field by field, so a failure names the field
      for (const field of Object.keys(expected) as Array<keyof typeof expected>) {
        expect({ field, value: body.day[field] }).toEqual({ field, value: JSON.parse(JSON.stringify(expected[field])) })
      }
      expect(Object.keys(body.day).sort()).toEqual(Object.keys(expected).sort())
      expect(expected.rows.length).toBeGreaterThan(1)
    })
  }

  it("draws the day document: each day's models add up to the day's figures", async () => {
    const { day, series } = await costs(query(RANGES[0]!))
    expect(series.days[0]).toBe(RANGES[0]!.since)
    expect(series.days[series.days.length - 1]).toBe(RANGES[0]!.until)
    for (const row of day.rows) {
      const d = series.days.indexOf(row.key)
      expect(d).toBeGreaterThanOrEqual(0)
      const tokens = series.tokens.reduce((sum, model) => sum + model[d]!, 0)
      const usd = series.usd.reduce((sum, model) => sum + model[d]!, 0)
      expect(tokens).toBe(row.tokens.total)
      expect(usd).toBeCloseTo(row.costUSD, 9)
    }
    expect([...series.models].sort()).toEqual(Object.keys(day.total.models).sort())
  })

  it("groups the same fold by project and by session: they add up to the total", async () => {
    const { day, projects, sessions } = await costs(query(RANGES[0]!))
    expect(projects.reduce((sum, p) => sum + p.tokens.total, 0)).toBe(day.total.tokens.total)
    expect(projects.reduce((sum, p) => sum + p.costUSD, 0)).toBeCloseTo(day.total.costUSD, 9)
    expect(projects.reduce((sum, p) => sum + p.sessions, 0)).toBe(day.total.sessions)
    for (const project of projects) {
      if (project.cwd !== null) expect(project.cwd.endsWith(project.name)).toBe(true)
    }
    // fewer than 20 sessions in the fixtures: every one of the range is listed, most dollars first
    expect(sessions.length).toBe(day.total.sessions)
    expect(sessions.reduce((sum, s) => sum + s.tokens, 0)).toBe(day.total.tokens.total)
    const dollars = sessions.map((s) => s.costUSD)
    expect(dollars).toEqual([...dollars].sort((a, b) => b - a))
    const list = (await (await t.request("/api/sessions")).json()) as { sessions: Array<{ sessionId: string }> }
    for (const session of sessions) {
      expect(list.sessions.map((s) => s.sessionId)).toContain(session.sessionId)
      expect(session.project).not.toBe("")
    }
  })

  it("refuses a bad range with 400 and one line", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["?since=2025-02-30", `since: "2025-02-30" is not a date (YYYY-MM-DD or YYYYMMDD)`],
      ["?until=March", `until: "March" is not a date (YYYY-MM-DD or YYYYMMDD)`],
      ["?since=20260211&until=2025-10-01", "since 2026-02-11 is after until 2025-10-01"]
    ]
    for (const [search, message] of cases) {
      const response = await t.request(`/api/costs${search}`)
      expect(response.status).toBe(400)
      const body = (await response.json()) as { error: string }
      expect(body).toEqual({ error: message })
      expect(body.error).not.toContain("\n")
    }
  })

  it("reads an empty bound as none (the page's empty date field)", async () => {
    const body = await costs("?since=&until=2025-10-12")
    expect(body.day.since).toBeNull()
    expect(body.day.until).toBe("2025-10-12")
    const all = await costs("")
    expect(body.day.rows.map((row) => row.key)).toEqual(
      all.day.rows.map((row) => row.key).filter((key) => key <= "2025-10-12")
    )
  })
})
