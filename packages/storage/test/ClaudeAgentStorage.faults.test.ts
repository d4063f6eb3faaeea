/**
 * Faults end to end: a realistic SDK stream (10 tool-using turns, 70 frames, 50 of them
 * stored) saved through `ClaudeAgentStorage` while the emulator injects failures.
 *
 * - Faults applied BEFORE the side effect (503 / 500 every Nth store, dropped connections,
 *   latencies beyond the client's timeout, a 503 and then a create race's 409 on create): acx's
 *   retries absorb them and every message is stored exactly once, in order — directly, and
 *   through the outbox (there without the latencies: see Outbox.test.ts for the timeout bug).
 * - Faults applied AFTER the side effect (`afterEffect`: the server stored the message, then
 *   dropped the connection or answered 5xx), at a random rate up to every request: acx reads
 *   the session's tail before retrying and finds the message there, so every message is still
 *   stored exactly once, in order — directly and through the outbox.
 */
import { AcontextClient } from "@acx/storage/AcontextClient"
import type { AcontextError } from "@acx/storage/AcontextError"
import * as CAS from "@acx/storage/ClaudeAgentStorage"
import * as Outbox from "@acx/storage/Outbox"
import { AcontextEmulator, type AcontextFault } from "@acx/testing/AcontextEmulator"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { client, emulator, storageStack, tempDir, wire, type WireCall } from "./utils/harness.js"

const SESSION = "1d1e46f9-35c7-4834-b529-846d5bb82288"
const MODEL = "claude-opus-4-5-20251101"
const TURNS = 10
const STORED_PER_TURN = 5

/** A v4-looking UUID, deterministic. */
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

/**
 * A stream shaped like the CLI's (system/init, then per turn: the prompt, a stream event, a
 * thinking-only frame, text, tool_use, the tool_result turn with its `tool_use_result`
 * sidecar, the final text), then the result.
 */
const conversation = (): Array<unknown> => {
  let n = 0
  const base = () => ({ session_id: SESSION, uuid: uuid(++n), parent_tool_use_id: null })
  const assistant = (id: string, content: Array<unknown>) => ({
    type: "assistant",
    message: {
      model: MODEL,
      id,
      type: "message",
      role: "assistant",
      content,
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 4, service_tier: "standard" }
    },
    ...base()
  })
  const frames: Array<unknown> = [{
    type: "system",
    subtype: "init",
    cwd: "/home/user/project",
    session_id: SESSION,
    tools: ["Bash", "Read", "Edit"],
    model: MODEL,
    permissionMode: "acceptEdits",
    uuid: uuid(++n)
  }]
  for (let t = 0; t < TURNS; t++) {
    const toolId = `toolu_${t}`
    frames.push(
      {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: `Prompt ${t}: list the files` }] },
        ...base()
      },
      { type: "stream_event", event: { type: "message_start" }, ...base() },
      assistant(`msg_${t}_a`, [{ type: "thinking", thinking: `Thinking about ${t}`, signature: "sig" }]),
      assistant(`msg_${t}_a`, [{ type: "text", text: `I will run ls (${t}).` }]),
      assistant(`msg_${t}_a`, [{ type: "tool_use", id: toolId, name: "Bash", input: { command: "ls -la" } }]),
      {
        type: "user",
        message: {
          role: "user",
          content: [{ tool_use_id: toolId, type: "tool_result", content: `total ${t}\nfile-${t}.txt`, is_error: false }]
        },
        tool_use_result: { stdout: `total ${t}\nfile-${t}.txt`, stderr: "", interrupted: false, isImage: false },
        ...base()
      },
      assistant(`msg_${t}_b`, [{ type: "text", text: `Done with turn ${t}.` }])
    )
  }
  frames.push({ type: "result", subtype: "success", is_error: false, result: "done", ...base() })
  return frames
}

/** Retries with enough attempts for the fault pattern below (at most 6 attempts). */
const retry: Schedule.Schedule<unknown, AcontextError> = Schedule.exponential("5 millis").pipe(
  Schedule.intersect(Schedule.recurs(5))
)

/** Store faults, all applied before the side effect; a request is hit when n % N == 0 for one of them. */
const storeFaults: ReadonlyArray<AcontextFault> = [
  { route: "storeMessage", status: 503, everyNth: 3 },
  { route: "storeMessage", status: 500, everyNth: 7 },
  { route: "storeMessage", drop: true, everyNth: 11 },
  { route: "storeMessage", latencyMs: 300, everyNth: 13 }
]
const createFaults: ReadonlyArray<AcontextFault> = [
  { route: "createSession", status: 503, times: 1 },
  // A create race: another writer created the session just before us.
  { route: "createSession", status: 409, afterEffect: true, times: 1, everyNth: 2 }
]
const isHit = (n: number) => [3, 7, 11, 13].some((k) => n % k === 0)

/** The longest run of consecutive store requests hit by a fault, among the first `upTo`. */
const longestRun = (upTo: number) => {
  let longest = 0
  let run = 0
  for (let n = 1; n <= upTo; n++) {
    run = isHit(n) ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/** The stored session read back in Anthropic format, with metas. */
const readBack = Effect.gen(function*() {
  const acontext = yield* AcontextClient
  const all = yield* Stream.runCollect(acontext.messages(SESSION, { pageSize: 200 }))
  return Chunk.toReadonlyArray(all).map(({ message, meta }) => ({ message, meta }))
})

const storesOf = (calls: ReadonlyArray<WireCall>) => calls.filter((c) => c.call === "store")

/**
 * What a fault-free run stores: the reference for the faulty runs. Run once (on an emulator of
 * its own) and shared: the same frames always store the same.
 */
let referenceRun:
  | Promise<{ readonly readBack: ReadonlyArray<unknown>; readonly wire: ReadonlyArray<WireCall> }>
  | undefined
const reference = Effect.promise(() =>
  referenceRun ??= Effect.runPromise(
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      for (const frame of conversation()) yield* storage.save(frame)
      return { readBack: yield* readBack, wire: yield* wire }
    }).pipe(Effect.provide(storageStack({}, { retry })), Effect.scoped)
  )
)

describe("faults before the side effect: exactly once, in order", () => {
  it("the fault pattern never hits more consecutive requests than the retries absorb", () => {
    // 50 stores + retries stay well under 120 requests.
    expect(longestRun(120)).toBeLessThan(6)
    expect(longestRun(120)).toBeGreaterThanOrEqual(3)
  })

  it.live("direct delivery: every message stored once, in order; no failure reported", () =>
    Effect.gen(function*() {
      const expected = yield* reference
      expect(expected.readBack).toHaveLength(TURNS * STORED_PER_TURN)

      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([...createFaults, ...storeFaults])
      const outcomes = []
      for (const frame of conversation()) outcomes.push((yield* storage.save(frame))._tag)
      yield* emu.clearFaults

      expect(outcomes.filter((o) => o === "Stored")).toHaveLength(TURNS * STORED_PER_TURN)
      expect(outcomes.filter((o) => o === "Failed")).toHaveLength(0)
      expect(yield* readBack).toStrictEqual(expected.readBack)
      // On the wire, the successful stores are the fault-free run's, in the same order.
      expect(storesOf(yield* wire)).toStrictEqual(storesOf(expected.wire))
      // The faults really fired: every kind of them.
      const log = yield* emu.requests
      const statuses = log.filter((r) => r.faulted).map((r) => r.status)
      for (const kind of [503, 500, "dropped", "aborted", 409]) expect(statuses).toContain(kind)
      yield* Effect.sleep("300 millis") // let the abandoned (slow) requests end before counting
      const stored = yield* emu.messages(SESSION)
      expect(stored).toHaveLength(TURNS * STORED_PER_TURN)
    }).pipe(Effect.provide(storageStack({}, { retry, timeout: "100 millis" }))))

  it.live("through the outbox: every message stored once, in order", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => tempDir("faults")),
      (dir) =>
        Effect.gen(function*() {
          const expected = yield* reference
          const emu = yield* AcontextEmulator
          // No latency fault here: under the outbox a request slower than the timeout is not
          // abandoned (see "a request slower than the timeout …" in Outbox.test.ts).
          yield* emu.setFaults([...createFaults, ...storeFaults.filter((f) => f.latencyMs === undefined)])
          yield* Effect.gen(function*() {
            const storage = yield* CAS.ClaudeAgentStorage
            for (const frame of conversation()) yield* storage.save(frame)
            yield* storage.flush
            expect(yield* (yield* Outbox.Outbox).failed).toStrictEqual([])
          }).pipe(
            Effect.provide(
              Layer.orDie(CAS.layer({})).pipe(
                Layer.provideMerge(
                  Layer.orDie(Outbox.layer({ filename: dir.file("journal.db"), backoff: Schedule.spaced("5 millis") }))
                ),
                Layer.provide(client({ retry: false, timeout: "100 millis" }))
              )
            )
          )
          yield* emu.clearFaults
          expect(yield* readBack).toStrictEqual(expected.readBack)
          const statuses = (yield* emu.requests).filter((r) => r.faulted).map((r) => r.status)
          for (const kind of [503, 500, "dropped", 409]) expect(statuses).toContain(kind)
        }).pipe(Effect.provide(client({ retry }).pipe(Layer.provideMerge(emulator())))),
      (dir) => Effect.sync(dir.cleanup)
    ))
})

/** Store-then-fail faults: the server stores the message, then drops the connection or answers 502. */
const afterEffectFaults: ReadonlyArray<{ readonly name: string; readonly faults: ReadonlyArray<AcontextFault> }> = [
  {
    name: "store-then-drop at rate 0.1",
    faults: [{ route: "storeMessage", drop: true, afterEffect: true, rate: 0.1 }]
  },
  {
    name: "store-then-502 at rate 0.5",
    faults: [{ route: "storeMessage", status: 502, afterEffect: true, rate: 0.5, seed: 3 }]
  },
  { name: "store-then-drop on every request", faults: [{ route: "storeMessage", drop: true, afterEffect: true }] },
  {
    name: "store-then-drop every 5th request, store-then-503 every 7th",
    faults: [
      { route: "storeMessage", drop: true, afterEffect: true, everyNth: 5 },
      { route: "storeMessage", status: 503, afterEffect: true, everyNth: 7 }
    ]
  }
]

const storeStatuses = (
  log: ReadonlyArray<{ readonly route: string; readonly status: unknown; readonly faulted: boolean }>
) => log.filter((r) => r.route === "storeMessage" && r.faulted).length

describe("faults after the side effect (afterEffect): exactly once, by reading the tail", () => {
  for (const { faults, name } of afterEffectFaults) {
    it.live(`${name}: every message stored once, in order; every save Stored`, () =>
      Effect.gen(function*() {
        const expected = yield* reference
        const storage = yield* CAS.ClaudeAgentStorage
        const emu = yield* AcontextEmulator
        yield* emu.clearRequests
        yield* emu.setFaults(faults)
        const outcomes = []
        for (const frame of conversation()) outcomes.push((yield* storage.save(frame))._tag)
        yield* emu.clearFaults

        const log = yield* emu.requests
        expect(outcomes.filter((o) => o === "Stored")).toHaveLength(TURNS * STORED_PER_TURN)
        expect(yield* readBack).toStrictEqual(expected.readBack)
        // The faults fired, and each was answered by one tail read (one or two GETs), not by
        // storing again.
        const hit = storeStatuses(log)
        expect(hit).toBeGreaterThan(0)
        expect(log.filter((r) => r.route === "storeMessage")).toHaveLength(TURNS * STORED_PER_TURN)
        const reads = log.filter((r) => r.route === "getMessages").length
        expect(reads).toBeGreaterThanOrEqual(hit)
        expect(reads).toBeLessThanOrEqual(2 * hit)
      }).pipe(Effect.provide(storageStack({}, { retry }))))
  }

  it.live("through the outbox, store-then-drop at rate 0.5: every message stored once, in order", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => tempDir("after-effect")),
      (dir) =>
        Effect.gen(function*() {
          const expected = yield* reference
          const emu = yield* AcontextEmulator
          yield* emu.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, rate: 0.5, seed: 11 }])
          yield* Effect.gen(function*() {
            const storage = yield* CAS.ClaudeAgentStorage
            for (const frame of conversation()) yield* storage.save(frame)
            yield* storage.flush
            expect(yield* (yield* Outbox.Outbox).failed).toStrictEqual([])
          }).pipe(
            Effect.provide(
              Layer.orDie(CAS.layer({})).pipe(
                Layer.provideMerge(
                  Layer.orDie(Outbox.layer({ filename: dir.file("journal.db"), backoff: Schedule.spaced("5 millis") }))
                ),
                Layer.provide(client({ retry: false }))
              )
            )
          )
          yield* emu.clearFaults
          expect(yield* readBack).toStrictEqual(expected.readBack)
          expect(storeStatuses(yield* emu.requests)).toBeGreaterThan(10)
        }).pipe(Effect.provide(client({ retry }).pipe(Layer.provideMerge(emulator())))),
      (dir) => Effect.sync(dir.cleanup)
    ))

  it.live("two equal consecutive messages are both stored: the known newest id tells them from a retry", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      const ok = { type: "user", message: { role: "user", content: "ok" } }
      expect((yield* storage.save(ok))._tag).toBe("Stored")
      // The second "ok" is not stored by its first attempt (a 503 before the side effect): the
      // tail's newest message equals it, but it is the one stored before, so it is stored.
      yield* emu.setFaults([{ route: "storeMessage", status: 503, times: 1 }])
      expect((yield* storage.save(ok))._tag).toBe("Stored")
      // The third is stored, then the answer lost: found in the tail, not stored again.
      yield* emu.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, times: 1 }])
      expect((yield* storage.save(ok))._tag).toBe("Stored")
      expect((yield* emu.messages(SESSION)).map((m) => m.parts[0]!.text)).toStrictEqual(["ok", "ok", "ok"])
    }).pipe(Effect.provide(storageStack({ sessionId: SESSION }, { retry }))))

  it.live("with retry: false the message whose answer was lost is found by the tail read: Stored, once", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, everyNth: 2, times: 1 }])
      const outcomes = []
      for (const text of ["a", "b", "c"]) {
        outcomes.push((yield* storage.save({ type: "user", message: { role: "user", content: text } }))._tag)
      }
      expect(outcomes).toStrictEqual(["Stored", "Stored", "Stored"])
      expect((yield* emu.messages(SESSION)).map((m) => m.parts[0]!.text)).toStrictEqual(["a", "b", "c"])
    }).pipe(Effect.provide(storageStack({ sessionId: SESSION }, { retry: false }))))

  it.live("a store that failed for good leaves the session in doubt: the next save reads the tail first", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      // "b" is stored, then every answer and every read fails: the save fails (reported).
      yield* emu.setFaults([
        { route: "storeMessage", drop: true, afterEffect: true, times: 1 },
        { route: "getMessages", status: 503 }
      ])
      const save = (text: string) => storage.save({ type: "user", message: { role: "user", content: text } })
      expect((yield* save("a"))._tag).toBe("Failed")
      yield* emu.clearFaults
      yield* emu.clearRequests
      expect((yield* save("b"))._tag).toBe("Stored")
      expect((yield* emu.requests).map((r) => r.route)).toStrictEqual(["getMessages", "storeMessage"])
      expect((yield* emu.messages(SESSION)).map((m) => m.parts[0]!.text)).toStrictEqual(["a", "b"])
    }).pipe(Effect.provide(storageStack({ sessionId: SESSION }, { retry: false }))))
})
