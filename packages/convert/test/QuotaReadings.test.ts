import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as QuotaReadings from "../src/QuotaReadings.js"

const window = fc.constantFrom<QuotaReadings.Window>("five_hour", "seven_day")
const reading: fc.Arbitrary<QuotaReadings.Reading> = fc.record({
  at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  window,
  usedPercentage: fc.oneof(fc.integer({ min: 0, max: 250 }), fc.double({ min: 0, max: 250, noNaN: true })),
  resetsAt: fc.integer({ min: 0, max: 4_102_444_800 })
})

describe("QuotaReadings", () => {
  it("a reading survives its line exactly, in the file's key order", () => {
    fc.assert(
      fc.property(reading, (r) => {
        const line = QuotaReadings.encode(r)
        expect(line).toMatch(
          /^\{"at":[^,]+,"window":"(five_hour|seven_day)","usedPercentage":[^,]+,"resetsAt":[^,]+\}$/
        )
        expect(line.length).toBeLessThan(QuotaReadings.MAX_LINE)
        expect(QuotaReadings.decodeLine(line)).toEqual(r)
      })
    )
    expect(QuotaReadings.encode({ at: 1700000000123, window: "five_hour", usedPercentage: 42.5, resetsAt: 1700003600 }))
      .toBe("{\"at\":1700000000123,\"window\":\"five_hour\",\"usedPercentage\":42.5,\"resetsAt\":1700003600}")
  })

  it("decodeLine is total: any text is a reading or undefined, never a throw", () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const r = QuotaReadings.decodeLine(text)
      if (r !== undefined) expect(QuotaReadings.decodeLine(QuotaReadings.encode(r))).toEqual(r)
    }))
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      QuotaReadings.decodeLine(JSON.stringify(value))
    }))
    for (
      const bad of [
        "",
        "null",
        "[1]",
        "{\"at\":1,\"window\":\"one_hour\",\"usedPercentage\":1,\"resetsAt\":1}",
        "{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":-1,\"resetsAt\":1}",
        "{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":\"5\",\"resetsAt\":1}",
        "{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":5}",
        "{\"__proto__\":{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":5,\"resetsAt\":1}}",
        "{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":5,\"resetsAt\":1",
        `{"at":1,"window":"five_hour","usedPercentage":5,"resetsAt":1,"pad":"${"x".repeat(2000)}"}`,
        "[".repeat(100_000),
        "\uFFFD\uD800{}"
      ]
    ) expect(QuotaReadings.decodeLine(bad)).toBeUndefined()
    // keys added by a later writer are ignored
    expect(QuotaReadings.decodeLine("{\"at\":1,\"window\":\"seven_day\",\"usedPercentage\":5,\"resetsAt\":9,\"x\":1}"))
      .toEqual({ at: 1, window: "seven_day", usedPercentage: 5, resetsAt: 9 })
  })

  it("a statusline input gives one reading per well-formed window, anything else none", () => {
    const input = {
      model: { id: "claude-opus-4-5" },
      rate_limits: {
        five_hour: { used_percentage: 37, resets_at: 1_764_300_000 },
        seven_day: { used_percentage: 12.5, resets_at: 1_764_800_000 }
      }
    }
    expect(QuotaReadings.fromStatusline(input, 1000)).toEqual([
      { at: 1000, window: "five_hour", usedPercentage: 37, resetsAt: 1_764_300_000 },
      { at: 1000, window: "seven_day", usedPercentage: 12.5, resetsAt: 1_764_800_000 }
    ])
    expect(QuotaReadings.fromStatusline({ rate_limits: { five_hour: { used_percentage: 3, resets_at: 5 } } }, 7))
      .toEqual([{ at: 7, window: "five_hour", usedPercentage: 3, resetsAt: 5 }])
    expect(QuotaReadings.fromStatusline(input, Number.NaN)).toEqual([])
    fc.assert(fc.property(fc.anything(), fc.integer({ min: 0 }), (anything, now) => {
      for (const r of QuotaReadings.fromStatusline(anything, now)) {
        expect(QuotaReadings.decodeLine(QuotaReadings.encode(r))).toEqual(r)
        expect(r.at).toBe(now)
      }
      const wrapped = QuotaReadings.fromStatusline({
        rate_limits: { five_hour: anything, seven_day: { used_percentage: anything, resets_at: anything } }
      }, now)
      expect(wrapped.length).toBeLessThanOrEqual(2)
    }))
  })

  it("isNew: recorded only when the percentage or the reset time changed", () => {
    fc.assert(fc.property(reading, reading, (a, b) => {
      expect(QuotaReadings.isNew(undefined, a)).toBe(true)
      expect(QuotaReadings.isNew(a, { ...a, at: b.at })).toBe(false)
      const same = { ...b, window: a.window }
      expect(QuotaReadings.isNew(a, same)).toBe(
        a.usedPercentage !== same.usedPercentage || a.resetsAt !== same.resetsAt
      )
    }))
  })

  it("toRecord never writes a reading equal to its window's last, and the file then decodes to the deduplicated stream", () => {
    fc.assert(fc.property(fc.array(fc.array(reading, { maxLength: 2 }), { maxLength: 30 }), (ticks) => {
      let file = ""
      for (const tick of ticks) {
        const sorted = tick.map((r, i) => ({ ...r, at: i }))
        for (const r of QuotaReadings.toRecord(QuotaReadings.decodeText(file), sorted)) {
          file += QuotaReadings.encode(r) + "\n"
        }
      }
      const kept = QuotaReadings.decodeText(file)
      for (const w of QuotaReadings.windows) {
        const mine = kept.filter((r) => r.window === w)
        for (let i = 1; i < mine.length; i++) expect(QuotaReadings.isNew(mine[i - 1], mine[i]!)).toBe(true)
      }
      // the latest reading of a window seen again records nothing
      const last = QuotaReadings.latest(kept)
      for (const w of QuotaReadings.windows) {
        const l = last[w]
        if (l !== undefined) expect(QuotaReadings.toRecord(kept, [{ ...l, at: l.at + 1 }])).toEqual([])
      }
    }))
  })

  it("summarize: first, last and peak of one window's readings in [start, end)", () => {
    fc.assert(
      fc.property(
        fc.array(reading, { maxLength: 40 }),
        window,
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (readings, w, a, b) => {
          const range = { window: w, startMs: Math.min(a, b), endMs: Math.max(a, b) }
          const inside = readings.filter((r) => r.window === w && r.at >= range.startMs && r.at < range.endMs)
          const summary = QuotaReadings.summarize(readings, range)
          if (inside.length === 0) {
            expect(summary).toBeUndefined()
            return
          }
          expect(summary?.count).toBe(inside.length)
          expect(summary?.peakPercentage).toBe(Math.max(...inside.map((r) => r.usedPercentage)))
          expect(summary?.first.at).toBe(Math.min(...inside.map((r) => r.at)))
          expect(summary?.last.at).toBe(Math.max(...inside.map((r) => r.at)))
          expect(inside).toContain(summary?.first)
          expect(inside).toContain(summary?.last)
        }
      )
    )
  })
})
