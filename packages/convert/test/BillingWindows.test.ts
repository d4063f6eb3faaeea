import * as BillingWindows from "@acx/convert/BillingWindows"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"

const H = StatsFold.HOUR_MS
const ctx: StatsFold.FoldContext = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" }
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0)

interface Message {
  readonly ms: number
  readonly model: string
  readonly output: number
}

// Messages up to 3 days after T0, some on exact hours (where `≥` and `>` differ)
const message: fc.Arbitrary<Message> = fc.record({
  ms: fc.oneof(
    fc.integer({ min: 0, max: 72 * H }),
    fc.integer({ min: 0, max: 72 }).map((h) => h * H)
  ).map((offset) => T0 + offset),
  model: fc.constantFrom("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "my-own-model"),
  output: fc.integer({ min: 1, max: 5000 })
})

const entryOf = (m: Message, i: number) => ({
  type: "assistant",
  timestamp: new Date(m.ms).toISOString(),
  requestId: `req_${i}`,
  message: {
    id: `msg_${i}`,
    role: "assistant",
    model: m.model,
    content: [],
    usage: { input_tokens: 10, output_tokens: m.output }
  }
})

const foldOf = (messages: ReadonlyArray<Message>) => {
  const state = StatsFold.empty()
  messages.forEach((m, i) => StatsFold.foldEntry(state, entryOf(m, i), ctx))
  return state
}

// ccusage's rule as written there (sorted messages; a new block when past the block's length or
// after a long gap), with acx's `≥`.
const reference = (messages: ReadonlyArray<Message>) => {
  const sorted = [...messages].sort((a, b) => a.ms - b.ms)
  const blocks: Array<{ startMs: number; messages: Array<Message> }> = []
  for (const m of sorted) {
    const current = blocks.at(-1)
    const last = current?.messages.at(-1)
    if (
      current === undefined || last === undefined || m.ms - current.startMs >= BillingWindows.WINDOW_MS ||
      m.ms - last.ms >= BillingWindows.WINDOW_MS
    ) {
      blocks.push({ startMs: Math.floor(m.ms / H) * H, messages: [m] })
    } else current.messages.push(m)
  }
  return blocks
}

describe("BillingWindows", () => {
  it("cuts the same windows as ccusage's rule over the messages themselves, from hourly folds", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 60 }), (messages) => {
        const blocks = BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf(messages)]))
        const expected = reference(messages)
        expect(blocks.map((b) => b.startMs)).toEqual(expected.map((b) => b.startMs))
        blocks.forEach((block, i) => {
          const mine = expected[i]!.messages
          expect(block.endMs).toBe(block.startMs + 5 * H)
          expect(block.total.messages).toBe(mine.length)
          expect(block.total.output).toBe(mine.reduce((n, m) => n + m.output, 0))
          expect(block.firstMs).toBe(mine[0]!.ms)
          expect(block.lastMs).toBe(mine.at(-1)!.ms)
          expect(Object.keys(block.models)).toEqual([...new Set(mine.map((m) => m.model))].sort())
          // every message inside its window; windows never overlap
          for (const m of mine) expect(m.ms >= block.startMs && m.ms < block.endMs).toBe(true)
          if (i > 0) expect(block.startMs).toBeGreaterThanOrEqual(blocks[i - 1]!.endMs)
        })
      })
    )
  })

  it("files fold apart and add up: the windows of many files are those of their messages together", () => {
    fc.assert(
      fc.property(fc.array(fc.array(message, { maxLength: 15 }), { maxLength: 5 }), (files) => {
        const apart = BillingWindows.blocksOf(BillingWindows.mergeHours(files.map(foldOf)))
        const together = BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf(files.flat())]))
        expect(apart.map((b) => [b.startMs, b.total.messages, b.total.output, b.firstMs, b.lastMs])).toEqual(
          together.map((b) => [b.startMs, b.total.messages, b.total.output, b.firstMs, b.lastMs])
        )
      })
    )
  })

  it("a message exactly 5 h after the window's start opens the next window (ccusage keeps it in the old one)", () => {
    const blocks = BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf([
      { ms: T0 + 30 * 60_000, model: "claude-sonnet-4-5-20250929", output: 1 },
      { ms: T0 + 5 * H, model: "claude-sonnet-4-5-20250929", output: 1 },
      { ms: T0 + 11 * H + 1, model: "claude-sonnet-4-5-20250929", output: 1 }
    ])]))
    expect(blocks.map((b) => b.startMs)).toEqual([T0, T0 + 5 * H, T0 + 11 * H])
    const spans = BillingWindows.withGaps(blocks)
    expect(spans.map((s) => s._tag)).toEqual(["Block", "Block", "Gap", "Block"])
    expect(spans[2]).toEqual({ _tag: "Gap", startMs: T0 + 10 * H, endMs: T0 + 11 * H })
  })

  it("a late fragment replaces its message's figures in the hour of the first fragment", () => {
    const state = StatsFold.empty()
    const first = entryOf({ ms: T0 + 59 * 60_000, model: "claude-sonnet-4-5-20250929", output: 5 }, 1)
    StatsFold.foldEntry(state, first, ctx)
    const restored = StatsFold.restore(JSON.parse(JSON.stringify(StatsFold.serialise(state))))!
    const later = entryOf({ ms: T0 + 61 * 60_000, model: "claude-sonnet-4-5-20250929", output: 900 }, 1)
    StatsFold.foldEntry(restored, later, ctx)
    const [block] = BillingWindows.blocksOf(BillingWindows.mergeHours([restored]))
    expect(block?.startMs).toBe(T0)
    expect(block?.total.messages).toBe(1)
    expect(block?.total.output).toBe(900)
    expect(Object.keys(restored.hours)).toEqual([String(T0)])
  })

  it("burn rate over first..last message; projection only for the active window", () => {
    const blocks = BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf([
      { ms: T0 + 10 * 60_000, model: "claude-sonnet-4-5-20250929", output: 1000 },
      { ms: T0 + 70 * 60_000, model: "claude-sonnet-4-5-20250929", output: 1000 }
    ])]))
    const block = blocks[0]!
    const burn = BillingWindows.burnRate(block)!
    expect(burn.tokensPerHour).toBeCloseTo(BillingWindows.tokensOf(block.total), 6)
    expect(burn.costPerHour).toBeCloseTo(block.total.costUSD, 9)
    expect(BillingWindows.projection(block, T0 + 5 * H)).toBeUndefined()
    const now = T0 + 2 * H
    const p = BillingWindows.projection(block, now)!
    expect(p.remainingMs).toBe(3 * H)
    expect(p.costUSD).toBeCloseTo(block.total.costUSD * 4, 9)
    expect(BillingWindows.currentBlock([foldOf([{ ms: T0 + 1, model: "x", output: 1 }])], now)?.startMs).toBe(T0)
    expect(BillingWindows.currentBlock([foldOf([{ ms: T0 + 1, model: "x", output: 1 }])], T0 + 5 * H)).toBeUndefined()
    // one message: no time spanned, no rate
    expect(
      BillingWindows.burnRate(
        BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf([{ ms: T0, model: "x", output: 1 }])]))[0]!
      )
    ).toBeUndefined()
  })

  it("no burn rate and no projection until the messages span 10 minutes; then the window's own pace", () => {
    // messages inside one window, from a second apart to the whole window
    const burst = fc.array(
      fc.record({
        ms: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 5 * H - 1 })).map((o) => T0 + o),
        model: fc.constantFrom("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"),
        output: fc.integer({ min: 1, max: 50_000 })
      }),
      { minLength: 1, maxLength: 20 }
    )
    fc.assert(
      fc.property(burst, fc.integer({ min: 0, max: 5 * H - 1 }), (messages, nowOffset) => {
        const block = BillingWindows.blocksOf(BillingWindows.mergeHours([foldOf(messages)]))[0]!
        const nowMs = Math.max(block.lastMs, T0 + nowOffset)
        const spanMs = block.lastMs - block.firstMs
        const burn = BillingWindows.burnRate(block)
        const projected = BillingWindows.projection(block, nowMs)
        if (spanMs < BillingWindows.MIN_RATE_SPAN_MS) {
          expect(burn).toBeUndefined()
          expect(projected).toBeUndefined()
          return
        }
        expect(burn!.costPerHour).toBeCloseTo(block.total.costUSD / (spanMs / H), 9)
        if (nowMs >= block.endMs) return expect(projected).toBeUndefined()
        // what it has cost, plus its pace over the time left: never more than the pace of the
        // shortest span allows over a whole window
        expect(projected!.costUSD).toBeCloseTo(block.total.costUSD + burn!.costPerHour * (block.endMs - nowMs) / H, 9)
        expect(projected!.costUSD).toBeGreaterThanOrEqual(block.total.costUSD)
        expect(projected!.costUSD).toBeLessThanOrEqual(
          block.total.costUSD * (1 + BillingWindows.WINDOW_MS / BillingWindows.MIN_RATE_SPAN_MS) + 1e-9
        )
      })
    )
  })

  it("the fixtures' transcripts: windows hold every counted message and dollar of the day folds", () => {
    for (const file of Fixtures.transcriptFiles()) {
      const state = StatsFold.empty()
      for (const line of fs.readFileSync(file, "utf8").split("\n")) StatsFold.foldLine(state, line, ctx)
      const blocks = BillingWindows.blocksOf(BillingWindows.mergeHours([state]))
      let dayMessages = 0
      let dayCost = 0
      for (const [day, cell] of Object.entries(state.days)) {
        if (day === StatsFold.UNDATED) continue
        for (const m of Object.values(cell.models)) {
          dayMessages += m.messages
          dayCost += m.costUSD
        }
      }
      expect(blocks.reduce((n, b) => n + b.total.messages, 0)).toBe(dayMessages)
      expect(blocks.reduce((n, b) => n + b.total.costUSD, 0)).toBeCloseTo(dayCost, 9)
    }
  })

  it("damaged hours in a cache are refused, never trusted", () => {
    const good = JSON.parse(JSON.stringify(StatsFold.serialise(foldOf([{ ms: T0, model: "x", output: 1 }]))))
    expect(StatsFold.restore(good)).toBeDefined()
    for (
      const hours of [undefined, [], { [T0]: { firstMs: "x", lastMs: 1, models: {} } }, {
        [T0]: { firstMs: 1, lastMs: 1, models: { x: { messages: 1 } } }
      }]
    ) {
      expect(StatsFold.restore({ ...good, hours })).toBeUndefined()
    }
  })
})
