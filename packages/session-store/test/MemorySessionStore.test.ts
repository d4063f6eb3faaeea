/**
 * MemorySessionStore beyond the conformance suite: copy isolation (including summaries), the
 * store clock under `TestClock`, retention (`deleteOlderThan`), typed errors through the Effect
 * API and their pass-through in the Promise form, and independence of stores.
 */
import * as MemorySessionStore from "@acx/session-store/MemorySessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import { foldSessionSummary } from "@anthropic-ai/claude-agent-sdk"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as TestClock from "effect/TestClock"

const key = (projectKey: string, sessionId: string, subpath?: string): SessionStore.SessionKey =>
  subpath === undefined ? { projectKey, sessionId } : { projectKey, sessionId, subpath }

const user = (uuid: string, content: string): SessionStore.SessionStoreEntry => ({
  type: "user",
  uuid,
  timestamp: "2025-01-01T12:00:00.000Z",
  message: { role: "user", content }
})

const failureOf = <A>(exit: Exit.Exit<A, SessionStore.SessionStoreError>): SessionStore.SessionStoreError => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
  assert.instanceOf(error, SessionStore.SessionStoreError)
  return error as SessionStore.SessionStoreError
}

describe("MemorySessionStore", () => {
  describe("copies", () => {
    it.effect("append stores deep copies and load hands out copies", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        const entry = user("u1", "hello")
        yield* store.append(k, [entry])
        ;(entry.message as { content: string }).content = "changed by the caller"
        const first = yield* store.load(k)
        expect(first).toEqual([user("u1", "hello")])
        ;(first?.[0]?.message as { content: string }).content = "changed by a reader"
        first?.push(user("u2", "pushed"))
        expect(yield* store.load(k)).toEqual([user("u1", "hello")])
      }))

    it.effect("summaries are copies too", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        yield* store.append(k, [user("u1", "first prompt")])
        const [summary] = yield* store.listSessionSummaries("p")
        assert.isDefined(summary)
        ;(summary!.data as Record<string, unknown>)["firstPrompt"] = "changed"
        const [again] = yield* store.listSessionSummaries("p")
        expect(again?.data["firstPrompt"]).toBe("first prompt")
      }))

    it.effect("entries that are not plain data fail with InvalidEntry and store nothing", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        const exit = yield* Effect.exit(store.append(k, [{ type: "user", callback: () => 1 }]))
        expect(failureOf(exit).reason).toBe("InvalidEntry")
        expect(yield* store.load(k)).toBeNull()
      }))
  })

  describe("clock", () => {
    it.effect("mtimes follow Clock and stay strictly increasing when it stands still", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        yield* TestClock.setTime(1_000)
        yield* store.append(key("p", "a"), [user("u1", "a")])
        yield* store.append(key("p", "b"), [user("u1", "b")])
        yield* store.append(key("q", "c"), [user("u1", "c")])
        yield* TestClock.setTime(5_000)
        yield* store.append(key("p", "d"), [user("u1", "d")])
        const listed = new Map((yield* store.listSessions("p")).map((l) => [l.sessionId, l.mtime]))
        expect([listed.get("a"), listed.get("b"), listed.get("d")]).toEqual([1_000, 1_001, 5_000])
        expect((yield* store.listSessions("q"))[0]?.mtime).toBe(1_002)
        const summaries = new Map((yield* store.listSessionSummaries("p")).map((s) => [s.sessionId, s.mtime]))
        expect(summaries).toEqual(listed)
      }))

    it.effect("a batch of already-stored entries changes nothing", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        yield* TestClock.setTime(1_000)
        yield* store.append(k, [user("u1", "a"), user("u2", "b")])
        const before = yield* store.listSessionSummaries("p")
        yield* TestClock.setTime(2_000)
        yield* store.append(k, [user("u2", "b"), user("u1", "a")])
        expect(yield* store.listSessions("p")).toEqual([{ sessionId: "s", mtime: 1_000 }])
        expect(yield* store.listSessionSummaries("p")).toEqual(before)
      }))

    it.effect("the summary is the SDK's fold over the stored entries", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        yield* TestClock.setTime(1_000)
        yield* store.append(k, [user("u1", "Fix foo"), { type: "custom-title", customTitle: "A", uuid: "t" }])
        yield* store.append(k, [{ type: "custom-title", customTitle: "B", uuid: "t" }, { type: "tag", tag: "x" }])
        const stored = yield* store.load(k)
        expect(stored).toHaveLength(3)
        expect(yield* store.listSessionSummaries("p")).toEqual([
          foldSessionSummary(undefined, k, stored ?? [], { mtime: 1_001 })
        ])
      }))
  })

  describe("retention", () => {
    it.effect("deleteOlderThan deletes whole sessions by their newest key mtime", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        yield* TestClock.setTime(1_000)
        yield* store.append(key("p", "old"), [user("u1", "old")])
        yield* store.append(key("p", "old", "subagents/agent-1"), [user("u1", "old sub")])
        yield* store.append(key("p", "busy"), [user("u1", "busy main")])
        yield* store.append(key("q", "old"), [user("u1", "other project")])
        yield* TestClock.setTime(10_000)
        // Only a subagent is still writing: the session counts as recent.
        yield* store.append(key("p", "busy", "subagents/agent-2"), [user("u1", "busy sub")])
        yield* store.append(key("p", "new"), [user("u1", "new")])

        expect(yield* store.deleteOlderThan(5_000, { projectKey: "p" })).toBe(1)
        expect(yield* store.load(key("p", "old"))).toBeNull()
        expect(yield* store.load(key("p", "old", "subagents/agent-1"))).toBeNull()
        expect(yield* store.listSubkeys({ projectKey: "p", sessionId: "old" })).toEqual([])
        expect((yield* store.listSessions("p")).map((l) => l.sessionId).sort()).toEqual(["busy", "new"])
        expect((yield* store.listSessionSummaries("p")).map((s) => s.sessionId).sort()).toEqual(["busy", "new"])
        expect(yield* store.load(key("q", "old"))).toHaveLength(1)

        expect(yield* store.deleteOlderThan(5_000)).toBe(1)
        expect(yield* store.load(key("q", "old"))).toBeNull()
        expect(yield* store.deleteOlderThan(10_000)).toBe(0)
        expect(yield* store.deleteOlderThan(20_000, { projectKey: "missing" })).toBe(0)
        expect(yield* store.deleteOlderThan(20_000)).toBe(2)
        expect(yield* store.listSessions("p")).toEqual([])
      }))

    it.effect("a deleted session can be written again from scratch", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        yield* store.append(k, [user("u1", "first")])
        expect(yield* store.deleteOlderThan(Number.MAX_SAFE_INTEGER)).toBe(1)
        yield* store.append(k, [user("u1", "second")])
        expect(yield* store.load(k)).toEqual([user("u1", "second")])
        expect((yield* store.listSessionSummaries("p"))[0]?.data["firstPrompt"]).toBe("second")
      }))
  })

  describe("errors", () => {
    it.effect("invalid keys fail with InvalidKey on every keyed operation", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const bad: ReadonlyArray<SessionStore.SessionKey> = [
          key("p", "s", ""),
          key("p", "s", "/abs"),
          key("p", "s", "C:\\abs"),
          key("p", "s", "a/../b"),
          key("", "s"),
          key("p", "")
        ]
        for (const k of bad) {
          for (
            const [operation, effect] of [
              ["append", store.append(k, [user("u1", "x")])],
              ["load", store.load(k)],
              ["delete", store.delete(k)],
              ["listSubkeys", store.listSubkeys(k)]
            ] as const
          ) {
            const error = failureOf(
              yield* Effect.exit(effect as Effect.Effect<unknown, SessionStore.SessionStoreError>)
            )
            expect(error.reason).toBe("InvalidKey")
            expect(error.operation).toBe(operation)
          }
        }
        expect(yield* store.listSessions("p")).toEqual([])
      }))

    it.effect("entries without a string type fail with InvalidEntry and nothing of the batch is stored", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        const batch = [user("u1", "ok"), { uuid: "u2" }] as unknown as ReadonlyArray<SessionStore.SessionStoreEntry>
        const error = failureOf(yield* Effect.exit(store.append(k, batch)))
        expect(error.reason).toBe("InvalidEntry")
        expect(error.message).toContain("entry 1")
        expect(yield* store.load(k)).toBeNull()
      }))

    it("the Promise form rejects with the typed error itself", async () => {
      const store = MemorySessionStore.createMemorySessionStore()
      try {
        const rejection = await store.load({ projectKey: "p", sessionId: "s", subpath: "../x" }).catch((e) => e)
        expect(rejection).toBeInstanceOf(SessionStore.SessionStoreError)
        expect((rejection as SessionStore.SessionStoreError).reason).toBe("InvalidKey")
        await store.append({ projectKey: "p", sessionId: "s" }, [{ type: "user", uuid: "u1" }])
        expect(await store.deleteOlderThan(Date.now() + 1_000, { projectKey: "p" })).toBe(1)
      } finally {
        await store.close()
      }
    })
  })

  describe("instances", () => {
    it.effect("every make, and every layer build, is a separate empty store", () =>
      Effect.gen(function*() {
        const a = yield* MemorySessionStore.make
        const b = yield* MemorySessionStore.make
        yield* a.append(key("p", "s"), [user("u1", "a")])
        expect(yield* b.load(key("p", "s"))).toBeNull()
        const fromLayer = yield* Effect.provide(SessionStore.SessionStore, MemorySessionStore.layer)
        expect(yield* fromLayer.listSessions("p")).toEqual([])
      }))

    it.effect("concurrent appends to one session are serialised", () =>
      Effect.gen(function*() {
        const store = yield* MemorySessionStore.make
        const k = key("p", "s")
        yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => [user(`u${i}`, `p${i}`), user("shared", "dup")]),
          (batch) => store.append(k, batch),
          { concurrency: "unbounded", discard: true }
        )
        const stored = (yield* store.load(k)) ?? []
        expect(stored).toHaveLength(51)
        expect(stored.filter((entry) => entry.uuid === "shared")).toHaveLength(1)
        const [summary] = yield* store.listSessionSummaries("p")
        expect(summary).toEqual(foldSessionSummary(undefined, k, stored, { mtime: summary?.mtime ?? 0 }))
      }))
  })
})
