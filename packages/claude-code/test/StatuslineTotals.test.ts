import * as StatuslineTotals from "@acx/claude-code/StatuslineTotals"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const HOUR = 3_600_000
let seq = 0
const assistant = (ms: number, model = "claude-sonnet-4-5") =>
  JSON.stringify({
    type: "assistant",
    timestamp: new Date(ms).toISOString(),
    sessionId: "s",
    uuid: `u-${++seq}`,
    requestId: `req-${seq}`,
    message: {
      id: `msg-${seq}`,
      role: "assistant",
      model,
      usage: { input_tokens: 1000, output_tokens: 2000, cache_read_input_tokens: 5000, cache_creation_input_tokens: 0 },
      content: [{ type: "text", text: "ok" }]
    }
  }) + "\n"

const configDirWith = (lines: ReadonlyArray<string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-statusline-totals-"))
  fs.mkdirSync(path.join(dir, "projects", "-p"), { recursive: true })
  const file = path.join(dir, "projects", "-p", "11111111-1111-4111-8111-111111111111.jsonl")
  fs.writeFileSync(file, lines.join(""))
  return { dir, file }
}

// what `acx stats` counts for these lines (the fold by local day)
const statsCostOn = (lines: ReadonlyArray<string>, day: string): number => {
  const state = StatsFold.empty()
  const ctx = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" as const }
  for (const line of lines) StatsFold.foldLine(state, line.trimEnd(), ctx)
  return Object.values(state.days[day]?.models ?? {}).reduce((sum, cell) => sum + cell.costUSD, 0)
}

describe("StatuslineTotals.refresh", () => {
  it("gives today's cost as acx stats counts it, the current block, and folds only what was appended", () => {
    // local noon, so that every line of the last 20 minutes falls on today whatever the hour the
    // test runs at (just after midnight they would be yesterday's)
    const noon = new Date()
    noon.setHours(12, 30, 0, 0)
    const now = noon.getTime()
    const lines = [assistant(now - 30 * HOUR), assistant(now - 20 * 60_000), assistant(now - 10 * 60_000)]
    const { dir, file } = configDirWith(lines)
    const cacheDir = path.join(dir, "cache")
    try {
      const today = StatuslineTotals.today(now)
      const first = StatuslineTotals.refresh({ configDir: dir, cacheDir, pricing: Pricing.builtinPricing, nowMs: now })
      expect(first.day).toBe(today)
      expect(first.todayCostUSD).toBeCloseTo(statsCostOn(lines, today), 9)
      expect(first.todayCostUSD).toBeGreaterThan(0)
      expect(first.block).not.toBeNull()
      expect(first.block!.endMs).toBeGreaterThan(now)
      expect(first.block!.firstMs).toBe(now - 20 * 60_000)
      // the window rule of `acx stats --by block`, over the same fold's hours
      expect(first.block!.startMs).toBe(Math.floor((now - 20 * 60_000) / HOUR) * HOUR)
      expect(first.block!.burnUSDPerHour).toBeCloseTo(first.block!.costUSD / (10 / 60), 6)
      const summaryFile = StatuslineTotals.summaryFile(cacheDir, dir)
      expect(StatuslineTotals.readSummary(summaryFile, dir)).toEqual(first)
      expect(fs.statSync(summaryFile).size).toBeLessThan(1024)

      // an appended line is folded on from where the last refresh stopped
      const more = assistant(now - 60_000)
      fs.appendFileSync(file, more)
      const second = StatuslineTotals.refresh({ configDir: dir, cacheDir, pricing: Pricing.builtinPricing, nowMs: now })
      expect(second.todayCostUSD).toBeCloseTo(statsCostOn([...lines, more], today), 9)
      expect(second.block!.costUSD).toBeGreaterThan(first.block!.costUSD)

      // a damaged or foreign summary is no summary
      fs.writeFileSync(summaryFile, "{not json")
      expect(StatuslineTotals.readSummary(summaryFile, dir)).toBeUndefined()
      expect(StatuslineTotals.isStale(undefined, now, today)).toBe(true)
      expect(StatuslineTotals.isStale(second, now + StatuslineTotals.FRESH_MS + 1, today)).toBe(true)
      expect(StatuslineTotals.isStale(second, now, today)).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
