/**
 * `CorruptEntry.decode`, the pure decoder of a stored row: every entry's JSON decodes back
 * deep-equal, every other text (not JSON, or JSON that is not an object with a string `type`)
 * is a `Left` with a reason, and it never throws.
 */
import * as CorruptEntry from "@acx/session-store/CorruptEntry"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"

const isEntry = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  typeof (value as { readonly type?: unknown }).type === "string"

describe("CorruptEntry.decode", () => {
  it("an entry's JSON decodes back deep-equal", () =>
    fc.assert(fc.property(
      fc.string(),
      fc.dictionary(fc.string(), fc.jsonValue()),
      (type, rest) => {
        const entry = { ...rest, type }
        const decoded = CorruptEntry.decode(JSON.stringify(entry))
        expect(Either.isRight(decoded)).toBe(true)
        expect(Either.getOrThrow(decoded)).toEqual(JSON.parse(JSON.stringify(entry)))
      }
    )))

  it("JSON that is not an object with a string type is a Left", () =>
    fc.assert(fc.property(fc.jsonValue().filter((value) => !isEntry(value)), (value) => {
      const decoded = CorruptEntry.decode(JSON.stringify(value))
      expect(Either.isLeft(decoded)).toBe(true)
    })))

  it("any text is decoded without throwing; text that is not JSON is a Left naming it", () =>
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
      const decoded = CorruptEntry.decode(text)
      let json = true
      try {
        JSON.parse(text)
      } catch {
        json = false
      }
      return json || (Either.isLeft(decoded) && decoded.left.startsWith("not JSON: "))
    })))

  it("torn lines, bare values and typeless objects are Lefts with a reason", () => {
    expect(CorruptEntry.decode(`{"type":"user","message":{"rol`)).toEqual(
      Either.left(expect.stringMatching(/^not JSON: /))
    )
    expect(CorruptEntry.decode("42")).toEqual(Either.left("not a JSON object: number"))
    expect(CorruptEntry.decode("[1]")).toEqual(Either.left("not a JSON object: array"))
    expect(CorruptEntry.decode("null")).toEqual(Either.left("not a JSON object: null"))
    expect(CorruptEntry.decode(`{"type":7}`)).toEqual(Either.left("no string \"type\""))
  })
})
