/**
 * The storage test groups of Acontext's integrations (TypeScript; Python dicts) against the REAL
 * Promise facade, `new ClaudeAgentStorage({ client })` from `@acx/storage/promise`, with a
 * recording duck-typed client (test/utils/recordingClient.ts).
 *
 * The expected `create` / `storeMessage` sequences are the ones the pure model expects in
 * packages/convert/test/AcontextTsIntegration.test.ts and AcontextPythonIntegration.test.ts
 * (same UUID substitutions: acx only accepts UUID session ids; thinking is a text block by
 * default; replays are stored unless `replays: "skip"`). On top of the sequences, this file checks what only the real facade can
 * show: the raw wire arguments, the `sessionId` getter, `onError(err, blob)` with the very error
 * the client threw, `console.warn` by default, handler failures, no retries of a duck client's
 * errors, and `close()` / `await using`.
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
  UUID_AUTO,
  UUID_DEFAULT,
  UUID_DISCOVERED,
  UUID_FIRST,
  UUID_FLOW,
  UUID_FROM_RESULT,
  UUID_FROM_STREAM,
  UUID_SECOND
} from "@acx/fixtures/acontextVectors"
import { ClaudeAgentStorage, type ClaudeAgentStorageOptions } from "@acx/storage/promise"
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "@effect/vitest"
import {
  ApiError,
  type Call,
  type CreateAnswer,
  ok,
  recordingClient,
  type RecordingClientOptions,
  script,
  session,
  type StoreAnswer,
  throws
} from "./utils/recordingClient.js"
import { PY, TEXT_OUT, THINKING_AS_TEXT, TOOL_RESULT_OUT, TOOL_USE_OUT, TS } from "./utils/shapes.js"

let warn: MockInstance<typeof console.warn>
let log: MockInstance<typeof console.log>

beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {})
  log = vi.spyOn(console, "log").mockImplementation(() => {})
})

afterEach(() => {
  vi.restoreAllMocks()
})

/** The `console.warn` lines of the default error policy: `[line, error]`. */
const failureWarnings = () =>
  warn.mock.calls.filter((args) => String(args[0]).startsWith("acx: Failed to store message"))

const loggedText = () => log.mock.calls.map((args) => args.map(String).join(" ")).join("\n")

interface Options extends Omit<ClaudeAgentStorageOptions, "client" | "onError"> {
  /** `true`: collect `onError(err, blob)` calls; otherwise the default policy (console.warn). */
  readonly onError?: boolean
}

interface FacadeRun {
  readonly calls: ReadonlyArray<Call>
  readonly raw: ReturnType<typeof recordingClient>["raw"]
  readonly errors: ReadonlyArray<{ readonly error: unknown; readonly blob: unknown }>
  /** The `sessionId` getter before any message, then after each message. */
  readonly sessionIds: ReadonlyArray<string | null>
}

/**
 * Feeds `messages` one by one (awaiting each) through a new facade on a recording client, then
 * closes it. Every stored blob must satisfy `AnthropicBlob` (and its meta `AssistantMeta`).
 */
const runFacade = async (
  options: Options,
  messages: ReadonlyArray<unknown>,
  clientOptions: RecordingClientOptions = {}
): Promise<FacadeRun> => {
  const client = recordingClient(clientOptions)
  const errors: Array<{ error: unknown; blob: unknown }> = []
  const { onError, ...rest } = options
  const storage = new ClaudeAgentStorage({
    ...rest,
    client,
    ...(onError === true ? { onError: (error, blob) => void errors.push({ error, blob }) } : {})
  })
  const sessionIds: Array<string | null> = [storage.sessionId]
  try {
    for (const message of messages) {
      await expect(storage.saveMessage(message)).resolves.toBeUndefined()
      sessionIds.push(storage.sessionId)
    }
  } finally {
    await storage.close()
  }
  expect(client.invalid).toStrictEqual([])
  return { calls: client.calls, raw: client.raw, errors, sessionIds }
}

const failingStore = (error: unknown) => ({ storeMessage: script<StoreAnswer>(throws(error)) })
const failingCreate = (...answers: [CreateAnswer, ...Array<CreateAnswer>]) => ({ create: script(...answers) })

describe.each([TS, PY])("$name", (S) => {
  const hi = S.userText("Hi")
  const hiBlob = userBlob(textBlock("Hi"))

  describe("basic, sessionId provided (6 cases)", () => {
    it("user message: created lazily, stored with format anthropic and meta null", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [hi])
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
      // The exact wire arguments of the duck-typed client.
      expect(r.raw).toStrictEqual([
        { method: "create", args: [{ useUuid: UUID_DEFAULT, user: null }] },
        { method: "storeMessage", args: [UUID_DEFAULT, hiBlob, { format: "anthropic", meta: null }] }
      ])
    })

    it("assistant message: meta.model", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { model: MODEL })])
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
      ])
      expect(r.raw[1]).toStrictEqual({
        method: "storeMessage",
        args: [UUID_DEFAULT, assistantBlob(TEXT_OUT), { format: "anthropic", meta: { model: MODEL } }]
      })
    })

    it("assistant with thinking and includeThinking: a text block and meta.has_thinking", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT, includeThinking: true }, [S.assistant([S.THINKING, S.TEXT])])
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
      ])
    })

    it("system message: not stored, no session created", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.systemInit()])).calls).toStrictEqual([])
    })

    it("result message: not stored", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.resultMessage()])).calls).toStrictEqual([])
    })

    it("stream event: not stored", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.streamEvent()])).calls).toStrictEqual([])
    })
  })

  describe("session discovery (5 cases)", () => {
    it("session_id from system init is used for later stores", async () => {
      const r = await runFacade({}, [S.systemInit(UUID_DISCOVERED), S.userText("After init")])
      expect(r.sessionIds).toStrictEqual([null, UUID_DISCOVERED, UUID_DISCOVERED])
      expect(r.calls).toStrictEqual([
        create(UUID_DISCOVERED),
        store(UUID_DISCOVERED, userBlob(textBlock("After init")))
      ])
    })

    it("session_id from a result message", async () => {
      const r = await runFacade({}, [S.resultMessage(UUID_FROM_RESULT)])
      expect(r.sessionIds).toStrictEqual([null, UUID_FROM_RESULT])
      expect(r.calls).toStrictEqual([])
    })

    it("session_id from a stream event", async () => {
      const r = await runFacade({}, [S.streamEvent(UUID_FROM_STREAM)])
      expect(r.sessionIds).toStrictEqual([null, UUID_FROM_STREAM])
      expect(r.calls).toStrictEqual([])
    })

    it("user message before any session id: create(null), Acontext's id adopted", async () => {
      const r = await runFacade({}, [S.userText("Before init")])
      expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, userBlob(textBlock("Before init")))])
      expect(r.raw[0]).toStrictEqual({ method: "create", args: [{ useUuid: null, user: null }] })
      expect(r.sessionIds).toStrictEqual([null, UUID_AUTO])
    })

    it("assistant message before any session id: create(null), Acontext's id adopted", async () => {
      const r = await runFacade({}, [S.assistant([S.TEXT])])
      expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, assistantBlob(TEXT_OUT), { model: MODEL })])
      expect(r.sessionIds).toStrictEqual([null, UUID_AUTO])
    })
  })

  describe("errored assistant messages (2 cases)", () => {
    it("with valid content: stored, meta.error set (Rule 11)", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { error: "rate_limit" })])
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL, error: "rate_limit" })
      ])
    })

    it("with empty content: skipped, no call at all", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.EMPTY_TEXT], { error: "server_error" })])
      expect(r.calls).toStrictEqual([])
    })
  })

  describe("empty content (4 cases): nothing stored, no session created", () => {
    it("empty user string", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.userText("")])).calls).toStrictEqual([])
    })

    it("user with only empty text blocks", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.userBlocks(S.EMPTY_TEXT, S.EMPTY_TEXT)])).calls)
        .toStrictEqual([])
    })

    it("assistant with only thinking, includeThinking false", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.THINKING])])).calls).toStrictEqual([])
    })

    it("user with only tool_use blocks", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.userBlocks(S.TOOL_USE)])).calls).toStrictEqual([])
    })
  })

  describe("error handling (2 cases)", () => {
    it("default: one console.warn line with the session id and the client's error; not thrown; the loop goes on", async () => {
      const down = new ApiError(500, "API down")
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [hi, S.userText("Again")], failingStore(down))
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, hiBlob),
        store(UUID_DEFAULT, userBlob(textBlock("Again")))
      ])
      // acx's divergence from Acontext's integrations (which pass the error object, printed with
      // its stack): one line, the cause by its message
      const line = `acx: Failed to store message (session=${UUID_DEFAULT}): StoreMessage: API down`
      expect(failureWarnings()).toStrictEqual([[line], [line]])
    })

    it("with onError: called with (the client's error, the converted blob); nothing warned", async () => {
      const down = new ApiError(500, "API down")
      const r = await runFacade({ sessionId: UUID_DEFAULT, onError: true }, [hi], failingStore(down))
      expect(r.errors).toHaveLength(1)
      expect(r.errors[0]!.error).toBe(down)
      expect(r.errors[0]!.blob).toStrictEqual(hiBlob)
      expect(failureWarnings()).toStrictEqual([])
    })
  })

  describe("session creation (7 cases)", () => {
    it("created on the first store, with use_uuid = the known id", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [hi])).calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, hiBlob)
      ])
    })

    it("created only once for several stores", async () => {
      expect((await runFacade({ sessionId: UUID_DEFAULT }, [S.userText("First"), S.userText("Second")])).calls)
        .toStrictEqual([
          create(UUID_DEFAULT),
          store(UUID_DEFAULT, userBlob(textBlock("First"))),
          store(UUID_DEFAULT, userBlob(textBlock("Second")))
        ])
    })

    it("409 on create: the session exists, the store goes ahead with the same id, no error", async () => {
      const r = await runFacade(
        { sessionId: UUID_DEFAULT, onError: true },
        [hi, S.userText("Again")],
        failingCreate(throws(new ApiError(409, "session with this UUID already exists")))
      )
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, hiBlob),
        store(UUID_DEFAULT, userBlob(textBlock("Again")))
      ])
      expect(r.errors).toStrictEqual([])
    })

    it("non-409 failure on create: onError(err, blob), nothing stored", async () => {
      const boom = new ApiError(500, "internal server error")
      const r = await runFacade({ sessionId: UUID_DEFAULT, onError: true }, [hi], failingCreate(throws(boom)))
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT)])
      expect(r.errors).toHaveLength(1)
      expect(r.errors[0]!.error).toBe(boom)
      expect(r.errors[0]!.blob).toStrictEqual(hiBlob)
    })

    it("a discovered session id is used as use_uuid", async () => {
      expect((await runFacade({}, [S.systemInit(UUID_DISCOVERED), hi])).calls).toStrictEqual([
        create(UUID_DISCOVERED),
        store(UUID_DISCOVERED, hiBlob)
      ])
    })

    it("no session id: use_uuid null, Acontext's generated id adopted", async () => {
      const r = await runFacade({}, [hi])
      expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, hiBlob)])
      expect(r.sessionIds.at(-1)).toBe(UUID_AUTO)
    })

    it("the user option is passed to create", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT, user: "alice@example.com" }, [hi])
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT, "alice@example.com"), store(UUID_DEFAULT, hiBlob)])
      expect(r.raw[0]).toStrictEqual({ method: "create", args: [{ useUuid: UUID_DEFAULT, user: "alice@example.com" }] })
    })
  })

  describe("session id not overwritten (2 cases)", () => {
    it("a resolved id is not overwritten by a later message", async () => {
      const r = await runFacade({}, [S.systemInit(UUID_FIRST), S.resultMessage(UUID_SECOND)])
      expect(r.sessionIds).toStrictEqual([null, UUID_FIRST, UUID_FIRST])
    })

    it("an explicit id is not overwritten by the stream", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.systemInit(UUID_FROM_STREAM), hi])
      expect(r.sessionIds).toStrictEqual([UUID_DEFAULT, UUID_DEFAULT, UUID_DEFAULT])
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
    })
  })

  describe("assistant meta edge cases (2 cases)", () => {
    it("empty model string → not in meta; meta empty → null", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.TEXT], { model: "" })])
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)])
      expect(r.raw[1]).toStrictEqual({
        method: "storeMessage",
        args: [UUID_DEFAULT, assistantBlob(TEXT_OUT), { format: "anthropic", meta: null }]
      })
    })

    it("includeThinking with only an empty thinking block: no has_thinking", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT, includeThinking: true }, [
        S.assistant([S.EMPTY_THINKING, S.TEXT])
      ])
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
      ])
    })
  })

  describe("full flow (2 cases)", () => {
    it("init → user → stream → assistant → result", async () => {
      const r = await runFacade({}, [
        S.systemInit(UUID_FLOW),
        S.userText("What is 1+1?"),
        S.streamEvent(UUID_FLOW),
        S.assistant([S.THINKING, S.TEXT, S.TOOL_USE], { model: MODEL }),
        S.resultMessage(UUID_FLOW)
      ])
      expect(r.calls).toStrictEqual([
        create(UUID_FLOW),
        store(UUID_FLOW, userBlob(textBlock("What is 1+1?"))),
        store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL })
      ])
      expect(r.sessionIds).toStrictEqual([null, UUID_FLOW, UUID_FLOW, UUID_FLOW, UUID_FLOW, UUID_FLOW])
    })

    it("init → assistant with thinking (includeThinking)", async () => {
      const r = await runFacade({ includeThinking: true }, [
        S.systemInit(UUID_FLOW),
        S.assistant([S.THINKING, S.TEXT], { model: MODEL })
      ])
      expect(r.calls).toStrictEqual([
        create(UUID_FLOW),
        store(UUID_FLOW, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
      ])
    })
  })

  describe("mixed blocks", () => {
    it("user text + tool_use + tool_result: tool_use skipped, order kept", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.userBlocks(S.TEXT, S.TOOL_USE, S.TOOL_RESULT)])
      expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(TEXT_OUT, TOOL_RESULT_OUT))])
    })

    it("assistant text + tool_result: tool_result skipped", async () => {
      const r = await runFacade({ sessionId: UUID_DEFAULT }, [S.assistant([S.TOOL_RESULT, S.TEXT])])
      expect(r.calls).toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
      ])
    })
  })
})

describe("Acontext TS integration only: replay messages", () => {
  it("replays: \"skip\" → a replay frame is not stored (the upstream vector)", async () => {
    expect((await runFacade({ sessionId: UUID_DEFAULT, replays: "skip" }, [F.userReplay("Replayed")])).calls)
      .toStrictEqual([])
  })

  it("default: a replay frame is stored (acx's replay decision overrides upstream's skip)", async () => {
    expect((await runFacade({ sessionId: UUID_DEFAULT }, [F.userReplay("Replayed")])).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Replayed")))
    ])
  })

  it("a user message and its replay (same uuid) are stored once; another uuid is stored again", async () => {
    const uuid = "0b0b0b0b-0000-4000-8000-000000000001"
    const r = await runFacade({ sessionId: UUID_DEFAULT }, [
      { ...F.userText("Prompt"), uuid },
      F.userReplay("Prompt", uuid),
      F.userReplay("Prompt", uuid),
      F.userReplay("Prompt", "0b0b0b0b-0000-4000-8000-000000000002")
    ])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Prompt"))),
      store(UUID_DEFAULT, userBlob(textBlock("Prompt")))
    ])
  })

  it("a replay whose first store failed is stored when it comes again", async () => {
    const uuid = "0b0b0b0b-0000-4000-8000-000000000003"
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userReplay("Prompt", uuid), F.userReplay("Prompt", uuid), F.userReplay("Prompt", uuid)],
      { storeMessage: script<StoreAnswer>(throws(new ApiError(503)), ok) }
    )
    // First attempt failed → not recorded as stored → the second replay is stored; the third is a duplicate.
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Prompt"))),
      store(UUID_DEFAULT, userBlob(textBlock("Prompt")))
    ])
    expect(r.errors).toHaveLength(1)
  })
})

describe("Acontext TS integration only: more meta edge cases", () => {
  it("no model, no thinking, no error → meta null", async () => {
    const message = { type: "assistant", message: { role: "assistant", content: [F.TEXT] } }
    expect((await runFacade({ sessionId: UUID_DEFAULT }, [message])).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)
    ])
  })

  it("thinkingFormat: \"native\" stores upstream HEAD's native thinking block", async () => {
    const r = await runFacade({ sessionId: UUID_DEFAULT, includeThinking: true, thinkingFormat: "native" }, [
      F.assistant([F.THINKING, F.TEXT, F.TOOL_USE])
    ])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(
        UUID_DEFAULT,
        assistantBlob({ type: "thinking", thinking: "Let me reason...", signature: "sig123" }, TEXT_OUT, TOOL_USE_OUT),
        { model: MODEL, has_thinking: true }
      )
    ])
  })
})

describe("Acontext Python integration only: Python dict shapes", () => {
  it("dataclass-like instances are handled like their dicts", async () => {
    class FakeUserMessage {
      content = "Dataclass hello"
    }
    class FakeAssistantMessage {
      content: Array<unknown> = [{ text: "reply" }]
      model = MODEL
    }
    const r = await runFacade({ sessionId: UUID_DEFAULT }, [new FakeUserMessage(), new FakeAssistantMessage()])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Dataclass hello"))),
      store(UUID_DEFAULT, assistantBlob(textBlock("reply")), { model: MODEL })
    ])
  })

  it("no model → meta null", async () => {
    expect((await runFacade({ sessionId: UUID_DEFAULT }, [{ content: [F.PY_TEXT], model: "" }])).calls)
      .toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)])
  })

  it("system (any subtype), result and stream events are never stored", async () => {
    const r = await runFacade({ sessionId: UUID_DEFAULT }, [
      F.pySystemInit(),
      F.pySystemOther(),
      { subtype: "compact_boundary", data: { session_id: UUID_SECOND } },
      F.pyResultMessage(),
      F.pyStreamEvent()
    ])
    expect(r.calls).toStrictEqual([])
    expect(r.sessionIds.every((id) => id === UUID_DEFAULT)).toBe(true)
  })

  it("init without data.session_id: nothing resolved, no crash", async () => {
    const r = await runFacade({}, [{ subtype: "init", data: {} }, { subtype: "init", data: "string-data" }])
    expect(r.sessionIds).toStrictEqual([null, null, null])
    expect(r.calls).toStrictEqual([])
  })

  it("user/assistant before any session id → a session is CREATED (the plan's skip is overridden)", async () => {
    const r = await runFacade({}, [F.pyUserText("early"), F.pyAssistant([F.PY_TEXT])])
    expect(r.calls).toStrictEqual([
      create(null),
      store(UUID_AUTO, userBlob(textBlock("early"))),
      store(UUID_AUTO, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
    expect(failureWarnings()).toStrictEqual([])
  })

  it("store fails once: on_error invoked, the loop continues", async () => {
    const unavailable = new ApiError(503, "unavailable")
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.pyUserText("one"), F.pyUserText("two")],
      { storeMessage: script<StoreAnswer>(throws(unavailable), ok) }
    )
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("one"))),
      store(UUID_DEFAULT, userBlob(textBlock("two")))
    ])
    expect(r.errors).toHaveLength(1)
    expect(r.errors[0]!.error).toBe(unavailable)
    expect(r.errors[0]!.blob).toStrictEqual(userBlob(textBlock("one")))
  })

  it("the same conversation as TS shapes and as Python dicts gives the same calls", async () => {
    const ts = await runFacade({ includeThinking: true }, [
      F.systemInit(UUID_FLOW),
      F.userBlocks(F.TEXT, F.TOOL_USE, F.TOOL_RESULT, F.TOOL_RESULT_ARRAY, F.TOOL_RESULT_NULL, F.TOOL_RESULT_ERROR),
      F.assistant([F.THINKING, F.EMPTY_THINKING, F.TEXT, F.EMPTY_TEXT, F.TOOL_USE, F.TOOL_RESULT], { error: "x" })
    ])
    const py = await runFacade({ includeThinking: true }, [
      F.pySystemInit(UUID_FLOW),
      F.pyUserBlocks(
        F.PY_TEXT,
        F.PY_TOOL_USE,
        F.PY_TOOL_RESULT,
        F.PY_TOOL_RESULT_ARRAY,
        F.PY_TOOL_RESULT_NULL,
        F.PY_TOOL_RESULT_ERROR
      ),
      F.pyAssistant([F.PY_THINKING, F.PY_EMPTY_THINKING, F.PY_TEXT, F.PY_EMPTY_TEXT, F.PY_TOOL_USE, F.PY_TOOL_RESULT], {
        error: "x"
      })
    ])
    expect(py.calls).toStrictEqual(ts.calls)
    expect(ts.calls).toStrictEqual([
      create(UUID_FLOW),
      store(
        UUID_FLOW,
        userBlob(
          TEXT_OUT,
          TOOL_RESULT_OUT,
          { type: "tool_result", tool_use_id: "tu_2", content: [textBlock("line1"), textBlock("line2")] },
          { type: "tool_result", tool_use_id: "tu_3", content: "" },
          { type: "tool_result", tool_use_id: "tu_4", content: "error detail", is_error: true }
        )
      ),
      store(UUID_FLOW, assistantBlob(THINKING_AS_TEXT, TEXT_OUT, TOOL_USE_OUT), {
        model: MODEL,
        has_thinking: true,
        error: "x"
      })
    ])
  })
})

describe("facade behaviour", () => {
  it("a non-UUID explicit sessionId: the constructor throws InvalidSessionId (an Error), no call made", () => {
    const client = recordingClient()
    let thrown: unknown
    try {
      new ClaudeAgentStorage({ client, sessionId: "sess-1" })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(InvalidSessionId)
    expect(thrown).toBeInstanceOf(Error)
    expect(thrown).toMatchObject({ _tag: "InvalidSessionId", reason: "NotAUuid", sessionId: "sess-1" })
    expect((thrown as Error).message).toBe("sessionId must be a UUID (Acontext rejects other ids), got \"sess-1\"")
    expect(client.calls).toStrictEqual([])
  })

  it("null and undefined sessionId are accepted (resolved later)", async () => {
    for (const sessionId of [null, undefined]) {
      const storage = new ClaudeAgentStorage({ client: recordingClient(), sessionId })
      expect(storage.sessionId).toBeNull()
      await storage.close()
    }
  })

  it("the sessionId getter is the explicit id before any message (no runtime needed)", async () => {
    const storage = new ClaudeAgentStorage({ client: recordingClient(), sessionId: UUID_DEFAULT })
    expect(storage.sessionId).toBe(UUID_DEFAULT)
    await storage.close()
    expect(storage.sessionId).toBe(UUID_DEFAULT)
  })

  it("a non-UUID session id in the stream is ignored with a warning; the session is then created", async () => {
    const r = await runFacade({}, [F.systemInit("not-a-uuid"), F.userText("Hi")])
    expect(r.sessionIds).toStrictEqual([null, null, UUID_AUTO])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, userBlob(textBlock("Hi")))])
    expect(loggedText()).toContain("ignoring non-UUID session_id \\\"not-a-uuid\\\"")
  })

  it("duck-client store errors are NOT retried: one call per message, even for a 503", async () => {
    const unavailable = new ApiError(503, "unavailable")
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userText("one"), F.userText("two")],
      failingStore(unavailable)
    )
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("one"))),
      store(UUID_DEFAULT, userBlob(textBlock("two")))
    ])
    expect(r.errors.map((e) => e.error)).toStrictEqual([unavailable, unavailable])
  })

  it("duck-client create errors are NOT retried within a message, but create is retried on the next one", async () => {
    const boom = new ApiError(503, "unavailable")
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userText("one"), F.systemInit(UUID_SECOND), F.userText("two"), F.userText("three")],
      failingCreate(throws(boom), session(UUID_DEFAULT))
    )
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("two"))),
      store(UUID_DEFAULT, userBlob(textBlock("three")))
    ])
    expect(r.errors).toHaveLength(1)
    expect(r.errors[0]!.error).toBe(boom)
    expect(r.errors[0]!.blob).toStrictEqual(userBlob(textBlock("one")))
  })

  it("create failing with 400 keeps failing on every message (no ensured flag); each goes to onError", async () => {
    const bad = new ApiError(400, "invalid UUID format for use_uuid")
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userText("one"), F.userText("two")],
      failingCreate(throws(bad))
    )
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), create(UUID_DEFAULT)])
    expect(r.errors.map((e) => e.error)).toStrictEqual([bad, bad])
  })

  it("409 on create without any session id cannot mean \"exists\": it is a failure, retried next message", async () => {
    const conflict = new ApiError(409, "session with this UUID already exists")
    const r = await runFacade(
      { onError: true },
      [F.userText("one"), F.userText("two")],
      failingCreate(throws(conflict), session(UUID_AUTO))
    )
    expect(r.calls).toStrictEqual([create(null), create(null), store(UUID_AUTO, userBlob(textBlock("two")))])
    expect(r.errors.map((e) => e.error)).toStrictEqual([conflict])
  })

  it("409 recognised from a `status` field too (fetch-style errors)", async () => {
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userText("one")],
      failingCreate(throws(Object.assign(new Error("Conflict"), { status: 409 })))
    )
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("one")))])
    expect(r.errors).toStrictEqual([])
  })

  it("create returning another id: that id is adopted for the stores and by the getter", async () => {
    const r = await runFacade({ sessionId: UUID_DEFAULT }, [F.userText("one")], failingCreate(session(UUID_SECOND)))
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_SECOND, userBlob(textBlock("one")))])
    expect(r.sessionIds).toStrictEqual([UUID_DEFAULT, UUID_SECOND])
  })

  it("non-Error rejections (a string, undefined) reach onError as they are", async () => {
    const r = await runFacade(
      { sessionId: UUID_DEFAULT, onError: true },
      [F.userText("one"), F.userText("two")],
      { storeMessage: script<StoreAnswer>(throws("plain string"), throws(undefined)) }
    )
    expect(r.errors).toStrictEqual([
      { error: "plain string", blob: userBlob(textBlock("one")) },
      { error: undefined, blob: userBlob(textBlock("two")) }
    ])
  })

  it("an onError that throws is logged, not propagated; the loop goes on", async () => {
    const client = recordingClient(failingStore(new ApiError(500, "API down")))
    const seen: Array<unknown> = []
    const storage = new ClaudeAgentStorage({
      client,
      sessionId: UUID_DEFAULT,
      onError: (error) => {
        seen.push(error)
        throw new Error("handler exploded")
      }
    })
    await expect(storage.saveMessage(F.userText("one"))).resolves.toBeUndefined()
    await expect(storage.saveMessage(F.userText("two"))).resolves.toBeUndefined()
    await storage.close()
    expect(seen).toHaveLength(2)
    expect(client.stores()).toHaveLength(2)
    expect(loggedText()).toContain("acx onError handler failed")
    expect(loggedText()).toContain("handler exploded")
    expect(failureWarnings()).toStrictEqual([])
  })

  it("an async onError that rejects is logged too, and awaited before saveMessage resolves", async () => {
    const client = recordingClient(failingStore(new ApiError(500, "API down")))
    const order: Array<string> = []
    const storage = new ClaudeAgentStorage({
      client,
      sessionId: UUID_DEFAULT,
      onError: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20))
        order.push("handler done")
        throw new Error("async handler exploded")
      }
    })
    await storage.saveMessage(F.userText("one"))
    order.push("saveMessage resolved")
    await storage.close()
    expect(order).toStrictEqual(["handler done", "saveMessage resolved"])
    expect(loggedText()).toContain("async handler exploded")
  })

  it("conversion never throws into the caller: junk messages resolve and store nothing", async () => {
    const r = await runFacade({ sessionId: UUID_DEFAULT }, [null, undefined, 42, "user", [], {}, { type: 7 }])
    expect(r.calls).toStrictEqual([])
  })

  const concurrentRun = async (warmUp: boolean) => {
    let inFlight = 0
    let maxInFlight = 0
    const client = recordingClient({
      storeMessage: async () => {
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 2))
        inFlight--
        return ok
      }
    })
    const storage = new ClaudeAgentStorage({ client })
    if (warmUp) await storage.saveMessage(F.streamEvent(UUID_FLOW))
    const messages = [
      F.systemInit(UUID_DEFAULT),
      ...Array.from({ length: 20 }, (_, i) => F.userText(`m${i}`))
    ]
    await Promise.all(messages.map((message) => storage.saveMessage(message)))
    await storage.close()
    return { calls: client.calls, maxInFlight }
  }

  it("concurrent saveMessage calls (once the facade is running) are stored one at a time, in call order", async () => {
    const { calls, maxInFlight } = await concurrentRun(true)
    expect(maxInFlight).toBe(1)
    expect(calls).toStrictEqual([
      create(UUID_FLOW),
      ...Array.from({ length: 20 }, (_, i) => store(UUID_FLOW, userBlob(textBlock(`m${i}`))))
    ])
  })

  // Concurrent first saves all wait on the one service promise, so they keep call order: the
  // system init that names the session is decided first.
  it("concurrent saveMessage calls on a fresh facade keep call order (first message included)", async () => {
    const { calls, maxInFlight } = await concurrentRun(false)
    expect(maxInFlight).toBe(1)
    expect(calls).toStrictEqual([
      create(UUID_DEFAULT),
      ...Array.from({ length: 20 }, (_, i) => store(UUID_DEFAULT, userBlob(textBlock(`m${i}`))))
    ])
  })

  it("close(): idempotent; saveMessage after close rejects; close before any save is fine", async () => {
    const client = recordingClient()
    const unused = new ClaudeAgentStorage({ client })
    await unused.close()
    await unused.close()

    const storage = new ClaudeAgentStorage({ client, sessionId: UUID_DEFAULT })
    await storage.saveMessage(F.userText("one"))
    await storage.close()
    await expect(storage.saveMessage(F.userText("two"))).rejects.toThrow("ClaudeAgentStorage is closed")
    await storage.close()
    expect(client.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("one")))])
    expect(storage.sessionId).toBe(UUID_DEFAULT)
  })

  it("await using: disposed at the end of the block", async () => {
    const client = recordingClient()
    let kept: ClaudeAgentStorage | undefined
    {
      await using storage = new ClaudeAgentStorage({ client })
      kept = storage
      await storage.saveMessage(F.systemInit(UUID_FLOW))
      await storage.saveMessage(F.userText("inside"))
      expect(storage.sessionId).toBe(UUID_FLOW)
    }
    await expect(kept.saveMessage(F.userText("after"))).rejects.toThrow("ClaudeAgentStorage is closed")
    expect(client.calls).toStrictEqual([create(UUID_FLOW), store(UUID_FLOW, userBlob(textBlock("inside")))])
  })

  it("flush() without an outbox resolves at once", async () => {
    const storage = new ClaudeAgentStorage({ client: recordingClient() })
    await expect(storage.flush()).resolves.toBeUndefined()
    await storage.saveMessage(F.userText("x"))
    await expect(storage.flush()).resolves.toBeUndefined()
    await storage.close()
  })
})
