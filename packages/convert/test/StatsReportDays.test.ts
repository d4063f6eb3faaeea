import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as StatsReport from "../src/StatsReport.js"

const pad = (n: number, width = 2) => String(n).padStart(width, "0")
const ymd = (date: Date) =>
  [pad(date.getUTCFullYear(), 4), pad(date.getUTCMonth() + 1), pad(date.getUTCDate())] as const
const anyDay = fc.date({
  min: new Date("0001-01-01T00:00:00Z"),
  max: new Date("9999-12-31T00:00:00Z"),
  noInvalidDate: true
})

describe("StatsReport days", () => {
  it("reads every real day in both spellings, spaces around allowed", () => {
    fc.assert(
      fc.property(anyDay, (date) => {
        const [y, m, d] = ymd(date)
        const day = `${y}-${m}-${d}`
        expect(StatsReport.parseDay(day)).toBe(day)
        expect(StatsReport.parseDay(` ${y}${m}${d}\t`)).toBe(day)
      })
    )
  })

  it("refuses days that do not exist and text that is no day", () => {
    for (const bad of ["2025-02-29", "2024-02-30", "2025-13-01", "2025-00-10", "2025-04-31", "1900-02-29"]) {
      expect(StatsReport.parseDay(bad)).toBeUndefined()
    }
    expect(StatsReport.parseDay("2024-02-29")).toBe("2024-02-29")
    expect(StatsReport.parseDay("0000-02-29")).toBe("0000-02-29")
    fc.assert(
      fc.property(fc.string(), (text) => {
        const day = StatsReport.parseDay(text)
        if (day !== undefined) expect(text.trim().replace(/-/g, "")).toBe(day.replace(/-/g, ""))
      })
    )
  })

  it("a day starts at local midnight of that day, and text that is no day has no start", () => {
    fc.assert(
      fc.property(anyDay, (date) => {
        const [y, m, d] = ymd(date)
        const start = StatsReport.localDayStart(`${y}${m}${d}`)!
        const local = new Date(start)
        expect([local.getFullYear(), local.getMonth() + 1, local.getDate()]).toEqual([Number(y), Number(m), Number(d)])
        expect([local.getHours(), local.getMinutes(), local.getSeconds(), local.getMilliseconds()]).toEqual([
          0,
          0,
          0,
          0
        ])
        // the previous instant is the day before
        expect(new Date(start - 1).getDate()).not.toBe(local.getDate())
      })
    )
    for (const bad of ["2025-02-29", "yesterday", "", "2025-1-1"]) {
      expect(StatsReport.localDayStart(bad)).toBeUndefined()
    }
  })

  it("accepts a range whose bounds are days in order, and says why it refuses one", () => {
    fc.assert(
      fc.property(anyDay, anyDay, (a, b) => {
        const [since, until] = [ymd(a).join("-"), ymd(b).join("-")]
        const parsed = StatsReport.parseDayRange(since, until)
        if (since <= until) expect(parsed).toEqual({ _tag: "Range", range: { since, until } })
        else {
          expect(parsed).toEqual({ _tag: "Reversed", since, until })
          expect(StatsReport.dayRangeMessage(parsed as StatsReport.DayRangeProblem, (x) => `--${x}`)).toBe(
            `--since ${since} is after --until ${until}`
          )
        }
      })
    )
    expect(StatsReport.parseDayRange(undefined, undefined)).toEqual({ _tag: "Range", range: {} })
    const bad = StatsReport.parseDayRange("2025-01-01", "soon")
    expect(bad).toEqual({ _tag: "NotADate", bound: "until", value: "soon" })
    expect(StatsReport.dayRangeMessage(bad as StatsReport.DayRangeProblem)).toBe(
      `until: "soon" is not a date (YYYY-MM-DD or YYYYMMDD)`
    )
  })
})
