/**
 * Acontext's TypeScript `ClaudeAgentStorage` integration: the test matrix of its plan, group by
 * group, with upstream's 66 TypeScript tests (acontext-ts `tests/claude-agent-storage.test.ts`)
 * as the vectors ("Rule N" is the plan's numbering). Storage groups run through the pure model
 * in `./utils/simulate.ts`.
 *
 * Where a decision of docs/design.md ("Behaviour decisions for ClaudeAgentStorage") overrides a
 * vector, the test says so:
 * - session ids are UUIDs: upstream's "sess-1" / "explicit" become UUID_DEFAULT, its
 *   "auto-generated-uuid" becomes UUID_AUTO, and non-UUID stream ids resolve to nothing;
 * - thinking is a text block by default (the plan's rule; upstream HEAD emits native blocks,
 *   which acx does with `thinkingFormat: "native"`);
 * - replay frames are stored (deduplicated by uuid) unless `replays: "skip"`.
 */
import {
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  getSessionIdFromMessage
} from "@acx/convert"
import {
  assistant,
  assistantBlob,
  create,
  EMPTY_TEXT,
  EMPTY_THINKING,
  MODEL,
  resultMessage,
  store,
  streamEvent,
  systemInit,
  systemOther,
  TEXT,
  textBlock,
  THINKING,
  TOOL_RESULT,
  TOOL_RESULT_ARRAY,
  TOOL_RESULT_ERROR,
  TOOL_RESULT_NULL,
  TOOL_USE,
  userBlob,
  userBlocks,
  userReplay,
  userText,
  UUID_AUTO,
  UUID_DEFAULT,
  UUID_DISCOVERED,
  UUID_FIRST,
  UUID_FLOW,
  UUID_FROM_RESULT,
  UUID_FROM_STREAM,
  UUID_SECOND
} from "@acx/fixtures/acontextVectors"
import { describe, expect, it } from "@effect/vitest"
import { failure, run, script, skipReasons } from "./utils/simulate.js"

const TEXT_OUT = textBlock("Hello, world!")
const THINKING_AS_TEXT = textBlock("Let me reason...")
const TOOL_USE_OUT = { type: "tool_use", id: "tu_1", name: "calculator", input: { expr: "1+1" } }
const TOOL_RESULT_OUT = { type: "tool_result", tool_use_id: "tu_1", content: "Result is 2" }

describe("Acontext TS integration: user conversion (11 cases)", () => {
  it("string content → one text block", () => {
    expect(claudeUserMessageToAnthropicBlob(userText("Hi"))).toStrictEqual(userBlob(textBlock("Hi")))
  })

  it("empty string content → null", () => {
    expect(claudeUserMessageToAnthropicBlob(userText(""))).toBeNull()
  })

  it("text block → text block", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TEXT))).toStrictEqual(userBlob(TEXT_OUT))
  })

  it("empty text block → null", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(EMPTY_TEXT))).toBeNull()
  })

  it("tool_result block with string content", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_RESULT))).toStrictEqual(userBlob(TOOL_RESULT_OUT))
  })

  it("tool_result with array content → text items", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_RESULT_ARRAY))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_2", content: [textBlock("line1"), textBlock("line2")] })
    )
  })

  it("tool_result with null content → \"\"", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_RESULT_NULL))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_3", content: "" })
    )
  })

  it("tool_result with is_error: true keeps it", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_RESULT_ERROR))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_4", content: "error detail", is_error: true })
    )
  })

  it("tool_use in a user message is skipped", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_USE, TEXT))).toStrictEqual(userBlob(TEXT_OUT))
  })

  it("only tool_use in a user message → null", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TOOL_USE))).toBeNull()
  })

  it("mixed text + tool_result, in order", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(TEXT, TOOL_RESULT))).toStrictEqual(
      userBlob(TEXT_OUT, TOOL_RESULT_OUT)
    )
  })
})

describe("Acontext TS integration: assistant conversion (12 cases)", () => {
  it("text block", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([TEXT]))).toStrictEqual({
      blob: assistantBlob(TEXT_OUT),
      hasThinking: false
    })
  })

  it("empty text block → blob null", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([EMPTY_TEXT]))).toStrictEqual({
      blob: null,
      hasThinking: false
    })
  })

  it("thinking omitted by default", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([THINKING, TEXT]))).toStrictEqual({
      blob: assistantBlob(TEXT_OUT),
      hasThinking: false
    })
  })

  it("thinking included when opted in: a text block (the plan's rule)", () => {
    // Upstream HEAD emits {type: "thinking", thinking, signature} here. docs/design.md#behaviour-decisions-for-claudeagentstorage
    // keeps the plan's text block as the default; native blocks need thinkingFormat: "native" (below).
    expect(claudeAssistantMessageToAnthropicBlob(assistant([THINKING, TEXT]), true)).toStrictEqual({
      blob: assistantBlob(THINKING_AS_TEXT, TEXT_OUT),
      hasThinking: true
    })
  })

  it("empty thinking skipped even when opted in, and hasThinking stays false", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([EMPTY_THINKING, TEXT]), true)).toStrictEqual({
      blob: assistantBlob(TEXT_OUT),
      hasThinking: false
    })
  })

  it("only thinking, includeThinking false → blob null", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([THINKING]))).toStrictEqual({
      blob: null,
      hasThinking: false
    })
  })

  it("tool_use block", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([TOOL_USE]))).toStrictEqual({
      blob: assistantBlob(TOOL_USE_OUT),
      hasThinking: false
    })
  })

  it("tool_use with a string input holding a JSON object → parsed", () => {
    const block = { type: "tool_use", id: "tu_5", name: "calc", input: "{\"expr\":\"2+2\"}" }
    expect(claudeAssistantMessageToAnthropicBlob(assistant([block])).blob).toStrictEqual(
      assistantBlob({ type: "tool_use", id: "tu_5", name: "calc", input: { expr: "2+2" } })
    )
  })

  it("tool_use with a string input that is not JSON → { raw: input }", () => {
    const block = { type: "tool_use", id: "tu_6", name: "calc", input: "not json" }
    expect(claudeAssistantMessageToAnthropicBlob(assistant([block])).blob).toStrictEqual(
      assistantBlob({ type: "tool_use", id: "tu_6", name: "calc", input: { raw: "not json" } })
    )
  })

  it("tool_result in an assistant message is skipped", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([TOOL_RESULT, TEXT])).blob).toStrictEqual(
      assistantBlob(TEXT_OUT)
    )
  })

  it("only tool_result in an assistant message → blob null", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([TOOL_RESULT])).blob).toBeNull()
  })

  it("full message (thinking + text + tool_use) with includeThinking: text, text, tool_use", () => {
    // Upstream HEAD: ["thinking", "text", "tool_use"]; the default here is the plan's text form.
    expect(claudeAssistantMessageToAnthropicBlob(assistant([THINKING, TEXT, TOOL_USE]), true)).toStrictEqual({
      blob: assistantBlob(THINKING_AS_TEXT, TEXT_OUT, TOOL_USE_OUT),
      hasThinking: true
    })
  })

  it("full message with thinkingFormat: \"native\" matches upstream HEAD's vector", () => {
    expect(
      claudeAssistantMessageToAnthropicBlob(assistant([THINKING, TEXT, TOOL_USE]), {
        includeThinking: true,
        thinkingFormat: "native"
      })
    ).toStrictEqual({
      blob: assistantBlob(
        { type: "thinking", thinking: "Let me reason...", signature: "sig123" },
        TEXT_OUT,
        TOOL_USE_OUT
      ),
      hasThinking: true
    })
  })
})

describe("Acontext TS integration: session id (7 cases; upstream has 10)", () => {
  // The plan's vectors used ids like "sid-1"; acx (and upstream since 40c1f5e7) only accepts
  // UUIDs, so the positive cases use the upstream UUIDs and non-UUIDs give null.
  it("system init with a session_id", () => {
    expect(getSessionIdFromMessage(systemInit(UUID_DEFAULT))).toBe(UUID_DEFAULT)
  })

  it("system message without session_id → null", () => {
    expect(getSessionIdFromMessage(systemOther())).toBeNull()
  })

  it("result message with a session_id", () => {
    expect(getSessionIdFromMessage(resultMessage(UUID_FROM_RESULT))).toBe(UUID_FROM_RESULT)
  })

  it("stream event with a session_id", () => {
    expect(getSessionIdFromMessage(streamEvent(UUID_FROM_STREAM))).toBe(UUID_FROM_STREAM)
  })

  it("user message → null, even when it carries a session_id", () => {
    expect(getSessionIdFromMessage({ ...userText(), session_id: UUID_DEFAULT })).toBeNull()
  })

  it("assistant message → null, even when it carries a session_id", () => {
    expect(getSessionIdFromMessage({ ...assistant([TEXT]), session_id: UUID_DEFAULT })).toBeNull()
  })

  it("non-string session_id → null", () => {
    expect(getSessionIdFromMessage({ type: "system", session_id: 12345 })).toBeNull()
  })

  it("non-UUID init session_id → null", () => {
    expect(getSessionIdFromMessage(systemInit("not-a-uuid"))).toBeNull()
  })

  it("non-UUID result session_id → null", () => {
    expect(getSessionIdFromMessage(resultMessage("invalid"))).toBeNull()
  })

  it("non-UUID stream session_id → null", () => {
    expect(getSessionIdFromMessage(streamEvent("invalid"))).toBeNull()
  })
})

// Upstream's "basic" tests pass sessionId: "sess-1"; acx rejects non-UUID ids
// (docs/design.md#behaviour-decisions-for-claudeagentstorage), so every storage test with an explicit id uses UUID_DEFAULT.
describe("Acontext TS integration: basic, sessionId provided (6 cases)", () => {
  it("user message: created lazily, stored with its blob and meta null", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [userText("Hi")]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Hi")))
    ])
  })

  it("assistant message: meta.model", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [assistant([TEXT], { model: MODEL })]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
  })

  it("assistant with thinking and includeThinking: meta.has_thinking", () => {
    expect(run({ sessionId: UUID_DEFAULT, includeThinking: true }, [assistant([THINKING, TEXT])]).calls)
      .toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
      ])
  })

  it("system message not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [systemInit()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })

  it("result message not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [resultMessage()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })

  it("stream event not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [streamEvent()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })
})

describe("Acontext TS integration: session discovery (5 cases)", () => {
  it("session_id from system init is used for later stores", () => {
    const r = run({}, [systemInit(UUID_DISCOVERED), userText("After init")])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([UUID_DISCOVERED, UUID_DISCOVERED])
    expect(r.calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, userBlob(textBlock("After init")))
    ])
  })

  it("session_id from a result message", () => {
    const r = run({}, [resultMessage(UUID_FROM_RESULT)])
    expect(r.state.sessionId).toBe(UUID_FROM_RESULT)
    expect(r.calls).toStrictEqual([])
  })

  it("session_id from a stream event", () => {
    const r = run({}, [streamEvent(UUID_FROM_STREAM)])
    expect(r.state.sessionId).toBe(UUID_FROM_STREAM)
    expect(r.calls).toStrictEqual([])
  })

  it("user message before any session id: a session is created, the message stored", () => {
    const r = run({}, [userText("Before init")])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, userBlob(textBlock("Before init")))])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })

  it("assistant message before any session id: a session is created, the message stored", () => {
    const r = run({}, [assistant([TEXT])])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, assistantBlob(TEXT_OUT), { model: MODEL })])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })
})

describe("Acontext TS integration: errored assistant messages (2 cases)", () => {
  it("errored assistant with valid content → stored, meta.error set (Rule 11)", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [assistant([TEXT], { error: "rate_limit" })]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL, error: "rate_limit" })
    ])
  })

  it("errored assistant with empty content → skipped, no call at all", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [assistant([EMPTY_TEXT], { error: "server_error" })])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })
})

describe("Acontext TS integration: empty content (4 cases)", () => {
  // Nothing is stored and, the creation being lazy, no session is created either.
  it("empty user string → not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userText("")])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })

  it("user with only empty text blocks → not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userBlocks(EMPTY_TEXT, EMPTY_TEXT)])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })

  it("assistant with only thinking, includeThinking false → not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [assistant([THINKING])])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })

  it("user with only tool_use blocks → not stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userBlocks(TOOL_USE)])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })
})

describe("Acontext TS integration: error handling (2 cases)", () => {
  const apiDown = { storeMessage: script(failure(500, "API down")) }
  const hiBlob = userBlob(textBlock("Hi"))

  it("default: the failure is logged with the session id, not thrown, and the loop goes on", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userText("Hi"), userText("Again")], apiDown)
    expect(r.warned).toStrictEqual([
      { sessionId: UUID_DEFAULT, error: { op: "storeMessage", status: 500, message: "API down" } },
      { sessionId: UUID_DEFAULT, error: { op: "storeMessage", status: 500, message: "API down" } }
    ])
    expect(r.errors).toStrictEqual([])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, hiBlob),
      store(UUID_DEFAULT, userBlob(textBlock("Again")))
    ])
  })

  it("with onError: called with (error, converted blob)", () => {
    const r = run({ sessionId: UUID_DEFAULT, onError: true }, [userText("Hi")], apiDown)
    expect(r.errors).toStrictEqual([{ error: { op: "storeMessage", status: 500, message: "API down" }, blob: hiBlob }])
    expect(r.warned).toStrictEqual([])
  })
})

describe("Acontext TS integration: session creation (7 cases)", () => {
  const hi = userText("Hi")
  const hiBlob = userBlob(textBlock("Hi"))

  it("created on the first store, with use_uuid = the known id", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [hi]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, hiBlob)
    ])
  })

  it("created only once for several stores", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [userText("First"), userText("Second")]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("First"))),
      store(UUID_DEFAULT, userBlob(textBlock("Second")))
    ])
  })

  it("409 on create: the session exists, the store goes ahead with the same id", () => {
    const r = run({ sessionId: UUID_DEFAULT, onError: true }, [hi], { create: script(failure(409)) })
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
    expect(r.errors).toStrictEqual([])
    expect(r.state.ensured).toBe(true)
  })

  it("non-409 failure on create: goes to onError, nothing stored", () => {
    const r = run({ sessionId: UUID_DEFAULT, onError: true }, [hi], {
      create: script(failure(500, "internal server error"))
    })
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT)])
    expect(r.errors).toStrictEqual([
      { error: { op: "create", status: 500, message: "internal server error" }, blob: hiBlob }
    ])
    expect(r.state.ensured).toBe(false)
  })

  it("a discovered session id is used as use_uuid", () => {
    expect(run({}, [systemInit(UUID_DISCOVERED), hi]).calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, hiBlob)
    ])
  })

  it("no session id: use_uuid null, Acontext's generated id is adopted", () => {
    const r = run({}, [hi])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, hiBlob)])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })

  it("the user option is passed to create", () => {
    expect(run({ sessionId: UUID_DEFAULT, user: "alice@example.com" }, [hi]).calls).toStrictEqual([
      create(UUID_DEFAULT, "alice@example.com"),
      store(UUID_DEFAULT, hiBlob)
    ])
  })
})

describe("Acontext TS integration: replay messages (1 case)", () => {
  it("replays: \"skip\" → a replay frame is not stored (the upstream vector)", () => {
    const r = run({ sessionId: UUID_DEFAULT, replays: "skip" }, [userReplay("Replayed")])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["ReplaySkipped"])
  })

  it("default: a replay frame is stored (acx's replay decision overrides upstream's skip)", () => {
    // The TS SDK only shows user prompts as replays: skipping them loses every prompt.
    expect(run({ sessionId: UUID_DEFAULT }, [userReplay("Replayed")]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Replayed")))
    ])
  })
})

describe("Acontext TS integration: session id not overwritten (2 cases)", () => {
  it("a resolved id is not overwritten by a later message", () => {
    const r = run({}, [systemInit(UUID_FIRST), resultMessage(UUID_SECOND)])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([UUID_FIRST, UUID_FIRST])
    expect(skipReasons(r)).toStrictEqual([null, "NotStorable"])
  })

  it("an explicit id is not overwritten by the stream", () => {
    // Upstream's explicit id was "explicit"; a UUID here (docs/design.md#behaviour-decisions-for-claudeagentstorage).
    const r = run({ sessionId: UUID_DEFAULT }, [systemInit(UUID_FROM_STREAM), userText("Hi")])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([UUID_DEFAULT, UUID_DEFAULT])
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("Hi")))])
  })
})

describe("Acontext TS integration: assistant meta edge cases (2 cases)", () => {
  it("empty model string → not in meta; meta empty → null", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [assistant([TEXT], { model: "" })]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)
    ])
  })

  it("no model, no thinking, no error → meta null", () => {
    const message = { type: "assistant", message: { role: "assistant", content: [TEXT] } }
    expect(run({ sessionId: UUID_DEFAULT }, [message]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)
    ])
  })
})

describe("Acontext TS integration: full flow (2 cases)", () => {
  it("init → user → stream → assistant → result", () => {
    const r = run({}, [
      systemInit(UUID_FLOW),
      userText("What is 1+1?"),
      streamEvent(UUID_FLOW),
      assistant([THINKING, TEXT, TOOL_USE], { model: MODEL }),
      resultMessage(UUID_FLOW)
    ])
    expect(r.calls).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, userBlob(textBlock("What is 1+1?"))),
      store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL })
    ])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([UUID_FLOW, UUID_FLOW, UUID_FLOW, UUID_FLOW, UUID_FLOW])
    expect(skipReasons(r)).toStrictEqual([null, null, "NotStorable", null, "NotStorable"])
  })

  it("init → assistant with thinking (includeThinking)", () => {
    expect(
      run({ includeThinking: true }, [systemInit(UUID_FLOW), assistant([THINKING, TEXT], { model: MODEL })]).calls
    ).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
    ])
  })
})
