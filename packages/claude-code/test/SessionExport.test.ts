import { JsonValue } from "@acx/schema/Json"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { jsonArrayLines } from "../src/SessionExport.js"

describe("jsonArrayLines", () => {
  it("is JSON.stringify(values, null, 2) plus a newline, written element by element", () => {
    fc.assert(
      fc.property(fc.array(Arbitrary.make(JsonValue)), (values) => {
        expect([...jsonArrayLines(values)].join("")).toBe(JSON.stringify(values, null, 2) + "\n")
      }),
      { numRuns: 500 }
    )
    expect([...jsonArrayLines([])].join("")).toBe("[]\n")
    expect([...jsonArrayLines([{ a: "x\ny", b: [1, { c: null }] }])].join("")).toBe(
      JSON.stringify([{ a: "x\ny", b: [1, { c: null }] }], null, 2) + "\n"
    )
  })
})
