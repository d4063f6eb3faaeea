/**
 * Exactly-once delivery: `Reconcile`'s verdict (pure), its comparison against what the
 * emulator really reads back (property-tested over generated blobs), and the client's
 * `newestMessages` / `storeMessageOnce` over real HTTP with store-then-fail faults.
 */
import { AcontextClient } from "@acx/storage/AcontextClient"
import * as Reconcile from "@acx/storage/Reconcile"
import { AcontextEmulator } from "@acx/testing/AcontextEmulator"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { client, type ClientOptions, emulator } from "./utils/harness.js"

const SID = "77777777-7777-4777-8777-777777777777"

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] })
const stored = (id: string, message: unknown, meta?: { readonly [key: string]: unknown }) => ({ id, message, meta })

describe("verdict", () => {
  const blob = user("hello")

  it("an empty session: absent, the session is empty", () => {
    expect(Reconcile.verdict({ after: undefined, tail: [], blob, meta: null })).toStrictEqual({
      _tag: "Absent",
      after: null
    })
  })

  it("the newest message is the one known before: absent, even when equal", () => {
    const tail = [stored("a", user("x")), stored("b", blob)]
    expect(Reconcile.verdict({ after: "b", tail, blob, meta: null })).toStrictEqual({ _tag: "Absent", after: "b" })
  })

  it("a newer equal message: stored, with its id (after known or not)", () => {
    const tail = [stored("a", user("x")), stored("b", blob, {})]
    for (const after of ["a", undefined, null, "elsewhere"]) {
      expect(Reconcile.verdict({ after, tail, blob, meta: null })).toStrictEqual({ _tag: "Stored", id: "b" })
    }
  })

  it("a newer different message: absent, after it", () => {
    const tail = [stored("a", user("x"))]
    expect(Reconcile.verdict({ after: undefined, tail, blob, meta: null })).toStrictEqual({
      _tag: "Absent",
      after: "a"
    })
  })

  it("meta is compared when the server returned it, key order aside", () => {
    const assistant = { role: "assistant", content: [{ type: "text", text: "hi" }] }
    const meta = { model: "m", has_thinking: true }
    const same = [stored("a", assistant, { has_thinking: true, model: "m" })]
    const other = [stored("a", assistant, { model: "n", has_thinking: true })]
    const unknown = [stored("a", assistant)]
    expect(Reconcile.verdict({ after: undefined, tail: same, blob: assistant, meta })._tag).toBe("Stored")
    expect(Reconcile.verdict({ after: undefined, tail: other, blob: assistant, meta })._tag).toBe("Absent")
    expect(Reconcile.verdict({ after: undefined, tail: unknown, blob: assistant, meta })._tag).toBe("Stored")
  })

  it("roles and contents that differ are told apart; any input gives a verdict", () => {
    fc.assert(fc.property(fc.anything(), fc.anything(), (a, b) => {
      const verdict = Reconcile.verdict({ after: undefined, tail: [stored("x", a)], blob: b, meta: null })
      expect(verdict._tag === "Stored").toBe(Reconcile.readBackKey(a) === Reconcile.readBackKey(b))
    }))
    expect(Reconcile.readBackKey(user("a"))).not.toBe(Reconcile.readBackKey(user("b")))
    expect(Reconcile.readBackKey(user("a"))).not.toBe(Reconcile.readBackKey({ role: "assistant", content: "a" }))
  })

  it("ambiguous failures: no answer, a timeout, a server error", () => {
    expect(["Transport", "Timeout", "Server"].every(Reconcile.isAmbiguousReason)).toBe(true)
    expect(["RateLimited", "BadRequest", "Conflict", "Unauthorized", "Decode"].some(Reconcile.isAmbiguousReason))
      .toBe(false)
  })
})

const text = fc.string({ maxLength: 12 })
const id = fc.stringMatching(/^toolu_[a-z0-9]{1,8}$/)
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("tool_use"), id, name: fc.constantFrom("Bash", "Read"), input: fc.object() }),
  fc.record({
    type: fc.constant("tool_result"),
    tool_use_id: id,
    content: fc.oneof(text, fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 3 })),
    is_error: fc.boolean()
  }),
  fc.record({ type: fc.constant("thinking"), thinking: text, signature: text }),
  fc.record({
    type: fc.constant("image"),
    source: fc.record({ type: fc.constant("base64"), media_type: fc.constant("image/png"), data: fc.base64String() })
  })
)
const blobArb = fc.record({
  role: fc.constantFrom("user", "assistant"),
  content: fc.oneof(text, fc.array(block, { maxLength: 4 }))
})
const metaArb = fc.option(fc.record({ model: fc.constantFrom("a", "b"), has_thinking: fc.boolean() }), { nil: null })

const stack = (options: ClientOptions = {}) => client(options).pipe(Layer.provideMerge(emulator()))

describe("against the emulator's read-back", () => {
  it.live("every blob is recognised as itself once stored and read back; another blob only when the same", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      yield* acontext.createSession({ useUuid: SID })
      const samples = fc.sample(fc.tuple(blobArb, metaArb, blobArb), { numRuns: 60, seed: 42 })
      for (const [blob, meta, other] of samples) {
        yield* acontext.storeMessage(SID, blob, { meta })
        const tail = yield* acontext.newestMessages(SID)
        const newest = tail.at(-1)!
        expect(Reconcile.sameMessage({ blob, meta }, newest)).toBe(true)
        expect(Reconcile.sameMessage({ blob: other, meta }, newest)).toBe(
          Reconcile.readBackKey(other) === Reconcile.readBackKey(blob)
        )
      }
    }).pipe(Effect.provide(stack())))
})

describe("AcontextClient.newestMessages", () => {
  it.live("the newest messages, the newest included, in one GET up to one message, two after", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      const emu = yield* AcontextEmulator
      yield* acontext.createSession({ useUuid: SID })
      const texts = (tail: ReadonlyArray<{ readonly message: unknown }>) =>
        tail.map(({ message }) => (message as { content: Array<{ text: string }> }).content[0]!.text)
      const reads = Effect.map(emu.requests, (log) => log.filter((r) => r.route === "getMessages").length)
      const seen: Array<[Array<string>, number]> = []
      for (let n = 0; n <= 4; n++) {
        if (n > 0) yield* acontext.storeMessage(SID, user(`m${n}`))
        yield* emu.clearRequests
        const tail = yield* acontext.newestMessages(SID)
        seen.push([texts(tail), yield* reads])
        expect(tail.every((m) => m.id !== "")).toBe(true)
      }
      expect(seen).toStrictEqual([[[], 1], [["m1"], 1], [["m1", "m2"], 2], [["m2", "m3"], 2], [["m3", "m4"], 2]])
    }).pipe(Effect.provide(stack())))
})

describe("AcontextClient.storeMessageOnce", () => {
  const storedTexts = Effect.flatMap(AcontextEmulator, (e) => e.messages(SID)).pipe(
    Effect.map((messages) => messages.map((m) => m.parts[0]?.text))
  )

  it.live("stored, then the connection dropped or a 502: found by one tail read, not stored again", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      const emu = yield* AcontextEmulator
      yield* acontext.createSession({ useUuid: SID })
      const first = yield* acontext.storeMessageOnce(SID, user("a"), { after: null })
      expect(first).toMatchObject({ found: false, reads: 0 })
      yield* emu.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, times: 1 }])
      const second = yield* acontext.storeMessageOnce(SID, user("b"), { after: first.id })
      expect(second).toMatchObject({ found: true, reads: 1 })
      yield* emu.setFaults([{ route: "storeMessage", status: 502, afterEffect: true, times: 1 }])
      const third = yield* acontext.storeMessageOnce(SID, user("c"), { after: second.id })
      expect(third).toMatchObject({ found: true, reads: 1 })
      expect(yield* storedTexts).toStrictEqual(["a", "b", "c"])
      expect((yield* emu.messages(SID)).map((m) => m.id)).toStrictEqual([first.id, second.id, third.id])
    }).pipe(Effect.provide(stack())))

  it.live("a failure before the side effect: the tail read finds nothing, the retry stores it once", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      const emu = yield* AcontextEmulator
      yield* acontext.createSession({ useUuid: SID })
      yield* emu.setFaults([{ route: "storeMessage", drop: true, times: 2 }])
      const result = yield* acontext.storeMessageOnce(SID, user("a"), { after: null })
      expect(result).toMatchObject({ found: false, reads: 2 })
      expect(yield* storedTexts).toStrictEqual(["a"])
    }).pipe(Effect.provide(stack())))

  it.live("in doubt from the start: the tail is read first; a rejection (400) is not reconciled", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      const emu = yield* AcontextEmulator
      yield* acontext.createSession({ useUuid: SID })
      yield* acontext.storeMessage(SID, user("a"))
      const found = yield* acontext.storeMessageOnce(SID, user("a"), { inDoubt: true })
      expect(found).toMatchObject({ found: true, reads: 1 })
      const absent = yield* acontext.storeMessageOnce(SID, user("b"), { inDoubt: true })
      expect(absent).toMatchObject({ found: false, reads: 1 })
      yield* emu.clearRequests
      const rejected = yield* Effect.flip(acontext.storeMessageOnce(SID, { role: "system", content: "x" }))
      expect(rejected.reason).toBe("BadRequest")
      expect((yield* emu.requests).map((r) => r.route)).toStrictEqual(["storeMessage"])
      expect(yield* storedTexts).toStrictEqual(["a", "b"])
    }).pipe(Effect.provide(stack())))

  it.live("with retry: false, a failure the tail read cannot settle is returned as it is", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      const emu = yield* AcontextEmulator
      yield* acontext.createSession({ useUuid: SID })
      yield* emu.setFaults([{ route: "storeMessage", status: 503 }])
      const error = yield* Effect.flip(acontext.storeMessageOnce(SID, user("a"), { after: null }))
      expect(error).toMatchObject({ reason: "Server", status: 503 })
      expect((yield* emu.requests).map((r) => r.route)).toStrictEqual(["createSession", "storeMessage", "getMessages"])
    }).pipe(Effect.provide(stack({ retry: false }))))
})
