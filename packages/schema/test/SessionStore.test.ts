import { SessionStore } from "@acx/schema"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

const decodeKey = Schema.decodeUnknownEither(SessionStore.SessionKey)

const key = (subpath?: string) =>
  subpath === undefined
    ? { projectKey: "-srv-app", sessionId: "44444444-4444-4444-4444-444444444444" }
    : { projectKey: "-srv-app", sessionId: "44444444-4444-4444-4444-444444444444", subpath }

describe("SessionStore.SessionKey subpath rules", () => {
  const table: ReadonlyArray<readonly [string | undefined, SessionStore.InvalidSessionKeyReason | undefined]> = [
    [undefined, undefined],
    ["subagents/agent-a1b2c3d4e5f6a7b8c", undefined],
    ["subagents/workflows/run-1/agent-x", undefined],
    ["subagents/journal", undefined],
    ["a", undefined],
    ["a..b", undefined],
    ["...", undefined],
    [".hidden/x", undefined],
    ["x/./y", undefined],
    ["", "EmptySubpath"],
    ["/abs", "AbsoluteSubpath"],
    ["/", "AbsoluteSubpath"],
    ["\\abs", "AbsoluteSubpath"],
    ["\\\\server\\share", "AbsoluteSubpath"],
    ["C:", "AbsoluteSubpath"],
    ["C:\\Users\\x", "AbsoluteSubpath"],
    ["c:/x", "AbsoluteSubpath"],
    ["..", "ParentSegment"],
    ["../x", "ParentSegment"],
    ["subagents/../../etc", "ParentSegment"],
    ["subagents/..", "ParentSegment"],
    ["subagents\\..\\x", "ParentSegment"]
  ]

  it.each(table)("subpath %j → %s", (subpath, reason) => {
    const result = SessionStore.validateKey(key(subpath))
    if (reason === undefined) {
      expect(result).toStrictEqual(Either.right(key(subpath)))
      expect(Either.isRight(decodeKey(key(subpath)))).toBe(true)
      if (subpath !== undefined) expect(SessionStore.checkSubpath(subpath)).toBeUndefined()
    } else {
      expect(Either.isLeft(result) && result.left.reason).toBe(reason)
      expect(Either.isLeft(decodeKey(key(subpath)))).toBe(true)
      expect(SessionStore.checkSubpath(subpath!)).toBe(reason)
    }
  })

  it("rejects empty parts and bad shapes", () => {
    const reasonOf = (value: unknown) => {
      const result = SessionStore.validateKey(value)
      return Either.isLeft(result) ? result.left.reason : undefined
    }
    expect(reasonOf({ projectKey: "", sessionId: "s" })).toBe("EmptyProjectKey")
    expect(reasonOf({ projectKey: "p", sessionId: "" })).toBe("EmptySessionId")
    expect(reasonOf(null)).toBe("InvalidShape")
    expect(reasonOf("p/s")).toBe("InvalidShape")
    expect(reasonOf({ projectKey: "p" })).toBe("InvalidShape")
    expect(reasonOf({ projectKey: "p", sessionId: 1 })).toBe("InvalidShape")
    expect(reasonOf({ projectKey: "p", sessionId: "s", subpath: 3 })).toBe("InvalidShape")
  })

  it("gives clear messages", () => {
    const result = SessionStore.validateKey(key("../x"))
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      const error = result.left
      expect(error._tag).toBe("InvalidSessionKey")
      expect(error).toBeInstanceOf(Error)
      expect(error.key).toStrictEqual(key("../x"))
      expect(error.message).toBe("Invalid session key (ParentSegment): subpath must not contain a '..' segment")
    }
    const decoded = decodeKey(key(""))
    expect(Either.isLeft(decoded) && decoded.left.message).toContain(
      "subpath must not be empty: omit it for the main transcript (got \"\")"
    )
    const absolute = decodeKey(key("C:\\x"))
    expect(Either.isLeft(absolute) && absolute.left.message).toContain("subpath must be relative")
  })

  it("preserves unknown fields and keeps main keys apart", () => {
    const value = { ...key("subagents/agent-1"), tenant: { id: 7 } }
    expect(Schema.decodeUnknownSync(SessionStore.SessionKey)(value)).toStrictEqual(value)
    expect(SessionStore.isMainKey(Schema.decodeUnknownSync(SessionStore.SessionKey)(key()))).toBe(true)
    expect(SessionStore.isMainKey(Schema.decodeUnknownSync(SessionStore.SessionKey)(key("a")))).toBe(false)
    expect(Schema.decodeUnknownSync(SessionStore.MainSessionKey)(key())).toStrictEqual(key())
  })

  it("property: generated keys are valid and round-trip", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(SessionStore.SessionKey), (generated) => {
        expect(Either.isRight(SessionStore.validateKey(generated))).toBe(true)
        const encoded = Schema.encodeSync(SessionStore.SessionKey)(generated)
        expect(Schema.decodeUnknownSync(SessionStore.SessionKey)(encoded)).toStrictEqual(generated)
      }),
      { numRuns: 300 }
    )
  })

  it("property: valid relative subpaths are accepted", () => {
    const segment = FastCheck.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/).filter((s) =>
      s !== ".." && !/^[A-Za-z]:/.test(s)
    )
    FastCheck.assert(
      FastCheck.property(FastCheck.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const subpath = segments.join("/")
        expect(Either.isRight(SessionStore.validateKey(key(subpath)))).toBe(true)
      })
    )
  })

  it("property: generated invalid subpaths are rejected", () => {
    const anything = FastCheck.string({ maxLength: 20 })
    const invalid = FastCheck.oneof(
      FastCheck.constant(""),
      FastCheck.tuple(FastCheck.constantFrom("/", "\\"), anything).map(([prefix, rest]) => prefix + rest),
      FastCheck.tuple(FastCheck.constantFrom(..."abcxyzABCXYZ"), FastCheck.constant(":"), anything)
        .map(([drive, colon, rest]) => drive + colon + rest),
      FastCheck.tuple(
        FastCheck.array(FastCheck.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 3 }),
        FastCheck.array(FastCheck.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 3 }),
        FastCheck.constantFrom("/", "\\")
      ).map(([before, after, separator]) => [...before, "..", ...after].join(separator))
    )
    FastCheck.assert(
      FastCheck.property(invalid, (subpath) => {
        expect(Either.isLeft(SessionStore.validateKey(key(subpath)))).toBe(true)
        expect(Either.isLeft(decodeKey(key(subpath)))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })
})

describe("SessionStore entries and summaries", () => {
  it("decodes entries keeping every field", () => {
    const entry = {
      type: "user",
      uuid: "u1",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: "hi" },
      parentUuid: null
    }
    expect(Schema.decodeUnknownSync(SessionStore.SessionStoreEntry)(entry)).toStrictEqual(entry)
    const title = { type: "custom-title", customTitle: "T", sessionId: "s" }
    expect(Schema.decodeUnknownSync(SessionStore.SessionStoreEntry)(title)).toStrictEqual(title)
    expect(Either.isLeft(Schema.decodeUnknownEither(SessionStore.SessionStoreEntry)({ uuid: "u" }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(SessionStore.SessionStoreEntry)({ type: "x", uuid: 1 }))).toBe(
      true
    )
  })

  it("checks summary mtimes", () => {
    const summary = { sessionId: "s", mtime: 1735732800000, data: { firstPrompt: "x", firstPromptLocked: true } }
    expect(Schema.decodeUnknownSync(SessionStore.SessionSummaryEntry)(summary)).toStrictEqual(summary)
    for (const mtime of [-1, 1.5, Number.NaN]) {
      expect(Either.isLeft(Schema.decodeUnknownEither(SessionStore.SessionSummaryEntry)({ ...summary, mtime }))).toBe(
        true
      )
    }
    expect(Schema.decodeUnknownSync(SessionStore.SessionListing)({ sessionId: "s", mtime: 0 })).toStrictEqual({
      sessionId: "s",
      mtime: 0
    })
  })

  it("property: entries and summaries round-trip", () => {
    for (const schema of [SessionStore.SessionStoreEntry, SessionStore.SessionSummaryEntry] as const) {
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(schema as Schema.Schema<unknown, unknown>), (value) => {
          const encoded = Schema.encodeSync(schema as Schema.Schema<unknown, unknown>)(value)
          expect(Schema.decodeUnknownSync(schema as Schema.Schema<unknown, unknown>)(encoded)).toStrictEqual(value)
        }),
        { numRuns: 100 }
      )
    }
  })
})

describe("SessionStore types line up with the SDK", () => {
  it("SessionKey", () => {
    expectTypeOf<Sdk.SessionKey>().toExtend<typeof SessionStore.SessionKey.Encoded>()
    expectTypeOf<SessionStore.SessionKey>().toExtend<Sdk.SessionKey>()
    expectTypeOf<SessionStore.MainSessionKey>().toExtend<Sdk.SessionKey>()
    expectTypeOf<typeof SessionStore.SessionKey.Encoded>().toExtend<Sdk.SessionKey>()
  })

  it("SessionStoreEntry", () => {
    expectTypeOf<Sdk.SessionStoreEntry>().toExtend<typeof SessionStore.SessionStoreEntry.Encoded>()
    expectTypeOf<SessionStore.SessionStoreEntry>().toExtend<Sdk.SessionStoreEntry>()
  })

  it("SessionSummaryEntry and listings", () => {
    expectTypeOf<Sdk.SessionSummaryEntry>().toExtend<typeof SessionStore.SessionSummaryEntry.Encoded>()
    expectTypeOf<SessionStore.SessionSummaryEntry>().toExtend<Sdk.SessionSummaryEntry>()
    type Listing = Awaited<ReturnType<NonNullable<Sdk.SessionStore["listSessions"]>>>[number]
    expectTypeOf<Listing>().toExtend<typeof SessionStore.SessionListing.Encoded>()
    expectTypeOf<SessionStore.SessionListing>().toExtend<Listing>()
  })
})
