import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as Pricing from "../src/Pricing.js"
import * as StatsFold from "../src/StatsFold.js"
import * as StatsReport from "../src/StatsReport.js"

const MODEL = "claude-sonnet-4-5-20250929"

// A file whose one day holds `output` tokens of one message and `prompts` user prompts.
const fileFold = (
  projectKey: string,
  sessionId: string,
  origin: StatsReport.Origin | undefined,
  day: string,
  output: number,
  prompts: number
): StatsReport.FileFold => {
  const fold = StatsFold.empty()
  const model = { ...StatsFold.emptyModelCell(), messages: 1, output, costUSD: output / 1e6 }
  fold.days[day] = {
    firstMs: Date.parse(`${day}T10:00:00Z`),
    lastMs: Date.parse(`${day}T11:00:00Z`),
    activeMs: 1000,
    user: prompts,
    assistant: 1,
    toolResults: 0,
    meta: 0,
    compactions: 0,
    toolCalls: {},
    models: { [MODEL]: model }
  }
  return { file: `/${projectKey}/${sessionId}.jsonl`, projectKey, sessionId, fold, origin }
}

const small = (values: ReadonlyArray<string>) => fc.constantFrom(...values)
const anyOrigin = fc.option(
  fc.record({
    machine: small(["ana-laptop", "bo-desktop", "ci"]),
    user: small(["ana", "bo"]),
    project: small(["github.com/org/app", "/home/dev/app", "github.com/org/lib"])
  }),
  { nil: undefined }
)
// sessions with distinct ids; each session's files (main and subagents) share one origin
const anySessions = fc.uniqueArray(
  fc.record({
    projectKey: small(["-home-dev-app", "-Users-bo-src-app", "-tmp-x"]),
    sessionId: fc.uuid(),
    origin: anyOrigin,
    files: fc.array(
      fc.record({ day: small(["2026-01-05", "2026-01-06", "2026-02-01"]), output: fc.nat(5000), prompts: fc.nat(4) }),
      { minLength: 1, maxLength: 3 }
    )
  }),
  { selector: (session) => session.sessionId, maxLength: 12 }
)
const flatten = (
  sessions: ReadonlyArray<{
    projectKey: string
    sessionId: string
    origin: StatsReport.Origin | undefined
    files: ReadonlyArray<{ day: string; output: number; prompts: number }>
  }>
) =>
  sessions.flatMap((session) =>
    session.files.map((file) =>
      fileFold(session.projectKey, session.sessionId, session.origin, file.day, file.output, file.prompts)
    )
  )

const identities = ["project", "machine", "user"] as const

describe("StatsReport grouped by origin", () => {
  it("each session lands in exactly the row of its origin, and the rows add up to the total", () => {
    fc.assert(
      fc.property(anySessions, fc.constantFrom(...identities), (sessions, by) => {
        const files = flatten(sessions)
        const report = StatsReport.report(files, by, {}, Pricing.builtinPricing)
        const keys = new Map(files.map((file) => [file.sessionId, StatsReport.originKey(file, by)]))
        expect(report.rows.map((row) => row.key).sort()).toEqual([...new Set(keys.values())].sort())
        for (const row of report.rows) {
          expect(row.sessions).toBe([...keys.values()].filter((key) => key === row.key).length)
        }
        const sum = (pick: (row: StatsReport.Row) => number) => report.rows.reduce((n, row) => n + pick(row), 0)
        expect(sum((row) => row.sessions)).toBe(report.total.sessions)
        expect(sum((row) => row.tokens.output)).toBe(report.total.tokens.output)
        expect(sum((row) => row.messages.user)).toBe(report.total.messages.user)
        expect(sum((row) => row.costUSD)).toBeCloseTo(report.total.costUSD, 9)
      })
    )
  })

  it("a project row names the project keys it gathers; without origins, projects are the project keys", () => {
    fc.assert(
      fc.property(anySessions, (sessions) => {
        const files = flatten(sessions)
        const report = StatsReport.report(files, "project", {}, Pricing.builtinPricing)
        for (const row of report.rows) {
          const gathered = files.filter((file) => StatsReport.originKey(file, "project") === row.key)
          expect(row.projectKeys).toEqual([...new Set(gathered.map((file) => file.projectKey))].sort())
        }
        const bare = files.map(({ origin: _, ...file }) => file)
        const byKey = StatsReport.report(bare, "project", {}, Pricing.builtinPricing)
        expect(byKey.rows.map((row) => row.key)).toEqual([...new Set(bare.map((file) => file.projectKey))].sort())
        for (const row of byKey.rows) expect(row.projectKeys).toEqual([row.key])
      })
    )
  })

  it("a session without a recorded origin counts under the unknown machine and user", () => {
    const files = [
      fileFold("-a", "s1", undefined, "2026-01-05", 10, 1),
      fileFold("-a", "s2", { machine: "m1", user: "ana", project: "github.com/org/app" }, "2026-01-05", 20, 1)
    ]
    const machines = StatsReport.report(files, "machine", {}, Pricing.builtinPricing)
    expect(machines.rows.map((row) => [row.key, row.tokens.output])).toEqual([["m1", 20], ["unknown", 10]])
    const users = StatsReport.report(files, "user", {}, Pricing.builtinPricing)
    expect(users.rows.map((row) => [row.key, row.sessions])).toEqual([["ana", 1], ["unknown", 1]])
    const projects = StatsReport.report(files, "project", {}, Pricing.builtinPricing)
    expect(projects.rows.map((row) => [row.key, row.projectKeys])).toEqual([["-a", ["-a"]], [
      "github.com/org/app",
      ["-a"]
    ]])
  })

  it("lists machine and user among the groupings", () => {
    expect(StatsReport.groupings).toEqual(["session", "day", "week", "month", "model", "project", "machine", "user"])
  })
})
