import * as Pricing from "@acx/convert/Pricing"
import { sessionStats } from "@acx/convert/Stats"
import * as StatsFold from "@acx/convert/StatsFold"
import * as StatsReport from "@acx/convert/StatsReport"
import { usageOf } from "@acx/convert/Usage"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

const pricing = Pricing.builtinPricing
const ctx = (kind: "main" | "subagent" = "main"): StatsFold.FoldContext => ({
  pricing,
  dayOf: StatsFold.localDayOf(),
  kind
})

const files = Fixtures.transcriptFiles()
const linesOf = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")

const foldLines = (lines: ReadonlyArray<string>, state = StatsFold.empty(), kind: "main" | "subagent" = "main") => {
  const c = ctx(kind)
  for (const line of lines) StatsFold.foldLine(state, line, c)
  return state
}

/** Through the cache's JSON, as TranscriptStats keeps it. */
const roundTrip = (state: StatsFold.FoldState) =>
  StatsFold.restore(JSON.parse(JSON.stringify(StatsFold.serialise(state))))!

const sumModels = (state: StatsFold.FoldState) => {
  const out: Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> = {}
  for (const day of Object.values(state.days)) {
    for (const [model, cell] of Object.entries(day.models)) {
      const acc = out[model] ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
      acc.input += cell.input
      acc.output += cell.output
      acc.cacheRead += cell.cacheRead
      acc.cacheWrite += cell.cacheWrite5m + cell.cacheWrite1h
    }
  }
  return out
}

const counts = (state: StatsFold.FoldState) => {
  const out = {
    user: 0,
    assistant: 0,
    toolResults: 0,
    meta: 0,
    compactions: 0,
    toolCalls: {} as Record<string, number>
  }
  for (const day of Object.values(state.days)) {
    out.user += day.user
    out.assistant += day.assistant
    out.toolResults += day.toolResults
    out.meta += day.meta
    out.compactions += day.compactions
    for (const [name, n] of Object.entries(day.toolCalls)) out.toolCalls[name] = (out.toolCalls[name] ?? 0) + n
  }
  return out
}

/** Days with costs rounded (sums taken in a different order differ in the last bits). */
const comparable = (state: StatsFold.FoldState) =>
  JSON.parse(JSON.stringify(state.days, (key, value) => key === "costUSD" ? Math.round(value * 1e9) : value))

describe("StatsFold on the fixtures", () => {
  it.each(files.map((file) => [Fixtures.relative(file), file]))(
    "%s: the same figures as usageOf (last fragment) and sessionStats",
    (_, file) => {
      const lines = linesOf(file)
      const state = foldLines(lines)
      const entries = lines.map((line) => JSON.parse(line) as unknown)
      const usage = usageOf(entries)
      const stats = sessionStats(entries)
      const { "<unknown>": unknown, ...byModel } = sumModels(state)
      expect(byModel).toEqual(usage.byModel)
      expect(unknown).toBeUndefined()
      const c = counts(state)
      expect(c).toEqual({
        user: stats.messages.user,
        assistant: stats.messages.assistant,
        toolResults: stats.messages.toolResults,
        meta: stats.messages.meta,
        compactions: stats.compactions,
        toolCalls: stats.toolCalls
      })
      expect(state.malformed).toBe(0)
    }
  )

  it("stopped at any line, cached and continued, a file folds to what one pass gives", () => {
    const all = files.map(linesOf)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: all.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (i, at) => {
        const lines = all[i]!
        const cut = Math.floor(at * lines.length)
        const whole = foldLines(lines)
        const resumed = foldLines(lines.slice(cut), roundTrip(foldLines(lines.slice(0, cut))))
        expect(comparable(resumed)).toEqual(comparable(whole))
        expect(resumed.agents).toEqual(whole.agents)
      }),
      { numRuns: 60 }
    )
  })

  // the fold remembers the last cell, timestamp and message key it met (module state): folds that
  // take turns, line by line, must each come out as alone
  it("two files folded in turns, line by line, each fold to what they fold alone", () => {
    const all = files.map(linesOf)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
        (i, j, turns) => {
          const [a, b] = [all[i]!, all[j]!]
          const [foldA, foldB] = [StatsFold.empty(), StatsFold.empty()]
          const [ctxA, ctxB] = [ctx(), ctx("subagent")]
          let [atA, atB, turn] = [0, 0, 0]
          while (atA < a.length || atB < b.length) {
            const first = turns[turn++ % turns.length]!
            if ((first && atA < a.length) || atB >= b.length) StatsFold.foldLine(foldA, a[atA++]!, ctxA)
            else StatsFold.foldLine(foldB, b[atB++]!, ctxB)
          }
          expect(comparable(foldA)).toEqual(comparable(foldLines(a)))
          expect(comparable(foldB)).toEqual(comparable(foldLines(b, StatsFold.empty(), "subagent")))
          expect(foldA.hours).toEqual(foldLines(a).hours)
          expect(foldB.hours).toEqual(foldLines(b, StatsFold.empty(), "subagent").hours)
        }
      ),
      { numRuns: 40 }
    )
  })

  it("a message whose fragments straddle the cut counts once, with its last fragment", () => {
    const fragment = (output: number, block: unknown) =>
      JSON.stringify({
        type: "assistant",
        timestamp: "2026-03-01T10:00:00.000Z",
        requestId: "req_1",
        message: {
          id: "msg_1",
          model: "claude-sonnet-4-5",
          content: [block],
          usage: {
            input_tokens: 10,
            output_tokens: output,
            cache_creation_input_tokens: 100,
            cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 }
          }
        }
      })
    const lines = [
      fragment(1, { type: "text", text: "Let me look" }),
      JSON.stringify({ type: "user", timestamp: "2026-03-01T10:00:01.000Z", message: { content: "x" } }),
      fragment(50, { type: "tool_use", id: "t1", name: "Bash", input: {} })
    ]
    const resumed = foldLines(lines.slice(2), roundTrip(foldLines(lines.slice(0, 2))))
    const day = Object.values(resumed.days)[0]!
    expect(day.assistant).toBe(1)
    expect(day.models["claude-sonnet-4-5"]).toMatchObject({
      messages: 1,
      input: 10,
      output: 50,
      cacheWrite5m: 40,
      cacheWrite1h: 60
    })
    expect(day.models["claude-sonnet-4-5"]!.costUSD).toBeCloseTo((10 * 3 + 50 * 15 + 40 * 3.75 + 60 * 6) / 1e6, 15)
    expect(day.toolCalls).toEqual({ Bash: 1 })
  })

  it("active time: gaps up to 5 minutes count, longer ones do not; subagent files add none", () => {
    const at = (iso: string) => JSON.stringify({ type: "user", timestamp: iso, message: { content: "hi" } })
    const lines = [
      at("2026-03-01T10:00:00Z"),
      at("2026-03-01T10:04:00Z"),
      at("2026-03-01T11:00:00Z"),
      at("2026-03-01T11:01:30Z")
    ]
    const total = (state: StatsFold.FoldState) => Object.values(state.days).reduce((n, d) => n + d.activeMs, 0)
    expect(total(foldLines(lines))).toBe(4 * 60_000 + 90_000)
    expect(total(foldLines(lines, StatsFold.empty(), "subagent"))).toBe(0)
  })

  it("is total: any line and any restored value, never a throw", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json())), (lines) => {
        const state = foldLines(lines)
        expect(StatsFold.restore(JSON.parse(JSON.stringify(StatsFold.serialise(state))))).toBeDefined()
      })
    )
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const restored = StatsFold.restore(value)
        if (restored !== undefined) {
          foldLines(["{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"usage\":{}}}"], restored)
        }
      }),
      { numRuns: 500 }
    )
    const odd = foldLines([
      JSON.stringify({ type: "assistant", message: { id: "m", model: "__proto__", usage: { input_tokens: 5 } } }),
      JSON.stringify({ type: "assistant", message: { content: [{ type: "tool_use", name: "__proto__" }] } })
    ])
    expect(Object.keys(odd.days[StatsFold.UNDATED]!.models)).toEqual(["__proto__"])
    expect(Object.keys(odd.days[StatsFold.UNDATED]!.toolCalls)).toEqual(["__proto__"])
    expect(({} as Record<string, unknown>)["input"]).toBeUndefined()
  })
})

describe("StatsReport", () => {
  const folds: Array<StatsReport.FileFold> = files.map((file, i) => ({
    file,
    projectKey: `p${i % 2}`,
    sessionId: path.basename(file, ".jsonl"),
    fold: foldLines(linesOf(file), StatsFold.empty(), file.includes("/subagents/") ? "subagent" : "main")
  }))

  it("every grouping's rows add up to the same total, and every row's models add up to the row", () => {
    const totals = StatsReport.groupings.map((by) => StatsReport.report(folds, by, {}, pricing).total)
    for (const total of totals) {
      expect(total.tokens).toEqual(totals[0]!.tokens)
      expect(total.costUSD).toBeCloseTo(totals[0]!.costUSD, 9)
    }
    for (const by of StatsReport.groupings) {
      const { rows, total } = StatsReport.report(folds, by, {}, pricing)
      expect(rows.reduce((n, row) => n + row.tokens.total, 0), by).toBe(total.tokens.total)
      expect(rows.reduce((n, row) => n + row.costUSD, 0), by).toBeCloseTo(total.costUSD, 9)
      for (const row of rows) {
        const models = Object.values(row.models)
        expect(models.reduce((n, m) => n + m.tokens.total, 0)).toBe(row.tokens.total)
        expect(models.reduce((n, m) => n + (m.costUSD ?? 0), 0)).toBeCloseTo(row.costUSD, 9)
        if (by === "model") expect(Object.keys(row.models)).toEqual([row.key])
      }
    }
    expect(totals[0]!.costUSD).toBeGreaterThan(0)
    expect(totals[0]!.unpriced).toEqual([])
  })

  it("--since/--until keep whole local days; undated entries only without a range", () => {
    const days = StatsReport.report(folds, "day", {}, pricing).rows.map((row) => row.key)
    expect(days.length).toBeGreaterThan(2)
    const middle = days[Math.floor(days.length / 2)]!
    const from = StatsReport.report(folds, "day", { since: middle }, pricing).rows.map((row) => row.key)
    const to = StatsReport.report(folds, "day", { until: middle }, pricing).rows.map((row) => row.key)
    expect(from).toEqual(days.filter((day) => day >= middle && day !== StatsFold.UNDATED))
    expect(to).toEqual(days.filter((day) => day <= middle))
    expect(StatsReport.report(folds, "day", { since: middle, until: middle }, pricing).rows.map((r) => r.key))
      .toEqual([middle])
  })

  it("a model without a price is listed as unpriced, with its tokens and no dollars", () => {
    const fold = foldLines([
      JSON.stringify({
        type: "assistant",
        timestamp: "2026-03-01T10:00:00Z",
        message: { id: "m", model: "gpt-double", usage: { input_tokens: 1000, output_tokens: 10 } }
      })
    ])
    const { total } = StatsReport.report(
      [{ file: "s.jsonl", projectKey: "p", sessionId: "s", fold }],
      "model",
      {},
      pricing
    )
    expect(total.unpriced).toEqual(["gpt-double"])
    expect(total.models["gpt-double"]).toMatchObject({ costUSD: null, tokens: { total: 1010 } })
    expect(total.costUSD).toBe(0)
  })

  it("weeks start on Monday", () => {
    expect(StatsReport.weekOf("2026-11-24")).toBe("2026-11-23")
    expect(StatsReport.weekOf("2026-11-23")).toBe("2026-11-23")
    expect(StatsReport.weekOf("2026-11-22")).toBe("2026-11-16")
    expect(StatsReport.weekOf("2027-01-01")).toBe("2026-12-28")
    expect(StatsReport.weekOf(StatsFold.UNDATED)).toBe(StatsFold.UNDATED)
  })
})

describe("withoutLongStrings", () => {
  /** What the statistics see: every string (and key) over the limit replaced by "". */
  const shortened = (value: unknown): unknown => {
    const cut = (text: string) => (JSON.stringify(text).length > StatsFold.LONG_STRING ? "" : text)
    if (typeof value === "string") return cut(value)
    if (Array.isArray(value)) return value.map(shortened)
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, v]) => [cut(key), shortened(v)]))
    }
    return value
  }

  it("parses to the value with its long strings emptied, whatever the escapes", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.string({ unit: fc.constantFrom("\"", "\\", "a", "é", "\n", "😀", "\u0000"), minLength: 200, maxLength: 900 })
    )
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text,
        fc.integer(),
        fc.boolean(),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(text, tie("node"), { maxKeys: 4 })
      )
    })).node
    fc.assert(
      fc.property(value, (v) => {
        expect(JSON.parse(StatsFold.withoutLongStrings(JSON.stringify(v)))).toEqual(shortened(v))
      }),
      { numRuns: 500 }
    )
  })

  it("a line cut inside a string stays unparseable", () => {
    const line = JSON.stringify({ type: "user", content: "x".repeat(5000) })
    expect(() => JSON.parse(StatsFold.withoutLongStrings(line.slice(0, 3000)))).toThrow()
    const state = StatsFold.empty()
    StatsFold.foldLine(state, line.slice(0, 4500), ctx())
    expect(state.malformed).toBe(1)
  })

  it("parseTimestamp is Date.parse for any string, ISO-shaped ones with odd fields included", () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"))
    const iso = fc.tuple(
      fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
      two(19),
      two(39),
      two(29),
      two(69),
      two(69),
      fc.integer({ min: 0, max: 999 }).map((n) => String(n).padStart(3, "0")),
      fc.constantFrom("Z", "z", "+", " ")
    ).map(([y, mo, d, h, mi, s, ms, z]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${z}`)
    // one minute in a row, as a transcript has them, and the minute's cache changing between calls
    fc.assert(
      fc.property(
        fc.array(fc.oneof(iso, fc.string(), fc.constant("2026-10-31T24:00:00.000Z")), { maxLength: 20 }),
        (texts) => {
          for (const text of texts) expect(Object.is(StatsFold.parseTimestamp(text), Date.parse(text))).toBe(true)
        }
      ),
      { numRuns: 2000 }
    )
    for (const text of ["2026-10-31T23:59:60.000Z", "2026-02-30T10:00:00.000Z", "2026-10-31T24:00:01.000Z"]) {
      expect(Object.is(StatsFold.parseTimestamp(text), Date.parse(text))).toBe(true)
    }
  })
})
