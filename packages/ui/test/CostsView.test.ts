import type * as StatsReport from "@acx/convert/StatsReport"
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as CostOutliers from "../src/CostOutliers.js"
import * as CostsView from "../src/CostsView.js"
import type * as UiApi from "../src/UiApi.js"

const MODELS = ["claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5", "no-price-model"] as const

type Usage = Readonly<Record<string, { readonly cost: number | null; readonly tokens: number }>>

const tokensOf = (total: number): StatsReport.Tokens => ({
  input: total,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  total
})

// a report row as StatsReport.report writes one: cost of the priced models, the others unpriced
const row = (key: string, usage: Usage, extra: { projectKey?: string; firstMs?: number } = {}): StatsReport.Row => {
  const models = Object.fromEntries(
    Object.entries(usage).map(([model, u]) => [model, {
      messages: 1,
      tokens: tokensOf(u.tokens),
      webSearchRequests: 0,
      costUSD: u.cost
    }])
  )
  const all = Object.values(usage)
  return {
    key,
    ...(extra.projectKey === undefined ? {} : { projectKey: extra.projectKey }),
    sessions: 1,
    messages: { user: 1, assistant: all.length, toolResults: 0, meta: 0 },
    toolCalls: {},
    compactions: 0,
    subagents: 0,
    firstMs: extra.firstMs,
    lastMs: extra.firstMs,
    activeMs: 0,
    spanMs: 0,
    tokens: tokensOf(all.reduce((sum, u) => sum + u.tokens, 0)),
    costUSD: all.reduce((sum, u) => sum + (u.cost ?? 0), 0),
    unpriced: Object.entries(usage).filter(([, u]) => u.cost === null).map(([model]) => model),
    models
  }
}

const usage: fc.Arbitrary<Usage> = fc.dictionary(
  fc.constantFrom(...MODELS),
  fc.record({ cost: fc.double({ min: 0, max: 500, noNaN: true }), tokens: fc.nat({ max: 1e9 }) })
).map((record) =>
  Object.fromEntries(
    Object.entries(record).map(([model, u]) => [model, { ...u, cost: model === "no-price-model" ? null : u.cost }])
  )
)

// a quarter (a leap day in it): the charts' days are filled in between the first and the last
const day = fc.date({
  min: new Date("2024-01-01T00:00:00Z"),
  max: new Date("2024-03-31T00:00:00Z"),
  noInvalidDate: true
})
  .map((date) => date.toISOString().slice(0, 10))

// day rows: distinct days, sometimes the undated row of entries without a timestamp
const dayRows = fc.tuple(
  fc.uniqueArray(day, { maxLength: 25 }),
  fc.array(usage, { minLength: 25, maxLength: 25 }),
  fc.option(usage, { nil: undefined })
).map(([days, usages, undated]) => [
  ...days.map((key, i) => row(key, usages[i]!)),
  ...(undated === undefined ? [] : [row("undated", undated)])
])

const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)))

describe("CostsView.daySeries", () => {
  it("has every day from the first to the last once, and each dated row's figures by model", () => {
    fc.assert(
      fc.property(dayRows, (rows) => {
        const series = CostsView.daySeries(rows, {})
        const dated = rows.filter((r) => r.key !== "undated").sort((a, b) => a.key.localeCompare(b.key))
        if (dated.length === 0) {
          expect(series).toEqual({ days: [], models: [], usd: [], tokens: [] })
          return
        }
        expect(series.days[0]).toBe(dated[0]!.key)
        expect(series.days[series.days.length - 1]).toBe(dated[dated.length - 1]!.key)
        // consecutive days, one day apart
        for (let i = 1; i < series.days.length; i++) {
          expect(Date.parse(series.days[i]!) - Date.parse(series.days[i - 1]!)).toBe(86_400_000)
        }
        expect(new Set(series.models)).toEqual(new Set(dated.flatMap((r) => Object.keys(r.models))))
        for (const values of [...series.usd, ...series.tokens]) expect(values.length).toBe(series.days.length)
        for (const r of dated) {
          const d = series.days.indexOf(r.key)
          expect(series.tokens.reduce((sum, model) => sum + model[d]!, 0)).toBe(r.tokens.total)
          close(series.usd.reduce((sum, model) => sum + model[d]!, 0), r.costUSD)
        }
        // a day without a row has nothing
        const keys = new Set(dated.map((r) => r.key))
        const empty = series.days.flatMap((key, d) => keys.has(key) ? [] : series.tokens.map((model) => model[d]))
        expect(empty.every((value) => value === 0)).toBe(true)
        // models ordered by their dollars over the range, most first
        const dollars = series.usd.map((model) => model.reduce((a, b) => a + b, 0))
        for (let m = 1; m < dollars.length; m++) expect(dollars[m - 1]!).toBeGreaterThanOrEqual(dollars[m]!)
      })
    )
  })

  it("fills in the range's bounds, unless that makes more than MAX_FILLED_DAYS days", () => {
    const rows = [row("2025-10-10", { a: { cost: 1, tokens: 10 } })]
    const filled = CostsView.daySeries(rows, { since: "2025-10-01", until: "2025-10-31" })
    expect(filled.days.length).toBe(31)
    expect(filled.usd).toEqual([filled.days.map((d) => (d === "2025-10-10" ? 1 : 0))])
    expect(CostsView.daySeries(rows, { since: "1900-01-01" }).days).toEqual(["2025-10-10"])
    expect(CostsView.daySeries([], { since: "2025-10-01", until: "2025-10-31" }).days).toEqual([])
  })

  it("counts a model without a price as 0 dollars but keeps its tokens", () => {
    const series = CostsView.daySeries([row("2025-01-01", { x: { cost: null, tokens: 7 } })], {})
    expect(series).toEqual({ days: ["2025-01-01"], models: ["x"], usd: [[0]], tokens: [[7]] })
  })
})

describe("CostsView.stack", () => {
  it("stacks: the last row is the column sums, each row at least the one below it", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat({ max: 1e9 }), { maxLength: 12 }), { maxLength: 8 }), (series) => {
        const stacked = CostsView.stack(series)
        expect(stacked.length).toBe(series.length)
        if (series.length === 0) return
        const width = Math.max(...series.map((r) => r.length))
        const sums = Array.from({ length: width }, (_, i) => series.reduce((s, r) => s + (r[i] ?? 0), 0))
        expect(stacked[stacked.length - 1]).toEqual(sums)
        expect(stacked[0]).toEqual(Array.from({ length: width }, (_, i) => series[0]![i] ?? 0))
        for (let m = 1; m < stacked.length; m++) {
          for (let i = 0; i < width; i++) expect(stacked[m]![i]! - stacked[m - 1]![i]!).toBe(series[m]![i] ?? 0)
        }
      })
    )
  })
})

const projectRow = (projectKey: string, name: string): UiApi.ProjectRow => ({
  projectKey,
  name,
  cwd: `/home/u/${name}`,
  sessions: 1
})

const sessionRow = (sessionId: string, projectKey: string, title: string | null, prompt: string | null) =>
  ({
    sessionId,
    projectKey,
    file: `/config/projects/${projectKey}/${sessionId}.jsonl`,
    ...(title === null ? {} : { title }),
    ...(prompt === null ? {} : { firstPrompt: prompt }),
    mtime: 0,
    size: 0
  }) satisfies UiApi.SessionRow

describe("CostsView rows", () => {
  it("names projects from the sessions list and orders them by dollars", () => {
    const report = {
      by: "project" as const,
      rows: [row("-a", { m: { cost: 1, tokens: 5 } }), row("-b", { m: { cost: 3, tokens: 1 } }), row("-c", {})],
      total: row("total", {}),
      malformed: 0
    }
    const rows = CostsView.projectCosts(report, [projectRow("-a", "app"), projectRow("-b", "api")])
    expect(rows.map((r) => [r.projectKey, r.name, r.costUSD])).toEqual([["-b", "api", 3], ["-a", "app", 1], [
      "-c",
      "-c",
      0
    ]])
  })

  it("names a project across machines by its remote, or by its path's last segment; lists the keys it gathers", () => {
    const report = {
      by: "project" as const,
      rows: [
        { ...row("github.com/org/app", { m: { cost: 2, tokens: 5 } }), projectKeys: ["-a", "-b"] },
        { ...row("/home/dev/tool", { m: { cost: 1, tokens: 1 } }), projectKeys: ["-home-dev-tool"] }
      ],
      total: row("total", {}),
      malformed: 0
    }
    const rows = CostsView.projectCosts(report, [projectRow("-a", "app")])
    expect(rows.map((r) => [r.projectKey, r.name, r.cwd, r.projectKeys])).toEqual([
      // the remote's title: the cwd of a clone
      ["github.com/org/app", "github.com/org/app", "/home/u/app", ["-a", "-b"]],
      ["/home/dev/tool", "tool", "/home/dev/tool", ["-home-dev-tool"]]
    ])
  })

  it("orders machines and users by dollars, then tokens, then name", () => {
    const report = {
      by: "machine" as const,
      rows: [
        row("b", { m: { cost: 1, tokens: 1 } }),
        row("a", { m: { cost: 1, tokens: 1 } }),
        row("c", { m: { cost: 5, tokens: 0 } })
      ],
      total: row("total", {}),
      malformed: 0
    }
    expect(CostsView.originCosts(report).map((r) => r.key)).toEqual(["c", "a", "b"])
  })

  it("lists the sessions that cost most, titled, masked and flagged as the sessions page flags them", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 40 }),
        fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.integer({ min: 0, max: 25 }),
        (ids, costs, limit) => {
          const projectOf = (i: number) => (i % 3 === 0 ? "-a" : "-b")
          const rows = ids.map((id, i) =>
            row(id, { m: { cost: costs[i]!, tokens: i } }, { projectKey: projectOf(i), firstMs: i * 1000 })
          )
          const report = { by: "session" as const, rows, total: row("total", {}), malformed: 0 }
          const listed = ids.map((id, i) => sessionRow(id, projectOf(i), i % 2 === 0 ? `secret ${i}` : null, `p ${i}`))
          const top = CostsView.topSessions(
            report,
            report,
            listed,
            [projectRow("-a", "app"), projectRow("-b", "api")],
            (text) => text.replace("secret", "[REDACTED]"),
            limit
          )
          expect(top.length).toBe(Math.min(limit, ids.length))
          const dollars = top.map((s) => s.costUSD)
          expect(dollars).toEqual([...dollars].sort((a, b) => b - a))
          // nothing left out costs more than the cheapest listed
          const listedIds = new Set(top.map((s) => s.sessionId))
          const cheapest = Math.min(...dollars)
          for (const r of rows) if (!listedIds.has(r.key)) expect(r.costUSD).toBeLessThanOrEqual(cheapest)
          const flagged = CostOutliers.outliers(
            rows.map((r) => ({ sessionId: r.key, projectKey: r.projectKey!, costUSD: r.costUSD }))
          )
          for (const session of top) {
            const i = ids.indexOf(session.sessionId)
            expect(session.outlier).toBe(flagged.has(session.sessionId))
            expect(session.title).toBe(i % 2 === 0 ? `[REDACTED] ${i}` : `p ${i}`)
            expect(session.project).toBe(projectOf(i) === "-a" ? "app" : "api")
            expect(session.firstTimestamp).toBe(new Date(i * 1000).toISOString())
          }
        }
      )
    )
  })
})

describe("CostsView formatting", () => {
  it("writes dollars as the CLI does: cents for every amount (never $0.1043 beside $12.23), thousands grouped", () => {
    expect(CostsView.dollars(0)).toBe("$0.00")
    expect(CostsView.dollars(0.1043)).toBe("$0.10")
    expect(CostsView.dollars(0.004)).toBe("<$0.01")
    expect(CostsView.dollars(13.009)).toBe("$13.01")
    expect(CostsView.dollars(1234567.891)).toBe("$1,234,567.89")
    expect(CostsView.dollars(-2)).toBe("-$2.00")
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e12, noNaN: true }), (value) => {
        const text = CostsView.dollars(value)
        if (value > 0 && value < 0.005) {
          expect(text).toBe("<$0.01")
          return
        }
        expect(text).toMatch(/^\$\d{1,3}(,\d{3})*\.\d{2}$/)
        const parsed = Number(text.slice(1).replace(/,/g, ""))
        expect(Math.abs(parsed - value)).toBeLessThanOrEqual(0.005 + 1e-12 * value)
      })
    )
  })

  it("writes counts exactly with thousands grouped", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (value) => {
        const text = CostsView.tokenCount(value)
        expect(text).toMatch(/^\d{1,3}(,\d{3})*$/)
        expect(Number(text.replace(/,/g, ""))).toBe(value)
      })
    )
    expect(CostsView.tokenCount(15_780_123)).toBe("15,780,123")
  })

  it("counts the days between two days, both included", () => {
    expect(CostsView.daysBetween("2024-02-27", "2024-03-01")).toEqual([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01"
    ])
    expect(CostsView.daysBetween("2024-03-01", "2024-02-27")).toEqual([])
    expect(CostsView.daysBetween("undated", "2024-02-27")).toEqual([])
  })
})
