/**
 * Acontext's Python `ClaudeAgentStorage` integration: the "Test cases" list of its plan, and
 * upstream's 65 Python tests (acontext-py `tests/test_claude_agent_storage.py`) as vectors. Every input is a
 * Python-SDK `asdict()` dict (no `type` keys; blocks identified by key presence), first
 * normalised with `fromPythonMessage`, then run through the same conversion functions and the
 * pure storage model as the TypeScript shapes. `runPy` also checks that the raw dicts (which
 * the decider normalises itself) give the very same run.
 *
 * Where the Python plan contradicts itself or acx's decisions (docs/design.md, "Behaviour
 * decisions for ClaudeAgentStorage"), the test says which rule it follows ("TS Rule N" is the
 * numbering of the TypeScript integration's plan): errored assistant messages are stored with
 * `meta.error` (TS Rule 11, the plan's own Notes, and upstream code); a message before any
 * session id makes acx create a session lazily (docs/design.md#behaviour-decisions-for-claudeagentstorage, TS Rule 9,
 * upstream code) instead of the plan's "skip with a warning"; ids are UUIDs; thinking is a text
 * block by default.
 */
import {
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  fromPythonMessage,
  getSessionIdFromMessage
} from "@acx/convert"
import * as F from "@acx/fixtures/acontextVectors"
import { assistantBlob, create, store, textBlock, userBlob } from "@acx/fixtures/acontextVectors"
import { describe, expect, it } from "@effect/vitest"
import {
  failure,
  type FakeClient,
  type Run,
  run,
  script,
  type SimulateOptions,
  skipReasons,
  stored
} from "./utils/simulate.js"

const {
  MODEL,
  PY_EMPTY_TEXT,
  PY_EMPTY_THINKING,
  PY_TEXT,
  PY_THINKING,
  PY_TOOL_RESULT,
  PY_TOOL_RESULT_ARRAY,
  PY_TOOL_RESULT_ERROR,
  PY_TOOL_RESULT_NULL,
  PY_TOOL_USE,
  UUID_AUTO,
  UUID_DEFAULT,
  UUID_DISCOVERED,
  UUID_FIRST,
  UUID_FLOW,
  UUID_FROM_RESULT,
  UUID_FROM_STREAM,
  UUID_SECOND,
  pyAssistant,
  pyResultMessage,
  pyStreamEvent,
  pySystemInit,
  pySystemOther,
  pyUserBlocks,
  pyUserText
} = F

const TEXT_OUT = textBlock("Hello, world!")
const THINKING_AS_TEXT = textBlock("Let me reason...")
const TOOL_USE_OUT = { type: "tool_use", id: "tu_1", name: "calculator", input: { expr: "1+1" } }
const TOOL_RESULT_OUT = { type: "tool_result", tool_use_id: "tu_1", content: "Result is 2" }

/** Python dict → TS shape → user blob. */
const userOf = (dict: unknown) => claudeUserMessageToAnthropicBlob(fromPythonMessage(dict))
/** Python dict → TS shape → assistant conversion. */
const assistantOf = (dict: unknown, includeThinking?: boolean) =>
  claudeAssistantMessageToAnthropicBlob(fromPythonMessage(dict), includeThinking)
/** Python dict → TS shape → session id. */
const sessionIdOf = (dict: unknown) => getSessionIdFromMessage(fromPythonMessage(dict))

/** Runs normalised Python dicts through the storage model; the raw dicts must give the same run. */
const runPy = (options: SimulateOptions, messages: ReadonlyArray<unknown>, client?: FakeClient): Run => {
  const normalized = run(options, messages.map(fromPythonMessage), client)
  expect(run(options, messages, client)).toStrictEqual(normalized)
  return normalized
}

describe("python shapes: fromPythonMessage", () => {
  it("user dict → TS user message", () => {
    expect(fromPythonMessage(pyUserText("Hi"))).toStrictEqual({
      type: "user",
      message: { role: "user", content: "Hi" }
    })
  })

  it("assistant dict → TS assistant message with typed blocks", () => {
    expect(fromPythonMessage(pyAssistant([PY_THINKING, PY_TEXT, PY_TOOL_USE], { error: "rate_limit" }))).toStrictEqual({
      type: "assistant",
      error: "rate_limit",
      message: { role: "assistant", model: MODEL, content: [F.THINKING, F.TEXT, F.TOOL_USE] }
    })
  })

  it("user dict with tool_result blocks → typed blocks", () => {
    expect(fromPythonMessage(pyUserBlocks(PY_TOOL_RESULT, PY_TOOL_RESULT_ERROR))).toStrictEqual({
      type: "user",
      message: { role: "user", content: [F.TOOL_RESULT, F.TOOL_RESULT_ERROR] }
    })
  })

  it("init system dict → TS system message with data's fields flattened", () => {
    expect(fromPythonMessage(pySystemInit(UUID_DEFAULT))).toStrictEqual({
      type: "system",
      subtype: "init",
      session_id: UUID_DEFAULT
    })
  })

  it("result and stream event dicts get their type", () => {
    expect(fromPythonMessage(pyResultMessage(UUID_DEFAULT))).toStrictEqual({
      type: "result",
      subtype: "end",
      session_id: UUID_DEFAULT
    })
    expect(fromPythonMessage(pyStreamEvent(UUID_DEFAULT))).toStrictEqual({
      type: "stream_event",
      uuid: "evt-1",
      session_id: UUID_DEFAULT,
      event: "delta"
    })
  })
})

describe("upstream py: user conversion (11 cases)", () => {
  it("string content → one text block", () => {
    expect(userOf(pyUserText("Hi"))).toStrictEqual(userBlob(textBlock("Hi")))
  })

  it("empty string → null", () => {
    expect(userOf(pyUserText(""))).toBeNull()
  })

  it("text block", () => {
    expect(userOf(pyUserBlocks(PY_TEXT))).toStrictEqual(userBlob(TEXT_OUT))
  })

  it("empty text block skipped → null", () => {
    expect(userOf(pyUserBlocks(PY_EMPTY_TEXT))).toBeNull()
  })

  it("tool_result block", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_RESULT))).toStrictEqual(userBlob(TOOL_RESULT_OUT))
  })

  it("tool_result with array content", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_RESULT_ARRAY))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_2", content: [textBlock("line1"), textBlock("line2")] })
    )
  })

  it("tool_result with None content → \"\"", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_RESULT_NULL))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_3", content: "" })
    )
  })

  it("tool_result with is_error", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_RESULT_ERROR))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "tu_4", content: "error detail", is_error: true })
    )
  })

  it("ToolUseBlock in a user message skipped", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_USE, PY_TEXT))).toStrictEqual(userBlob(TEXT_OUT))
  })

  it("only ToolUseBlock in a user message → null", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_USE))).toBeNull()
  })

  it("mixed text + tool_result", () => {
    expect(userOf(pyUserBlocks(PY_TEXT, PY_TOOL_RESULT))).toStrictEqual(userBlob(TEXT_OUT, TOOL_RESULT_OUT))
  })
})

describe("upstream py: assistant conversion (10 cases)", () => {
  it("text block", () => {
    expect(assistantOf(pyAssistant([PY_TEXT]))).toStrictEqual({ blob: assistantBlob(TEXT_OUT), hasThinking: false })
  })

  it("empty text block skipped → null", () => {
    expect(assistantOf(pyAssistant([PY_EMPTY_TEXT]))).toStrictEqual({ blob: null, hasThinking: false })
  })

  it("thinking omitted by default", () => {
    expect(assistantOf(pyAssistant([PY_THINKING, PY_TEXT]))).toStrictEqual({
      blob: assistantBlob(TEXT_OUT),
      hasThinking: false
    })
  })

  it("thinking included when opted in: a text block", () => {
    // Upstream Python HEAD asserts a native thinking block; acx's default is the plans' text
    // block (docs/design.md#behaviour-decisions-for-claudeagentstorage; native is thinkingFormat: "native").
    expect(assistantOf(pyAssistant([PY_THINKING, PY_TEXT]), true)).toStrictEqual({
      blob: assistantBlob(THINKING_AS_TEXT, TEXT_OUT),
      hasThinking: true
    })
  })

  it("empty thinking skipped even when opted in", () => {
    expect(assistantOf(pyAssistant([PY_EMPTY_THINKING, PY_TEXT]), true)).toStrictEqual({
      blob: assistantBlob(TEXT_OUT),
      hasThinking: false
    })
  })

  it("only thinking, include_thinking false → null", () => {
    expect(assistantOf(pyAssistant([PY_THINKING])).blob).toBeNull()
  })

  it("ToolUseBlock", () => {
    expect(assistantOf(pyAssistant([PY_TOOL_USE])).blob).toStrictEqual(assistantBlob(TOOL_USE_OUT))
  })

  it("ToolResultBlock in an assistant message skipped", () => {
    expect(assistantOf(pyAssistant([PY_TOOL_RESULT, PY_TEXT])).blob).toStrictEqual(assistantBlob(TEXT_OUT))
  })

  it("only ToolResultBlock in an assistant message → null", () => {
    expect(assistantOf(pyAssistant([PY_TOOL_RESULT])).blob).toBeNull()
  })

  it("full message with include_thinking: text, text, tool_use", () => {
    // Upstream HEAD: ["thinking", "text", "tool_use"] (native); text by default here.
    expect(assistantOf(pyAssistant([PY_THINKING, PY_TEXT, PY_TOOL_USE]), true)).toStrictEqual({
      blob: assistantBlob(THINKING_AS_TEXT, TEXT_OUT, TOOL_USE_OUT),
      hasThinking: true
    })
  })
})

describe("upstream py: session id extraction (11 cases)", () => {
  it("init system message → data.session_id", () => {
    expect(sessionIdOf(pySystemInit(UUID_DEFAULT))).toBe(UUID_DEFAULT)
  })

  it("init whose data has no session_id → null", () => {
    expect(sessionIdOf({ subtype: "init", data: { other: "value" } })).toBeNull()
  })

  it("init whose data is not a dict → null", () => {
    expect(sessionIdOf({ subtype: "init", data: "string-data" })).toBeNull()
  })

  it("non-init system message without a session id → null", () => {
    expect(sessionIdOf(pySystemOther())).toBeNull()
  })

  it("result message", () => {
    expect(sessionIdOf(pyResultMessage(UUID_FROM_RESULT))).toBe(UUID_FROM_RESULT)
  })

  it("stream event", () => {
    expect(sessionIdOf(pyStreamEvent(UUID_FROM_STREAM))).toBe(UUID_FROM_STREAM)
  })

  it("user message → null", () => {
    expect(sessionIdOf(pyUserText())).toBeNull()
  })

  it("assistant message → null", () => {
    expect(sessionIdOf(pyAssistant([PY_TEXT]))).toBeNull()
  })

  it("non-UUID init session_id → null", () => {
    expect(sessionIdOf(pySystemInit("not-a-uuid"))).toBeNull()
  })

  it("non-UUID result session_id → null", () => {
    expect(sessionIdOf(pyResultMessage("invalid"))).toBeNull()
  })

  it("non-UUID stream session_id → null", () => {
    expect(sessionIdOf(pyStreamEvent("invalid"))).toBeNull()
  })
})

// Upstream's Python storage tests pass session_id="sess-1"; a UUID here (docs/design.md#behaviour-decisions-for-claudeagentstorage).
describe("upstream py: basic, session_id provided (6 cases)", () => {
  it("user message stored: format anthropic, blob, no meta", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyUserText("Hi")]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Hi")))
    ])
  })

  it("assistant message stored with meta.model", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_TEXT])]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
  })

  it("assistant with thinking and include_thinking: meta.has_thinking", () => {
    expect(runPy({ sessionId: UUID_DEFAULT, includeThinking: true }, [pyAssistant([PY_THINKING, PY_TEXT])]).calls)
      .toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
      ])
  })

  it("system message not stored", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pySystemInit()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })

  it("result message not stored", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyResultMessage()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })

  it("stream event not stored", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyStreamEvent()])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })
})

describe("upstream py: session discovery (5 cases)", () => {
  it("from the init message, then used for the store", () => {
    const r = runPy({}, [pySystemInit(UUID_DISCOVERED), pyUserText("After init")])
    expect(r.states[0]!.sessionId).toBe(UUID_DISCOVERED)
    expect(r.calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, userBlob(textBlock("After init")))
    ])
  })

  it("from a result message", () => {
    expect(runPy({}, [pyResultMessage(UUID_FROM_RESULT)]).state.sessionId).toBe(UUID_FROM_RESULT)
  })

  it("from a stream event", () => {
    expect(runPy({}, [pyStreamEvent(UUID_FROM_STREAM)]).state.sessionId).toBe(UUID_FROM_STREAM)
  })

  it("user before any session id → a session is created and the message stored", () => {
    const r = runPy({}, [pyUserText("Before init")])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, userBlob(textBlock("Before init")))])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })

  it("assistant before any session id → a session is created and the message stored", () => {
    const r = runPy({}, [pyAssistant([PY_TEXT])])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, assistantBlob(TEXT_OUT), { model: MODEL })])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })
})

describe("upstream py: errored assistant messages (2 cases)", () => {
  it("errored assistant with content → stored with meta.error", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_TEXT], { error: "rate_limit" })]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL, error: "rate_limit" })
    ])
  })

  it("errored assistant with empty content → not stored", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_EMPTY_TEXT], { error: "server_error" })])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })
})

describe("upstream py: empty content (4 cases)", () => {
  const emptyCases: ReadonlyArray<readonly [string, unknown, SimulateOptions]> = [
    ["empty user string", pyUserText(""), {}],
    ["user with only empty text blocks", pyUserBlocks(PY_EMPTY_TEXT, PY_EMPTY_TEXT), {}],
    ["assistant all thinking, include_thinking false", pyAssistant([PY_THINKING]), {}],
    ["user with only ToolUseBlocks", pyUserBlocks(PY_TOOL_USE), {}]
  ]
  for (const [name, message, options] of emptyCases) {
    it(`${name} → not stored, no call`, () => {
      const r = runPy({ sessionId: UUID_DEFAULT, ...options }, [message])
      expect(r.calls).toStrictEqual([])
      expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
    })
  }
})

describe("upstream py: error handling (2 cases)", () => {
  const apiDown = { storeMessage: script(failure(500, "API down")) }

  it("default: logged as a warning, not raised", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyUserText("Hi")], apiDown)
    expect(r.warned).toStrictEqual([{
      sessionId: UUID_DEFAULT,
      error: { op: "storeMessage", status: 500, message: "API down" }
    }])
    expect(r.errors).toStrictEqual([])
  })

  it("on_error gets (error, converted blob)", () => {
    // The Python plan says on_error receives the message dict; upstream code and the TS plan
    // (its Rule 10) pass the converted blob, and so does acx.
    const r = runPy({ sessionId: UUID_DEFAULT, onError: true }, [pyUserText("Hi")], apiDown)
    expect(r.errors).toStrictEqual([
      { error: { op: "storeMessage", status: 500, message: "API down" }, blob: userBlob(textBlock("Hi")) }
    ])
    expect(r.warned).toStrictEqual([])
  })
})

describe("upstream py: dataclass messages (2 cases)", () => {
  // Stand-ins for the Python SDK's dataclasses: a class instance with the same fields.
  class FakeUserMessage {
    content = "Dataclass hello"
  }
  class FakeAssistantMessage {
    content: Array<unknown> = [{ text: "reply" }]
    model = MODEL
  }

  it("dataclass user message", () => {
    const message = new FakeUserMessage()
    expect(userOf(message)).toStrictEqual(userBlob(textBlock("Dataclass hello")))
    expect(runPy({ sessionId: UUID_DEFAULT }, [message]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Dataclass hello")))
    ])
  })

  it("dataclass assistant message", () => {
    const message = new FakeAssistantMessage()
    expect(assistantOf(message)).toStrictEqual({ blob: assistantBlob(textBlock("reply")), hasThinking: false })
    expect(runPy({ sessionId: UUID_DEFAULT }, [message]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(textBlock("reply")), { model: MODEL })
    ])
  })
})

describe("upstream py: full flow (2 cases)", () => {
  it("init → user → stream → assistant → result", () => {
    const r = runPy({}, [
      pySystemInit(UUID_FLOW),
      pyUserText("What is 1+1?"),
      pyStreamEvent(UUID_FLOW),
      pyAssistant([PY_THINKING, PY_TEXT, PY_TOOL_USE]),
      pyResultMessage(UUID_FLOW)
    ])
    expect(r.calls).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, userBlob(textBlock("What is 1+1?"))),
      store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL })
    ])
    expect(skipReasons(r)).toStrictEqual([null, null, "NotStorable", null, "NotStorable"])
  })

  it("init → assistant with thinking", () => {
    expect(runPy({ includeThinking: true }, [pySystemInit(UUID_FLOW), pyAssistant([PY_THINKING, PY_TEXT])]).calls)
      .toStrictEqual([
        create(UUID_FLOW),
        store(UUID_FLOW, assistantBlob(THINKING_AS_TEXT, TEXT_OUT), { model: MODEL, has_thinking: true })
      ])
  })
})

describe("upstream py: session id not overwritten (2 cases)", () => {
  it("not overwritten by a later result message", () => {
    const r = runPy({}, [pySystemInit(UUID_FIRST), pyResultMessage(UUID_SECOND)])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([UUID_FIRST, UUID_FIRST])
  })

  it("explicit session id not overwritten", () => {
    // Upstream's explicit id was "explicit"; a UUID here.
    const r = runPy({ sessionId: UUID_DEFAULT }, [pySystemInit(UUID_FROM_STREAM)])
    expect(r.state.sessionId).toBe(UUID_DEFAULT)
  })
})

describe("upstream py: assistant without model (1 case)", () => {
  it("empty model → meta None", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [{ content: [PY_TEXT], model: "" }]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), null)
    ])
  })
})

describe("upstream py: session creation (7 cases)", () => {
  const hi = pyUserText("Hi")
  const hiBlob = userBlob(textBlock("Hi"))

  it("created on the first store with use_uuid", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [hi]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, hiBlob)
    ])
  })

  it("created only once", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyUserText("First"), pyUserText("Second")]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("First"))),
      store(UUID_DEFAULT, userBlob(textBlock("Second")))
    ])
  })

  it("409 ignored: the store goes ahead", () => {
    const r = runPy({ sessionId: UUID_DEFAULT, onError: true }, [hi], { create: script(failure(409)) })
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, hiBlob)])
    expect(r.errors).toStrictEqual([])
  })

  it("non-409 create error → on_error, no store", () => {
    const r = runPy({ sessionId: UUID_DEFAULT, onError: true }, [hi], {
      create: script(failure(500, "internal server error"))
    })
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT)])
    expect(r.errors).toStrictEqual([
      { error: { op: "create", status: 500, message: "internal server error" }, blob: hiBlob }
    ])
  })

  it("created with the discovered id", () => {
    expect(runPy({}, [pySystemInit(UUID_DISCOVERED), hi]).calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, hiBlob)
    ])
  })

  it("no session id → create without use_uuid, the generated id is adopted", () => {
    const r = runPy({}, [hi])
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, hiBlob)])
    expect(r.state.sessionId).toBe(UUID_AUTO)
  })

  it("user passed to create", () => {
    expect(runPy({ sessionId: UUID_DEFAULT, user: "alice@example.com" }, [hi]).calls).toStrictEqual([
      create(UUID_DEFAULT, "alice@example.com"),
      store(UUID_DEFAULT, hiBlob)
    ])
  })
})

describe("Acontext Python integration plan test cases: 1. conversion (11 cases)", () => {
  it("UserMessage with string content → one text block", () => {
    expect(userOf(pyUserText("What is the capital of France?"))).toStrictEqual(
      userBlob(textBlock("What is the capital of France?"))
    )
  })

  it("UserMessage with empty string → null, store_message not called", () => {
    expect(userOf(pyUserText(""))).toBeNull()
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyUserText("")]).calls).toStrictEqual([])
  })

  it("UserMessage array (Text, ToolResult, ToolUse) → text and tool_result, ToolUse skipped", () => {
    expect(userOf(pyUserBlocks(PY_TEXT, PY_TOOL_USE, PY_TOOL_RESULT))).toStrictEqual(
      userBlob(TEXT_OUT, TOOL_RESULT_OUT)
    )
  })

  it("AssistantMessage with Text, Thinking, ToolUse, ToolResult: by default thinking omitted, tool_result skipped", () => {
    const message = pyAssistant([PY_TEXT, PY_THINKING, PY_TOOL_USE, PY_TOOL_RESULT])
    expect(runPy({ sessionId: UUID_DEFAULT }, [message]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL })
    ])
  })

  it("same with include_thinking: thinking becomes a text block and meta.has_thinking is true", () => {
    const message = pyAssistant([PY_TEXT, PY_THINKING, PY_TOOL_USE, PY_TOOL_RESULT])
    expect(runPy({ sessionId: UUID_DEFAULT, includeThinking: true }, [message]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT, THINKING_AS_TEXT, TOOL_USE_OUT), { model: MODEL, has_thinking: true })
    ])
  })

  it("AssistantMessage with only ThinkingBlocks, include_thinking false → null, no call", () => {
    expect(assistantOf(pyAssistant([PY_THINKING, PY_THINKING])).blob).toBeNull()
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_THINKING, PY_THINKING])]).calls).toStrictEqual([])
  })

  it("AssistantMessage with error set → STORED with meta.error (plan says skipped)", () => {
    // The Python plan contradicts itself: Features/Design/TODO/test cases say "skip", its Notes
    // say "stored with meta.error". acx follows the Notes, TS Rule 11 and upstream code.
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_TEXT], { error: "server_error" })]).calls)
      .toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL, error: "server_error" })
      ])
  })

  it("TextBlock with empty text → block skipped", () => {
    expect(userOf(pyUserBlocks(PY_EMPTY_TEXT, { text: "kept" }))).toStrictEqual(userBlob(textBlock("kept")))
  })

  it("ThinkingBlock with empty thinking → skipped even with include_thinking", () => {
    expect(assistantOf(pyAssistant([PY_EMPTY_THINKING]), true)).toStrictEqual({ blob: null, hasThinking: false })
  })

  it("ToolResultBlock content None → \"\", string as is, array → text items", () => {
    expect(userOf(pyUserBlocks(PY_TOOL_RESULT_NULL, PY_TOOL_RESULT, PY_TOOL_RESULT_ARRAY))).toStrictEqual(
      userBlob(
        { type: "tool_result", tool_use_id: "tu_3", content: "" },
        TOOL_RESULT_OUT,
        { type: "tool_result", tool_use_id: "tu_2", content: [textBlock("line1"), textBlock("line2")] }
      )
    )
  })

  it("AssistantMessage meta includes the model", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_TEXT], { model: "claude-opus-4-1" })]).calls)
      .toStrictEqual([
        create(UUID_DEFAULT),
        store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: "claude-opus-4-1" })
      ])
  })
})

describe("Acontext Python integration plan test cases: 2. session id (4 cases)", () => {
  it("init data.session_id → returned, and used for later stores", () => {
    expect(sessionIdOf(pySystemInit(UUID_DISCOVERED))).toBe(UUID_DISCOVERED)
    expect(runPy({}, [pySystemInit(UUID_DISCOVERED), pyUserText("x")]).calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, userBlob(textBlock("x")))
    ])
  })

  it("init without data.session_id → null, no crash, nothing resolved", () => {
    const r = runPy({}, [{ subtype: "init", data: {} }])
    expect(r.state.sessionId).toBeNull()
    expect(skipReasons(r)).toStrictEqual(["NotStorable"])
  })

  it("result / stream event session ids are used when no init was seen", () => {
    expect(runPy({}, [pyResultMessage(UUID_FROM_RESULT), pyUserText("x")]).calls[0]).toStrictEqual(
      create(UUID_FROM_RESULT)
    )
    expect(runPy({}, [pyStreamEvent(UUID_FROM_STREAM), pyUserText("x")]).calls[0]).toStrictEqual(
      create(UUID_FROM_STREAM)
    )
  })

  it("user/assistant before any session id → a session is CREATED (plan says skip with a warning)", () => {
    // The Python plan skips with a warning; upstream code, TS Rule 9 and
    // docs/design.md#behaviour-decisions-for-claudeagentstorage ("lazily, just before the first message is stored") create
    // the session instead. Nothing is warned.
    const r = runPy({}, [pyUserText("early"), pyAssistant([PY_TEXT])])
    expect(r.calls).toStrictEqual([
      create(null),
      store(UUID_AUTO, userBlob(textBlock("early"))),
      store(UUID_AUTO, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
    expect(r.warned).toStrictEqual([])
  })
})

describe("Acontext Python integration plan test cases: 3. only user and assistant stored (3 cases)", () => {
  it("given a session id: user and assistant each stored once with blob, format and meta", () => {
    expect(runPy({ sessionId: UUID_DEFAULT }, [pyUserText("Hi"), pyAssistant([PY_TEXT])]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("Hi"))),
      store(UUID_DEFAULT, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
  })

  it("without a session id: init sets it, then messages are stored under it", () => {
    const r = runPy({}, [pySystemInit(UUID_FLOW), pyUserText("Hi"), pyAssistant([PY_TEXT])])
    expect(r.calls).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, userBlob(textBlock("Hi"))),
      store(UUID_FLOW, assistantBlob(TEXT_OUT), { model: MODEL })
    ])
  })

  it("system (any subtype), result and stream events are never stored", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [
      pySystemInit(),
      pySystemOther(),
      { subtype: "compact_boundary", data: { session_id: UUID_SECOND } },
      pyResultMessage(),
      pyStreamEvent()
    ])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["NotStorable", "NotStorable", "NotStorable", "NotStorable", "NotStorable"])
  })
})

describe("Acontext Python integration plan test cases: 4. error handling (2 cases)", () => {
  const flaky = { storeMessage: script(failure(503, "unavailable"), stored) }

  it("store_message fails → on_error invoked, the loop continues", () => {
    const r = runPy({ sessionId: UUID_DEFAULT, onError: true }, [pyUserText("one"), pyUserText("two")], flaky)
    expect(r.errors).toStrictEqual([
      { error: { op: "storeMessage", status: 503, message: "unavailable" }, blob: userBlob(textBlock("one")) }
    ])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("one"))),
      store(UUID_DEFAULT, userBlob(textBlock("two")))
    ])
  })

  it("default (no on_error): logged, not raised, the loop continues", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyUserText("one"), pyUserText("two")], flaky)
    expect(r.warned).toStrictEqual([
      { sessionId: UUID_DEFAULT, error: { op: "storeMessage", status: 503, message: "unavailable" } }
    ])
    expect(r.calls).toHaveLength(3)
  })
})

describe("Acontext Python integration plan test cases: 5. edge (3 cases)", () => {
  it("empty content after filtering → store skipped", () => {
    const r = runPy({ sessionId: UUID_DEFAULT }, [pyAssistant([PY_EMPTY_TEXT, PY_TOOL_RESULT, PY_EMPTY_THINKING])])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent"])
  })

  it("dataclass message (class instance with the dataclass fields) is handled like its dict", () => {
    class UserMessage {
      content: Array<unknown> = [{ text: "hi" }, { tool_use_id: "tu_9", content: null, is_error: null }]
      uuid = "u-1"
      parent_tool_use_id = null
      tool_use_result = null
    }
    const instance = new UserMessage()
    expect(userOf(instance)).toStrictEqual(userOf({ ...instance }))
    expect(userOf(instance)).toStrictEqual(
      userBlob(textBlock("hi"), { type: "tool_result", tool_use_id: "tu_9", content: "" })
    )
  })

  it("UserMessage.tool_use_result is ignored", () => {
    const message = { content: [PY_TOOL_RESULT], tool_use_result: { stdout: "2", stderr: "" } }
    expect(userOf(message)).toStrictEqual(userBlob(TOOL_RESULT_OUT))
  })
})

describe("python and TypeScript shapes give identical blobs", () => {
  const pairs: ReadonlyArray<readonly [string, unknown, unknown]> = [
    ["user string", pyUserText("Hi"), F.userText("Hi")],
    [
      "user blocks",
      pyUserBlocks(
        PY_TEXT,
        PY_TOOL_USE,
        PY_TOOL_RESULT,
        PY_TOOL_RESULT_ARRAY,
        PY_TOOL_RESULT_NULL,
        PY_TOOL_RESULT_ERROR
      ),
      F.userBlocks(F.TEXT, F.TOOL_USE, F.TOOL_RESULT, F.TOOL_RESULT_ARRAY, F.TOOL_RESULT_NULL, F.TOOL_RESULT_ERROR)
    ],
    [
      "assistant blocks",
      pyAssistant([PY_THINKING, PY_EMPTY_THINKING, PY_TEXT, PY_EMPTY_TEXT, PY_TOOL_USE, PY_TOOL_RESULT], {
        error: "x"
      }),
      F.assistant([F.THINKING, F.EMPTY_THINKING, F.TEXT, F.EMPTY_TEXT, F.TOOL_USE, F.TOOL_RESULT], { error: "x" })
    ]
  ]
  for (const [name, py, ts] of pairs) {
    it(name, () => {
      for (
        const options of [{}, { includeThinking: true }, { includeThinking: true, thinkingFormat: "native" as const }]
      ) {
        const a = run({ sessionId: UUID_DEFAULT, ...options }, [py])
        const b = run({ sessionId: UUID_DEFAULT, ...options }, [ts])
        expect(a.calls).toStrictEqual(b.calls)
        expect(a.calls).toHaveLength(2)
      }
    })
  }
})
