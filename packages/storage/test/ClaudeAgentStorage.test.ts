/**
 * The Effect `ClaudeAgentStorage` service over the Acontext emulator (real HTTP, acx's own
 * `AcontextClient` with fast retries): the storage groups of Acontext's integrations
 * (TypeScript shapes and Python dicts) checked on the wire (the emulator's request log, read
 * back as `create` / `store` calls in the shape of the upstream test vectors) and in the
 * emulator's stored data; then `save` outcomes, `sink` and `tap`, the error policies, the
 * `failures` stream, session creation against a real server's answers (201 / 200 / 409),
 * replays and Python dicts.
 */
import { InvalidSessionId } from "@acx/convert/Decider"
import * as F from "@acx/fixtures/acontextVectors"
import {
  assistantBlob,
  create,
  MODEL,
  store,
  textBlock,
  userBlob,
  UUID_DEFAULT,
  UUID_DISCOVERED,
  UUID_FIRST,
  UUID_FLOW,
  UUID_FROM_RESULT,
  UUID_FROM_STREAM,
  UUID_SECOND
} from "@acx/fixtures/acontextVectors"
import * as AcontextClientModule from "@acx/storage/AcontextClient"
import { AcontextClient } from "@acx/storage/AcontextClient"
import { AcontextError } from "@acx/storage/AcontextError"
import * as CAS from "@acx/storage/ClaudeAgentStorage"
import { StorageError } from "@acx/storage/StorageError"
import { AcontextEmulator, type AcontextRequestLogEntry } from "@acx/testing/AcontextEmulator"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import {
  captureLogs,
  client,
  type ClientOptions,
  emulator,
  FAST_RETRY_ATTEMPTS,
  storageStack,
  wire,
  type WireCall,
  wireCalls
} from "./utils/harness.js"
import { PY, type Shape, TEXT_OUT, THINKING_AS_TEXT, TOOL_RESULT_OUT, TOOL_USE_OUT, TS } from "./utils/shapes.js"

interface IntegrationRun {
  readonly outcomes: ReadonlyArray<CAS.SaveOutcome>
  /** The successful create / store requests, as upstream-shaped calls. */
  readonly calls: ReadonlyArray<WireCall>
  /** `storage.sessionId` before any message, then after each message. */
  readonly sessionIds: ReadonlyArray<string | null>
  /** The final session id's messages as the emulator stored them: role and user meta. */
  readonly stored: ReadonlyArray<readonly [string, unknown]>
  /** Every request the emulator answered. */
  readonly requests: ReadonlyArray<AcontextRequestLogEntry>
}

/** Saves `messages` one by one with the storage in context; collects what happened. */
const saveAll = (messages: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const storage = yield* CAS.ClaudeAgentStorage
    const emu = yield* AcontextEmulator
    const outcomes: Array<CAS.SaveOutcome> = []
    const sessionIds: Array<string | null> = [yield* storage.sessionId]
    for (const message of messages) {
      outcomes.push(yield* storage.save(message))
      sessionIds.push(yield* storage.sessionId)
    }
    const calls = yield* wire
    const last = sessionIds.at(-1) ?? null
    const stored = last === null ? [] : (yield* emu.messages(last)).map((m) => [m.role, m.meta] as const)
    const requests = yield* emu.requests
    return { outcomes, calls, sessionIds, stored, requests } satisfies IntegrationRun
  })

/** Every store call of a run is in the emulator, with its role and user meta ({} for none). */
const expectStoredAsSent = (run: IntegrationRun) => {
  const sent = run.calls.flatMap((c) =>
    c.call === "store" ? [[(c.blob as { role: string }).role, c.meta ?? {}] as const] : []
  )
  expect(run.stored).toStrictEqual(sent)
}

/** Runs the messages through a fresh emulator + storage built with `options`. */
const integrationRun = (
  options: CAS.ClaudeAgentStorageOptions,
  messages: ReadonlyArray<unknown>,
  clientOptions?: ClientOptions
) => saveAll(messages).pipe(Effect.provide(storageStack(options, clientOptions)))

/** The id of the one session the emulator generated (created without `use_uuid`). */
const generatedId = (run: IntegrationRun) => {
  const id = run.sessionIds.at(-1)
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  return id as string
}

const messagesOf = (sessionId: string) => Effect.flatMap(AcontextEmulator, (e) => e.messages(sessionId))

describe.each([TS, PY])("$name, against the emulator", (S: Shape) => {
  const hi = S.userText("Hi")
  const hiBlob = userBlob(textBlock("Hi"))

  describe("basic, sessionId provided (6 cases)", () => {
    it.live("user message: created lazily, stored with format anthropic and no meta", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [hi])
        expect(run.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
        expect(run.stored).toStrictEqual([["user", {}]])
        expect(run.outcomes).toStrictEqual([{ _tag: "Stored", sessionId: UUID_DEFAULT, attempts: 1 }])
      }))

    it.live("assistant message: meta.model", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { model: MODEL })])
        expect(run.calls).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
        ])
        expect(run.stored).toStrictEqual([["assistant", { model: MODEL }]])
      }))

    it.live("assistant with thinking and includeThinking: a text block and meta.has_thinking", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT, includeThinking: true }, [
          S.assistant([S.THINKING, S.TEXT])
        ])
        expect(run.calls).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
        ])
        expectStoredAsSent(run)
      }))

    for (
      const [name, message] of [["system", S.systemInit()], ["result", S.resultMessage()], [
        "stream event",
        S.streamEvent()
      ]] as const
    ) {
      it.live(`${name} message: not stored, no session created (Skipped NotStorable)`, () =>
        Effect.gen(function*() {
          const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [message])
          expect(run.calls).toStrictEqual([])
          expect(run.outcomes.map((o) => o._tag === "Skipped" && o.reason)).toStrictEqual(["NotStorable"])
          expect(run.requests).toStrictEqual([])
        }))
    }
  })

  describe("session discovery (5 cases)", () => {
    it.live("session_id from system init is used for later stores", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.systemInit(UUID_DISCOVERED), S.userText("After init")])
        expect(run.sessionIds).toStrictEqual([null, UUID_DISCOVERED, UUID_DISCOVERED])
        expect(run.outcomes[0]).toStrictEqual({ _tag: "SessionResolved", sessionId: UUID_DISCOVERED })
        expect(run.calls).toStrictEqual([
          create(UUID_DISCOVERED),
          store(UUID_DISCOVERED, userBlob(textBlock("After init")))
        ])
        expectStoredAsSent(run)
      }))

    it.live("session_id from a result message", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.resultMessage(UUID_FROM_RESULT)])
        expect(run.sessionIds).toStrictEqual([null, UUID_FROM_RESULT])
        expect(run.calls).toStrictEqual([])
      }))

    it.live("session_id from a stream event", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.streamEvent(UUID_FROM_STREAM)])
        expect(run.sessionIds).toStrictEqual([null, UUID_FROM_STREAM])
        expect(run.calls).toStrictEqual([])
      }))

    it.live("user message before any session id: created without use_uuid, the generated id adopted", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.userText("Before init")])
        const id = generatedId(run)
        expect(run.calls).toStrictEqual([create(null), store(id, userBlob(textBlock("Before init")))])
        expect(run.sessionIds).toStrictEqual([null, id])
        expectStoredAsSent(run)
      }))

    it.live("assistant message before any session id: created, the generated id adopted", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.assistant([S.TEXT])])
        const id = generatedId(run)
        expect(run.calls).toStrictEqual([create(null), store(id, assistantBlob(TEXT_OUT), { model: MODEL })])
      }))
  })

  describe("errored assistant messages (2 cases)", () => {
    it.live("with valid content: stored, meta.error set", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { error: "rate_limit" })])
        expect(run.calls).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL, error: "rate_limit" })
        ])
        expect(run.stored).toStrictEqual([["assistant", { model: MODEL, error: "rate_limit" }]])
      }))

    it.live("with empty content: Skipped EmptyContent, no request", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [
          S.assistant([S.EMPTY_TEXT], { error: "server_error" })
        ])
        expect(run.calls).toStrictEqual([])
        expect(run.outcomes).toStrictEqual([{
          _tag: "Skipped",
          reason: "EmptyContent",
          detail: "assistant message: no storable content"
        }])
      }))
  })

  describe("empty content (4 cases): Skipped EmptyContent, no request", () => {
    const cases = [
      ["empty user string", S.userText("")],
      ["user with only empty text blocks", S.userBlocks(S.EMPTY_TEXT, S.EMPTY_TEXT)],
      ["assistant with only thinking", S.assistant([S.THINKING])],
      ["user with only tool_use blocks", S.userBlocks(S.TOOL_USE)]
    ] as const
    for (const [name, message] of cases) {
      it.live(name, () =>
        Effect.gen(function*() {
          const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [message])
          expect(run.calls).toStrictEqual([])
          expect(run.requests).toStrictEqual([])
          expect(run.outcomes.map((o) => o._tag === "Skipped" && o.reason)).toStrictEqual(["EmptyContent"])
        }))
    }
  })

  describe("error handling (2 cases)", () => {
    it.live("default policy \"log\": a warning with the session id, save succeeds (Failed), the loop goes on", () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "storeMessage", status: 500 }])
        const run = yield* saveAll([hi, S.userText("Again")])
        expect(run.outcomes.map((o) => o._tag)).toStrictEqual(["Failed", "Failed"])
        const error = (run.outcomes[0] as Extract<CAS.SaveOutcome, { _tag: "Failed" }>).error
        expect(error).toBeInstanceOf(StorageError)
        expect(error).toMatchObject({ reason: "StoreMessage", sessionId: UUID_DEFAULT, blob: hiBlob, meta: null })
        expect(error.cause).toBeInstanceOf(AcontextError)
        expect(error.cause).toMatchObject({ reason: "Server", status: 500, operation: "storeMessage" })
        const warnings = logs.lines.filter((l) => l.level === "WARN")
        expect(warnings).toHaveLength(2)
        expect(warnings[0]!.message).toMatch(
          new RegExp(`^Failed to store message \\(session=${UUID_DEFAULT}\\): StoreMessage`)
        )
        expect(warnings[0]!.message).toContain("Acontext storeMessage failed: Server 500: database error")
        expect(warnings[0]!.annotations).toMatchObject({ "acx.session_id": UUID_DEFAULT, "acx.reason": "StoreMessage" })
        // Each store was retried by acx's client (transient 500), then given up.
        const statuses = (yield* emu.requests).filter((r) => r.route === "storeMessage").map((r) => r.status)
        expect(statuses).toStrictEqual(Array.from({ length: 2 * FAST_RETRY_ATTEMPTS }, () => 500))
        expect(yield* emu.messages(UUID_DEFAULT)).toStrictEqual([])
      }).pipe(Effect.provide(Layer.merge(storageStack({ sessionId: UUID_DEFAULT }), logs.layer)))
    })

    it.live("handler policy: called with (StorageError, converted blob)", () => {
      const seen: Array<{ error: StorageError; blob: unknown }> = []
      return Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "storeMessage", status: 400 }])
        const run = yield* saveAll([hi])
        expect(run.outcomes.map((o) => o._tag)).toStrictEqual(["Failed"])
        expect(seen).toHaveLength(1)
        expect(seen[0]!.blob).toStrictEqual(hiBlob)
        expect(seen[0]!.error).toBe((run.outcomes[0] as Extract<CAS.SaveOutcome, { _tag: "Failed" }>).error)
        expect(seen[0]!.error.cause).toMatchObject({ reason: "BadRequest", status: 400 })
        // 400 is permanent: not retried.
        expect((yield* emu.requests).filter((r) => r.route === "storeMessage")).toHaveLength(1)
      }).pipe(
        Effect.provide(storageStack({
          sessionId: UUID_DEFAULT,
          onError: (error, blob) => Effect.sync(() => void seen.push({ error, blob }))
        }))
      )
    })
  })

  describe("session creation (7 cases)", () => {
    it.live("created on the first store, with use_uuid = the known id (201)", () =>
      Effect.gen(function*() {
        const run = yield* saveAll([hi])
        expect(run.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
        const creates = (yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)).filter((r) =>
          r.route === "createSession"
        )
        expect(creates.map((r) => r.status)).toStrictEqual([201])
      }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

    it.live("created only once for several stores", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [S.userText("First"), S.userText("Second")])
        expect(run.calls).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, userBlob(textBlock("First"))),
          store(UUID_DEFAULT, userBlob(textBlock("Second")))
        ])
        expectStoredAsSent(run)
      }))

    it.live("409 on create (a create race: the session exists): the store goes ahead, no failure", () =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "createSession", status: 409, afterEffect: true, times: 1 }])
        const run = yield* saveAll([hi])
        expect(run.outcomes).toStrictEqual([{ _tag: "Stored", sessionId: UUID_DEFAULT, attempts: 1 }])
        expect(wireCalls(yield* emu.requests, () => true)).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, hiBlob)
        ])
        expect((yield* emu.requests).map((r) => r.status)).toStrictEqual([409, 201])
        expect(yield* emu.messages(UUID_DEFAULT)).toHaveLength(1)
      }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

    it.live("non-409 failure on create: Failed CreateSession with the client's error, nothing stored", () => {
      const seen: Array<StorageError> = []
      return Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "createSession", status: 500 }])
        const run = yield* saveAll([hi])
        expect(run.calls).toStrictEqual([])
        expect(seen).toHaveLength(1)
        expect(seen[0]).toMatchObject({ reason: "CreateSession", sessionId: UUID_DEFAULT, blob: hiBlob })
        expect(seen[0]!.cause).toMatchObject({ reason: "Server", status: 500, operation: "createSession" })
        expect((yield* (yield* CAS.ClaudeAgentStorage).state).ensured).toBe(false)
        expect((yield* emu.requests).map((r) => r.status)).toStrictEqual(
          Array.from({ length: FAST_RETRY_ATTEMPTS }, () => 500)
        )
      }).pipe(Effect.provide(storageStack({
        sessionId: UUID_DEFAULT,
        onError: (error) => Effect.sync(() => void seen.push(error))
      })))
    })

    it.live("a discovered session id is used as use_uuid", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.systemInit(UUID_DISCOVERED), hi])
        expect(run.calls).toStrictEqual([create(UUID_DISCOVERED), store(UUID_DISCOVERED, hiBlob)])
      }))

    it.live("no session id: created without use_uuid, the generated id adopted", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [hi, S.userText("Second")])
        const id = generatedId(run)
        expect(run.calls).toStrictEqual([
          create(null),
          store(id, hiBlob),
          store(id, userBlob(textBlock("Second")))
        ])
        expect(run.requests[0]!.body).toStrictEqual({})
      }))

    it.live("the user option is passed to create", () =>
      Effect.gen(function*() {
        const run = yield* saveAll([hi])
        expect(run.calls).toStrictEqual([create(UUID_DEFAULT, "alice@example.com"), store(UUID_DEFAULT, hiBlob)])
        const [session] = yield* Effect.flatMap(AcontextEmulator, (e) => e.sessions)
        expect(session!.user_id).toMatch(/^[0-9a-f-]{36}$/)
      }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT, user: "alice@example.com" }))))
  })

  describe("session id not overwritten (2 cases)", () => {
    it.live("a resolved id is not overwritten by a later message", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({}, [S.systemInit(UUID_FIRST), S.resultMessage(UUID_SECOND)])
        expect(run.sessionIds).toStrictEqual([null, UUID_FIRST, UUID_FIRST])
        expect(run.outcomes.map((o) => o._tag)).toStrictEqual(["SessionResolved", "Skipped"])
      }))

    it.live("an explicit id is not overwritten by the stream", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [S.systemInit(UUID_FROM_STREAM), hi])
        expect(run.sessionIds).toStrictEqual([UUID_DEFAULT, UUID_DEFAULT, UUID_DEFAULT])
        expect(run.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
      }))
  })

  describe("assistant meta edge cases (2 cases)", () => {
    it.live("empty model → meta omitted on the wire, {} stored", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { model: "" })])
        expect(run.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)])
        expect(run.stored).toStrictEqual([["assistant", {}]])
        expect(run.requests[1]!.body).toStrictEqual({ format: "anthropic", blob: assistantBlob(TEXT_OUT) })
      }))

    it.live("includeThinking with only an empty thinking block: no has_thinking", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ sessionId: UUID_DEFAULT, includeThinking: true }, [
          S.assistant([S.EMPTY_THINKING, S.TEXT])
        ])
        expect(run.calls).toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
        ])
      }))
  })

  describe("full flow (2 cases)", () => {
    it.live("init → user → stream → assistant → result, read back with getMessages", () =>
      Effect.gen(function*() {
        const run = yield* saveAll([
          S.systemInit(UUID_FLOW),
          S.userBlocks(S.TEXT, S.TOOL_RESULT),
          S.streamEvent(UUID_FLOW),
          S.assistant([S.THINKING, S.TEXT, S.TOOL_USE], { model: MODEL }),
          S.resultMessage(UUID_FLOW)
        ])
        expect(run.calls).toStrictEqual([
          create(UUID_FLOW),
          store(UUID_FLOW, userBlob(TEXT_OUT, TOOL_RESULT_OUT)),
          store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL })
        ])
        expect(run.outcomes.map((o) => o._tag)).toStrictEqual([
          "SessionResolved",
          "Stored",
          "Skipped",
          "Stored",
          "Skipped"
        ])
        // Read back in Anthropic format (the emulator's converter: tool_result content becomes
        // one text item and is_error is always present).
        const page = yield* (yield* AcontextClient).getMessages(UUID_FLOW)
        expect(page.items).toStrictEqual([
          userBlob(TEXT_OUT, {
            type: "tool_result",
            tool_use_id: "tu_1",
            content: [textBlock("Result is 2")],
            is_error: false
          }),
          assistantBlob(TEXT_OUT, TOOL_USE_OUT)
        ])
        expect(page.metas).toStrictEqual([{}, { model: MODEL }])
      }).pipe(Effect.provide(storageStack({}))))

    it.live("init → assistant with thinking (includeThinking)", () =>
      Effect.gen(function*() {
        const run = yield* integrationRun({ includeThinking: true }, [
          S.systemInit(UUID_FLOW),
          S.assistant([S.THINKING, S.TEXT], { model: MODEL })
        ])
        expect(run.calls).toStrictEqual([
          create(UUID_FLOW),
          store(UUID_FLOW, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
        ])
        expect(run.stored).toStrictEqual([["assistant", { model: MODEL, has_thinking: true }]])
      }))
  })
})

describe("save outcomes", () => {
  it.live("Stored / Skipped (every reason) / SessionResolved, with their details", () =>
    Effect.gen(function*() {
      const uuid = "0b0b0b0b-0000-4000-8000-000000000001"
      const run = yield* saveAll([
        F.systemInit("not-a-uuid"),
        F.systemInit(UUID_FLOW),
        F.systemInit(UUID_SECOND),
        { ...F.userText("Prompt"), uuid },
        F.userReplay("Prompt", uuid),
        { ...F.userText("Prompt"), uuid },
        F.userText(""),
        42,
        { ...F.assistant([F.TEXT]), uuid: "a-1" }
      ])
      expect(run.outcomes).toStrictEqual([
        { _tag: "Skipped", reason: "InvalidSessionId", detail: "system: ignoring non-UUID session_id \"not-a-uuid\"" },
        { _tag: "SessionResolved", sessionId: UUID_FLOW },
        { _tag: "Skipped", reason: "NotStorable", detail: "system: not stored (session id already known)" },
        { _tag: "Stored", sessionId: UUID_FLOW, attempts: 1 },
        { _tag: "Skipped", reason: "DuplicateReplay", detail: `user replay ${uuid}: already stored` },
        { _tag: "Skipped", reason: "DuplicateUser", detail: `user message ${uuid}: already stored` },
        { _tag: "Skipped", reason: "EmptyContent", detail: "user message: no storable content" },
        { _tag: "Skipped", reason: "Unrecognized", detail: "not an SDK message (no string `type`)" },
        { _tag: "Stored", sessionId: UUID_FLOW, attempts: 1 }
      ])
      const state = yield* (yield* CAS.ClaudeAgentStorage).state
      expect(state.sessionId).toBe(UUID_FLOW)
      expect(state.ensured).toBe(true)
      expect(HashSet.toValues(state.storedUserUuids)).toStrictEqual([uuid])
    }).pipe(Effect.provide(storageStack({}))))

  it.live("replays: \"skip\" → Skipped ReplaySkipped", () =>
    Effect.gen(function*() {
      const run = yield* integrationRun({ sessionId: UUID_DEFAULT, replays: "skip" }, [F.userReplay("Replayed", "r-1")])
      expect(run.outcomes).toStrictEqual([{
        _tag: "Skipped",
        reason: "ReplaySkipped",
        detail: "user replay: skipped (replays: \"skip\")"
      }])
      expect(run.calls).toStrictEqual([])
    }))

  it.live("Failed carries the StorageError (default policy \"log\")", () =>
    Effect.gen(function*() {
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
      const storage = yield* CAS.ClaudeAgentStorage
      const failed = yield* storage.save(F.userText("one"))
      expect(failed._tag).toBe("Failed")
      const error = (failed as Extract<CAS.SaveOutcome, { _tag: "Failed" }>).error
      expect(error).toBeInstanceOf(StorageError)
      expect(error).toMatchObject({
        _tag: "StorageError",
        reason: "StoreMessage",
        sessionId: UUID_DEFAULT,
        blob: userBlob(textBlock("one")),
        meta: null
      })
      expect(error.message).toBe(
        `Failed to store message (session=${UUID_DEFAULT}): StoreMessage: Acontext storeMessage failed: BadRequest 400: parameter error (fault injected by the acx emulator)`
      )
      expect(yield* storage.save(F.userText("two"))).toStrictEqual({
        _tag: "Stored",
        sessionId: UUID_DEFAULT,
        attempts: 1
      })
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

  // Every request is counted: a single rejected request (400) is 1 attempt, a failure after the
  // schedule is exhausted 4, a store that succeeded on the 2nd attempt 2.
  it("attempts count every request: Failed (400) 1, Failed after the schedule 4 + 4 tail reads, Stored after a retry 2 + 2 reads", () =>
    Effect.gen(function*() {
      const emu = yield* AcontextEmulator
      const storage = yield* CAS.ClaudeAgentStorage
      yield* emu.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
      const rejected = yield* storage.save(F.userText("one"))
      yield* emu.setFaults([{ route: "storeMessage", status: 503 }])
      const exhausted = yield* storage.save(F.userText("two"))
      yield* emu.setFaults([{ route: "storeMessage", status: 503, times: 1 }])
      const stored = yield* storage.save(F.userText("three"))
      const attemptsOf = (o: CAS.SaveOutcome) => (o._tag === "Failed" ? o.error.attempts : -1)
      // A 503 may hide an applied store: each one is followed by a read of the session's tail
      // (one GET: the session holds at most one message here), a request too. "three" starts
      // with a read as well: "two" failed in doubt, so the session's tail is checked first.
      expect([attemptsOf(rejected), attemptsOf(exhausted), stored]).toStrictEqual([
        1,
        2 * FAST_RETRY_ATTEMPTS,
        { _tag: "Stored", sessionId: UUID_DEFAULT, attempts: 4 }
      ])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT })), Effect.runPromise))
})

describe("sink and tap", () => {
  const conversation = [
    F.systemInit(UUID_FLOW),
    F.userText("What is 1+1?"),
    F.streamEvent(UUID_FLOW),
    F.assistant([F.TEXT, F.TOOL_USE]),
    F.userBlocks(F.TOOL_RESULT),
    F.assistant([F.TEXT]),
    F.resultMessage(UUID_FLOW)
  ]
  const expectedCalls = [
    create(UUID_FLOW),
    store(UUID_FLOW, userBlob(textBlock("What is 1+1?"))),
    store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL }),
    store(UUID_FLOW, userBlob(TOOL_RESULT_OUT)),
    store(UUID_FLOW, assistantBlob(TEXT_OUT), { model: MODEL })
  ]

  it.live("sink: saves every element of a stream", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      yield* Stream.run(Stream.fromIterable(conversation), storage.sink)
      expect(yield* wire).toStrictEqual(expectedCalls)
      expect(yield* messagesOf(UUID_FLOW)).toHaveLength(4)
    }).pipe(Effect.provide(storageStack({}))))

  it.live("tap: yields every element unchanged (same objects, same order), saving each", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const out = Chunk.toReadonlyArray(yield* Stream.runCollect(storage.tap(Stream.fromIterable(conversation))))
      expect(out).toHaveLength(conversation.length)
      out.forEach((element, i) => expect(element).toBe(conversation[i]))
      expect(yield* wire).toStrictEqual(expectedCalls)
    }).pipe(Effect.provide(storageStack({}))))

  it.live("tap saves each element before passing it on", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      const seen: Array<number> = []
      yield* storage.tap(Stream.fromIterable([F.userText("a"), F.userText("b")])).pipe(
        Stream.runForEach(() => Effect.map(emu.messages(UUID_DEFAULT), (m) => void seen.push(m.length)))
      )
      expect(seen).toStrictEqual([1, 2])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

  it.live("tap with policy \"fail\": the stream fails with the StorageError", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", status: 400, everyNth: 2, times: 1 }])
      const seen: Array<unknown> = []
      const result = yield* Effect.either(
        storage.tap(Stream.fromIterable([F.userText("a"), F.userText("b"), F.userText("c")])).pipe(
          Stream.runForEach((m) => Effect.sync(() => void seen.push(m)))
        )
      )
      expect(Either.isLeft(result)).toBe(true)
      const error = Either.isLeft(result) ? result.left : undefined
      expect(error).toBeInstanceOf(StorageError)
      expect(error).toMatchObject({ _tag: "StorageError", reason: "StoreMessage", blob: userBlob(textBlock("b")) })
      expect(seen).toHaveLength(1)
      expect((yield* emu.messages(UUID_DEFAULT)).map((m) => m.parts)).toStrictEqual([[{ type: "text", text: "a" }]])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT, onError: "fail" }))))
})

describe("error policies and the failures stream", () => {
  /** Forks a subscriber of the first `n` failures and gives it time to subscribe. */
  const collectFailures = (n: number) =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const fiber = yield* Stream.take(storage.failures, n).pipe(Stream.runCollect, Effect.fork)
      yield* Effect.sleep("30 millis")
      return fiber
    })

  it.live("\"fail\": save fails with the typed StorageError; later saves still work", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
      const result = yield* Effect.either(storage.save(F.userText("one")))
      expect(Either.isLeft(result)).toBe(true)
      const error = (result as Either.Left<StorageError, CAS.SaveOutcome>).left
      expect(error).toBeInstanceOf(StorageError)
      expect(error).toMatchObject({ reason: "StoreMessage", sessionId: UUID_DEFAULT })
      expect(error.cause).toBeInstanceOf(AcontextError)
      // The error channel is typed: catchTag works.
      const recovered = yield* storage.save(F.userText("two")).pipe(
        Effect.catchTag("StorageError", () => Effect.succeed("caught"))
      )
      expect(recovered).toStrictEqual({ _tag: "Stored", sessionId: UUID_DEFAULT, attempts: 1 })
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT, onError: "fail" }))))

  it.live("\"fail\" with a create failure: reason CreateSession; the next save creates again", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "createSession", status: 400, times: 1 }])
      const first = yield* Effect.flip(storage.save(F.userText("one")))
      expect(first).toBeInstanceOf(StorageError)
      expect({ reason: first.reason, sessionId: first.sessionId }).toStrictEqual({
        reason: "CreateSession",
        sessionId: UUID_DEFAULT
      })
      expect(yield* storage.save(F.userText("two"))).toMatchObject({ _tag: "Stored" })
      expect(wireCalls(yield* emu.requests, () => true)).toStrictEqual([
        create(UUID_DEFAULT),
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, userBlob(textBlock("two")))
      ])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT, onError: "fail" }))))

  it.live("handler that fails or dies: logged (\"acx onError handler failed\"), save still succeeds", () => {
    const logs = captureLogs()
    let calls = 0
    return Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", status: 400 }])
      const a = yield* storage.save(F.userText("one"))
      const b = yield* storage.save(F.userText("two"))
      expect([a._tag, b._tag]).toStrictEqual(["Failed", "Failed"])
      expect(calls).toBe(2)
      const handlerLogs = logs.lines.filter((l) => l.message === "acx onError handler failed")
      expect(handlerLogs).toHaveLength(2)
      expect(handlerLogs.map((l) => l.level)).toStrictEqual(["WARN", "WARN"])
      expect(handlerLogs[0]!.cause).toContain("handler failed on purpose")
      expect(handlerLogs[1]!.cause).toContain("handler died on purpose")
    }).pipe(
      Effect.provide(Layer.merge(
        storageStack({
          sessionId: UUID_DEFAULT,
          onError: () =>
            ++calls === 1
              ? Effect.fail(new Error("handler failed on purpose"))
              : Effect.die(new Error("handler died on purpose"))
        }),
        logs.layer
      ))
    )
  })

  it.live("failures: every failure is published, whatever the policy (\"log\")", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      const fiber = yield* collectFailures(3)
      yield* emu.setFaults([{ route: "createSession", status: 400, times: 1 }, {
        route: "storeMessage",
        status: 400,
        everyNth: 2
      }])
      const outcomes = []
      for (const text of ["a", "b", "c", "d", "e"]) outcomes.push((yield* storage.save(F.userText(text)))._tag)
      // a: create 400; b: stored (store #1); c: store #2 → 400; d: stored; e: store #4 → 400.
      expect(outcomes).toStrictEqual(["Failed", "Stored", "Failed", "Stored", "Failed"])
      const failures = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      expect(failures.map((f) => [f.reason, (f.blob as { content: Array<{ text: string }> }).content[0]!.text]))
        .toStrictEqual([["CreateSession", "a"], ["StoreMessage", "c"], ["StoreMessage", "e"]])
      failures.forEach((f) => expect(f).toBeInstanceOf(StorageError))
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

  it.live("failures: published with the \"fail\" policy and the handler policy too", () =>
    Effect.gen(function*() {
      const handled: Array<StorageError> = []
      for (const policy of ["fail", (e: StorageError) => Effect.sync(() => void handled.push(e))] as const) {
        yield* Effect.gen(function*() {
          const storage = yield* CAS.ClaudeAgentStorage
          const emu = yield* AcontextEmulator
          const fiber = yield* collectFailures(1)
          yield* emu.setFaults([{ route: "storeMessage", status: 400 }])
          yield* Effect.either(storage.save(F.userText("x")))
          const [failure] = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
          expect(failure).toMatchObject({ reason: "StoreMessage", blob: userBlob(textBlock("x")) })
        }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT, onError: policy })))
      }
      expect(handled).toHaveLength(1)
    }))
})

describe("session creation against a real server's answers", () => {
  it.live("idempotent create: the session already exists in this project → 200, stored into it", () =>
    Effect.gen(function*() {
      const acontext = yield* AcontextClient
      yield* acontext.createSession({ useUuid: UUID_DEFAULT })
      yield* acontext.storeMessage(UUID_DEFAULT, userBlob(textBlock("earlier")))
      const storage = yield* CAS.ClaudeAgentStorage
      expect(yield* storage.save(F.userText("Hi"))).toStrictEqual({
        _tag: "Stored",
        sessionId: UUID_DEFAULT,
        attempts: 1
      })
      const log = yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)
      expect(log.filter((r) => r.route === "createSession").map((r) => r.status)).toStrictEqual([201, 200])
      expect((yield* messagesOf(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(["earlier", "Hi"])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

  it.live("409 for a UUID another project owns: acx treats it as \"exists\" and continues; every store then fails (400), reported, never stored", () =>
    Effect.gen(function*() {
      // docs/design.md#behaviour-decisions-for-claudeagentstorage: 200 and 409 both mean "exists, continue". On a real server a 409
      // with a UUID means a create race OR another project's session; in the second case the
      // stores that follow are rejected with 400 (DBErr "session does not belong to project")
      // — acx reports each one through the error policy and does not create again.
      const emu = yield* AcontextEmulator
      const other = yield* AcontextClientModule.make({
        apiKey: AcontextClientModule.apiKey(emu.otherProjectApiKey),
        baseUrl: emu.url
      })
      yield* other.createSession({ useUuid: UUID_DEFAULT })
      const storage = yield* CAS.ClaudeAgentStorage
      const first = yield* storage.save(F.userText("one"))
      const second = yield* storage.save(F.userText("two"))
      expect([first._tag, second._tag]).toStrictEqual(["Failed", "Failed"])
      const error = (first as Extract<CAS.SaveOutcome, { _tag: "Failed" }>).error
      expect(error).toMatchObject({ reason: "StoreMessage", sessionId: UUID_DEFAULT })
      expect(error.cause).toMatchObject({
        reason: "BadRequest",
        status: 400,
        code: 500,
        description: "database error",
        detail: "session does not belong to project"
      })
      expect((yield* storage.state).ensured).toBe(true)
      const log = yield* emu.requests
      expect(log.map((r) => [r.route, r.status])).toStrictEqual([
        ["createSession", 201],
        ["createSession", 409],
        ["storeMessage", 400],
        ["storeMessage", 400]
      ])
      expect(yield* emu.messages(UUID_DEFAULT)).toStrictEqual([])
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))

  it.live("409 without any session id cannot mean \"exists\": CreateSession failure, created again next time", () =>
    Effect.gen(function*() {
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "createSession", status: 409, times: 1 }])
      const storage = yield* CAS.ClaudeAgentStorage
      const first = yield* storage.save(F.userText("one"))
      expect(first).toMatchObject({ _tag: "Failed", error: { reason: "CreateSession", sessionId: null } })
      const second = yield* storage.save(F.userText("two"))
      expect(second._tag).toBe("Stored")
      expect((yield* emu.requests).map((r) => r.status)).toStrictEqual([409, 201, 201])
    }).pipe(Effect.provide(storageStack({}))))

  it.live("a UUID given in upper case: the server's canonical (lower-case) id is adopted", () =>
    Effect.gen(function*() {
      const upper = "ABCDEF01-2345-4678-9ABC-DEF012345678"
      const run = yield* saveAll([F.systemInit(upper), F.userText("Hi")])
      expect(run.sessionIds).toStrictEqual([null, upper, upper.toLowerCase()])
      expect(run.calls).toStrictEqual([
        create(upper),
        store(upper.toLowerCase(), userBlob(textBlock("Hi")))
      ])
    }).pipe(Effect.provide(storageStack({}))))

  it.live("a non-UUID explicit sessionId: the layer fails to build with InvalidSessionId", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.scoped(Layer.build(CAS.layer({ sessionId: "sess-1" }).pipe(Layer.provide(client()))))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      expect(JSON.stringify(error)).toContain("InvalidSessionId")
      const flipped = yield* Effect.flip(
        Effect.scoped(Layer.build(CAS.layer({ sessionId: "sess-1" }).pipe(Layer.provide(client()))))
      )
      expect(flipped).toBeInstanceOf(InvalidSessionId)
      expect(flipped).toMatchObject({ sessionId: "sess-1", reason: "NotAUuid" })
      expect(yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)).toStrictEqual([])
    }).pipe(Effect.provide(emulator())))
})

describe("replays and Python dicts", () => {
  it.live("a prompt and its replay ack (same uuid) are stored once; the tool-result turn is stored", () =>
    Effect.gen(function*() {
      const uuid = "0c0c0c0c-0000-4000-8000-000000000001"
      const run = yield* saveAll([
        F.systemInit(UUID_FLOW),
        { ...F.userText("List files"), uuid },
        F.userReplay("List files", uuid),
        F.assistant([F.TOOL_USE]),
        { ...F.userBlocks(F.TOOL_RESULT), uuid: "0c0c0c0c-0000-4000-8000-000000000002" },
        F.userReplay("List files", uuid)
      ])
      expect(run.outcomes.map((o) => (o._tag === "Skipped" ? o.reason : o._tag))).toStrictEqual([
        "SessionResolved",
        "Stored",
        "DuplicateReplay",
        "Stored",
        "Stored",
        "DuplicateReplay"
      ])
      expect(run.calls).toStrictEqual([
        create(UUID_FLOW),
        store(UUID_FLOW, userBlob(textBlock("List files"))),
        store(UUID_FLOW, assistantBlob(TOOL_USE_OUT), { model: MODEL }),
        store(UUID_FLOW, userBlob(TOOL_RESULT_OUT))
      ])
      expectStoredAsSent(run)
    }).pipe(Effect.provide(storageStack({}))))

  it.live("a replay alone (the TS SDK's only view of a prompt) is stored once", () =>
    Effect.gen(function*() {
      const run = yield* integrationRun({ sessionId: UUID_DEFAULT }, [
        F.userReplay("Prompt", "r-1"),
        F.userReplay("Prompt", "r-1")
      ])
      expect(run.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("Prompt")))])
    }))

  it.live("Python dicts: the same wire calls as the TypeScript shapes", () =>
    Effect.gen(function*() {
      const ts = yield* integrationRun({ includeThinking: true }, [
        F.systemInit(UUID_FLOW),
        F.userBlocks(F.TEXT, F.TOOL_USE, F.TOOL_RESULT, F.TOOL_RESULT_ARRAY, F.TOOL_RESULT_NULL, F.TOOL_RESULT_ERROR),
        F.assistant([F.THINKING, F.TEXT, F.TOOL_USE, F.TOOL_RESULT], { error: "x" })
      ])
      const py = yield* integrationRun({ includeThinking: true }, [
        F.pySystemInit(UUID_FLOW),
        F.pyUserBlocks(
          F.PY_TEXT,
          F.PY_TOOL_USE,
          F.PY_TOOL_RESULT,
          F.PY_TOOL_RESULT_ARRAY,
          F.PY_TOOL_RESULT_NULL,
          F.PY_TOOL_RESULT_ERROR
        ),
        F.pyAssistant([F.PY_THINKING, F.PY_TEXT, F.PY_TOOL_USE, F.PY_TOOL_RESULT], { error: "x" })
      ])
      expect(py.calls).toStrictEqual(ts.calls)
      expect(py.stored).toStrictEqual(ts.stored)
      expect(ts.calls).toHaveLength(3)
    }))
})

describe("concurrency", () => {
  it.live("saves from many fibers at once are serialised: stored in the order they were started", () =>
    Effect.gen(function*() {
      const storage = yield* CAS.ClaudeAgentStorage
      const emu = yield* AcontextEmulator
      yield* emu.setFaults([{ route: "storeMessage", latencyMs: 3 }])
      const texts = Array.from({ length: 15 }, (_, i) => `m${i}`)
      yield* Effect.forEach(texts, (text) => storage.save(F.userText(text)), { concurrency: "unbounded" })
      expect((yield* emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(texts)
      expect((yield* emu.requests).filter((r) => r.route === "createSession")).toHaveLength(1)
    }).pipe(Effect.provide(storageStack({ sessionId: UUID_DEFAULT }))))
})
