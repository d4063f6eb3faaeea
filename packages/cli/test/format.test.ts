/**
 * `format.usd` (`Money.usd`, the page's rule too) formats with one cached `Intl.NumberFormat`:
 * the same text as `toLocaleString` with the same options, which it replaced (each call built a
 * formatter), for any amount; the sign before the dollar sign.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as format from "../src/internal/format.js"

describe("format.usd", () => {
  it("is toLocaleString's text for any amount", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.double({ min: 0, max: 1e6 })), (value) => {
        const expected = !Number.isFinite(value)
          ? "-"
          : value > 0 && value < 0.005
          ? "<$0.01"
          : `${value <= -0.005 ? "-" : ""}$${
            Math.abs(value).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
          }`
        expect(format.usd(value)).toBe(expected)
      }),
      { numRuns: 2000 }
    )
    expect(format.usd(null)).toBe("unpriced")
    expect(format.usd(1234.5)).toBe("$1,234.50")
  })
})
