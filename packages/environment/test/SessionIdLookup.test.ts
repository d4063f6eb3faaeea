/**
 * `SessionIdLookup`: exact id first, else the one id with the prefix (at least 4 characters),
 * case-insensitively (a UUID is hex: `A` and `a` are one digit); `Ambiguous` with the matches,
 * `NotFound`, and `Malformed` for anything that is not (a prefix of) a UUID.
 */
import * as SessionIdLookup from "@acx/environment/SessionIdLookup"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const ids = [
  "1f3a9c2e-0000-4000-8000-000000000001",
  "1f3a9c2e-0000-4000-8000-000000000002",
  "7b00aa11-2222-4333-8444-555555555555",
  "7b00"
]

describe("SessionIdLookup.lookup", () => {
  it("an exact id wins, even when it prefixes another", () => {
    expect(SessionIdLookup.lookupId(ids, "7b00")).toEqual({ _tag: "Found", value: "7b00" })
    expect(SessionIdLookup.lookupId(ids, ids[0]!)).toEqual({ _tag: "Found", value: ids[0] })
  })

  it("else the one id with the prefix; several are Ambiguous with the matches; none is NotFound", () => {
    expect(SessionIdLookup.lookupId(ids, "7b00a")).toEqual({ _tag: "Found", value: ids[2] })
    expect(SessionIdLookup.lookupId(ids, "1f3a")).toEqual({ _tag: "Ambiguous", matches: [ids[0], ids[1]] })
    expect(SessionIdLookup.lookupId(ids, "dead")).toEqual({ _tag: "NotFound" })
    expect(SessionIdLookup.lookupId([], "dead")).toEqual({ _tag: "NotFound" })
  })

  it("case does not matter, on either side", () => {
    expect(SessionIdLookup.lookupId(ids, "7B00AA11")).toEqual({ _tag: "Found", value: ids[2] })
    expect(SessionIdLookup.lookupId(["ABCDEF12-3456"], "abcdef")).toEqual({ _tag: "Found", value: "ABCDEF12-3456" })
  })

  it("anything but 4 to 36 hex digits and dashes, starting with a digit, is Malformed", () => {
    for (
      const query of ["", "1f3", "../1f3a", "1f3a/x", "1f3a.", "-1f3a", "session-a", "1f3a 9c", "g000", "a".repeat(37)]
    ) {
      expect(SessionIdLookup.lookupId(ids, query), JSON.stringify(query)).toEqual({ _tag: "Malformed" })
    }
  })

  it("finds values by the id a function reads", () => {
    const files = ids.map((id, index) => ({ id, index }))
    expect(SessionIdLookup.lookup(files, (file) => file.id, "7B00A")).toEqual({
      _tag: "Found",
      value: { id: ids[2], index: 2 }
    })
  })

  const uuid = fc.uuid()

  it("property: every id is found by itself and by any casing of it, among distinct ids", () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 1, maxLength: 20 }), fc.nat(), fc.boolean(), (all, pick, upper) => {
        const id = all[pick % all.length]!
        const query = upper ? id.toUpperCase() : id
        const found = SessionIdLookup.lookupId(all, query)
        return found._tag === "Found" && found.value === id
      })
    )
  })

  it("property: a prefix finds the id exactly when no other id shares it", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(uuid, { minLength: 1, maxLength: 20 }),
        fc.nat(),
        fc.integer({ min: 4, max: 36 }),
        (all, pick, length) => {
          const id = all[pick % all.length]!
          const prefix = id.slice(0, length)
          const sharing = all.filter((other) => other.startsWith(prefix))
          const found = SessionIdLookup.lookupId(all, prefix)
          if (sharing.length === 1) return found._tag === "Found" && found.value === id
          return found._tag === "Ambiguous" && found.matches.length === sharing.length
        }
      )
    )
  })
})
