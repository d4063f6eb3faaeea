import * as Fixtures from "@acx/fixtures"
import { PythonMessage as Py } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"

const decodeMessage = Schema.decodeUnknownEither(Py.PythonMessage)
const decodeBlock = Schema.decodeUnknownEither(Py.PythonBlock)

const decoded = <A>(either: Either.Either<A, unknown>): A => {
  if (Either.isLeft(either)) throw new Error(String(either.left))
  return either.right
}

const S = "a1b2c3d4-e5f6-7890-abcd-ef1234567890"

// The fixtures of Acontext's Python integration (its plan and its upstream tests), in the Python
// (no `type`) shape.
const TEXT = { text: "Hello, world!" }
const EMPTY_TEXT = { text: "" }
const THINKING = { thinking: "Let me reason...", signature: "sig123" }
const TOOL_USE = { id: "tu_1", name: "calculator", input: { expr: "1+1" } }
const TOOL_RESULT = { tool_use_id: "tu_1", content: "Result is 2" }
const TOOL_RESULT_ARRAY = { tool_use_id: "tu_2", content: [{ text: "line1" }, { text: "line2" }] }
const TOOL_RESULT_NULL = { tool_use_id: "tu_3", content: null }
const TOOL_RESULT_ERROR = { tool_use_id: "tu_4", content: "error detail", is_error: true }

describe("PythonMessage blocks", () => {
  it("classifies by key presence in the plan's order", () => {
    expect(Py.classifyPythonBlock(TEXT)).toBe("text")
    expect(Py.classifyPythonBlock(EMPTY_TEXT)).toBe("text")
    expect(Py.classifyPythonBlock(THINKING)).toBe("thinking")
    expect(Py.classifyPythonBlock(TOOL_USE)).toBe("tool_use")
    for (const block of [TOOL_RESULT, TOOL_RESULT_ARRAY, TOOL_RESULT_NULL, TOOL_RESULT_ERROR]) {
      expect(Py.classifyPythonBlock(block)).toBe("tool_result")
    }
    // thinking needs both keys; without signature the dict is not a thinking block
    expect(Py.classifyPythonBlock({ thinking: "x" })).toBe("unknown")
    expect(Py.classifyPythonBlock({ thinking: "x", text: "t" })).toBe("text")
    // earlier rules win over later ones
    expect(Py.classifyPythonBlock({ ...THINKING, ...TOOL_USE, text: "t" })).toBe("thinking")
    expect(Py.classifyPythonBlock({ ...TOOL_USE, tool_use_id: "x", text: "t" })).toBe("tool_use")
    expect(Py.classifyPythonBlock({ tool_use_id: "x", text: "t" })).toBe("tool_result")
    // a ServerToolUseBlock (id, name, input) is a tool_use for the Python rules
    expect(Py.isPyToolUseBlock({ id: "srv_1", name: "web_search", input: { query: "q" } })).toBe(true)
    // a value, not the type, decides nothing: keys do
    expect(Py.isPyTextBlock({ text: 5 })).toBe(true)
    expect(Py.classifyPythonBlock("plain")).toBe("unknown")
    expect(Py.classifyPythonBlock(null)).toBe("unknown")
    expect(Py.classifyPythonBlock([TEXT])).toBe("unknown")
    expect(Py.classifyPythonBlock({ type: "image", source: {} })).toBe("unknown")
  })

  it("guards agree with classify", () => {
    expect(Py.isPyThinkingBlock(THINKING)).toBe(true)
    expect(Py.isPyToolUseBlock(TOOL_USE)).toBe(true)
    expect(Py.isPyToolResultBlock(TOOL_RESULT)).toBe(true)
    expect(Py.isPyTextBlock(TEXT)).toBe(true)
    expect(Py.isPyTextBlock(THINKING)).toBe(false)
  })

  it("decodes each block into the member its keys select", () => {
    expect(Schema.is(Py.PyTextBlock)(decoded(decodeBlock(TEXT)))).toBe(true)
    expect(Schema.is(Py.PyThinkingBlock)(decoded(decodeBlock(THINKING)))).toBe(true)
    expect(Schema.is(Py.PyToolUseBlock)(decoded(decodeBlock(TOOL_USE)))).toBe(true)
    for (const block of [TOOL_RESULT, TOOL_RESULT_ARRAY, TOOL_RESULT_NULL, TOOL_RESULT_ERROR]) {
      expect(decoded(Schema.decodeUnknownEither(Py.PyToolResultBlock)(block))).toStrictEqual(block)
    }
    // a text dict that also has tool_use_id is a tool result, never a text block
    expect(Either.isLeft(Schema.decodeUnknownEither(Py.PyTextBlock)({ text: "t", tool_use_id: "x" }))).toBe(true)
  })

  it("explains why a member rejects a dict of another kind", () => {
    const result = Schema.decodeUnknownEither(Py.PyTextBlock)({ text: "t", thinking: "x", signature: "s" })
    expect(Either.isLeft(result) && String(result.left)).toContain("select another block kind than PyTextBlock")
  })

  it("decodes other dicts, and known keys with wrong value types, as Unknown", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }
    expect(decoded(decodeBlock(image))).toStrictEqual(image)
    expect(decoded(decodeBlock({ text: 5 }))).toStrictEqual({ text: 5 })
    expect(Schema.is(Py.PyTextBlock)({ text: 5 })).toBe(false)
    expect(Either.isLeft(decodeBlock("plain"))).toBe(true)
  })

  it("preserves unknown keys", () => {
    const block = { text: "hi", citations: [{ cited_text: "x" }], cache_control: { type: "ephemeral" } }
    expect(decoded(decodeBlock(block))).toStrictEqual(block)
  })
})

describe("PythonMessage messages", () => {
  const cases: ReadonlyArray<readonly [string, unknown, Py.PythonMessageKind]> = [
    ["init", { subtype: "init", data: { session_id: S } }, "system"],
    ["init without session_id", { subtype: "init", data: {} }, "system"],
    ["other system", { subtype: "heartbeat", data: {} }, "system"],
    ["user string", { content: "What is the capital of France?" }, "user"],
    ["user blocks", { content: [TEXT, TOOL_RESULT, TOOL_USE] }, "user"],
    ["user empty", { content: "" }, "user"],
    ["assistant", { content: [TEXT, THINKING, TOOL_USE], model: "claude-sonnet-4-20250514" }, "assistant"],
    ["assistant errored", { content: [TEXT], model: "claude-sonnet-4-20250514", error: "rate_limit" }, "assistant"],
    ["result", { subtype: "end", session_id: S }, "result"],
    ["stream", { uuid: "evt-1", session_id: S, event: "delta" }, "stream_event"]
  ]

  it.each(cases)("%s: classified and decoded as its kind", (_name, message, kind) => {
    expect(Py.classifyPythonMessage(message)).toBe(kind)
    const value = decoded(decodeMessage(message))
    expect(value).toStrictEqual(message)
    const is = {
      assistant: Schema.is(Py.PyAssistantMessage),
      user: Schema.is(Py.PyUserMessage),
      system: Schema.is(Py.PySystemMessage),
      result: Schema.is(Py.PyResultMessage),
      stream_event: Schema.is(Py.PyStreamEvent),
      unknown: Schema.is(Py.PyUnknownMessage)
    }[kind]
    expect(is(value)).toBe(true)
  })

  it("follows the plan's precedence", () => {
    // content wins over everything; model decides assistant vs user
    expect(Py.isPyAssistantMessage({ content: [], model: "m", subtype: "x", data: {} })).toBe(true)
    expect(Py.isPyUserMessage({ content: [], subtype: "x", data: {} })).toBe(true)
    // system before result
    expect(Py.isPySystemMessage({ subtype: "init", data: {}, session_id: S })).toBe(true)
    expect(Py.isPyResultMessage({ subtype: "success", session_id: S, uuid: "u", event: {} })).toBe(true)
    // a stream event needs all three keys
    expect(Py.classifyPythonMessage({ uuid: "u", session_id: S })).toBe("unknown")
    expect(Py.classifyPythonMessage({ rate_limit_info: {}, uuid: "u", session_id: S })).toBe("unknown")
  })

  it("decodes malformed known kinds (init with non-dict data) as Unknown", () => {
    const message = { subtype: "init", data: "not a dict" }
    expect(Py.isPySystemMessage(message)).toBe(true)
    const value = decoded(decodeMessage(message))
    expect(Schema.is(Py.PySystemMessage)(value)).toBe(false)
    expect(value).toStrictEqual(message)
  })

  it("preserves unknown keys, nested ones included", () => {
    const message = {
      content: [{ text: "x", extra: 1 }, { tool_use_id: "t", content: [{ type: "text", text: "y", z: 2 }] }],
      model: "m",
      usage: { input_tokens: 1 },
      message_id: "msg_1"
    }
    expect(decoded(decodeMessage(message))).toStrictEqual(message)
  })

  it("encodes back to the same dicts", () => {
    for (const [, message] of cases) {
      const value = decoded(decodeMessage(message))
      expect(Schema.encodeSync(Py.PythonMessage)(value)).toStrictEqual(message)
    }
  })

  it("round-trips generated known messages", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Py.KnownPythonMessage), (message) => {
        const encoded = Schema.encodeSync(Py.PythonMessage)(message)
        expect(Schema.decodeUnknownSync(Py.PythonMessage)(encoded)).toStrictEqual(message)
      }),
      { numRuns: 200 }
    )
  })
})

const parsedShapesFile = path.join(Fixtures.fixturesDir, "sdk-streams", "python-sdk-parser-frames.json")

describe(
  "python_sdk_parsed_shapes",
  () => {
    const shapes = (): Record<string, unknown> =>
      (JSON.parse(fs.readFileSync(parsedShapesFile, "utf8")) as { python_sdk_parsed_shapes: Record<string, unknown> })
        .python_sdk_parsed_shapes

    const expected: Record<string, Py.PythonMessageKind> = {
      "SystemMessage(init)": "system",
      UserMessage: "user",
      AssistantMessage: "assistant",
      ResultMessage: "result",
      StreamEvent: "stream_event"
    }

    it("classifies and decodes every message shape", () => {
      for (const [name, kind] of Object.entries(expected)) {
        const shape = shapes()[name]
        expect(Py.classifyPythonMessage(shape), name).toBe(kind)
        const value = decoded(decodeMessage(shape))
        expect(value, name).toStrictEqual(shape)
        expect(Py.classifyPythonMessage(value), name).toBe(kind)
      }
    })

    it("decodes the assistant's blocks as thinking, text and tool_use", () => {
      const assistant = decoded(Schema.decodeUnknownEither(Py.PyAssistantMessage)(shapes()["AssistantMessage"]))
      expect(assistant.content.map(Py.classifyPythonBlock)).toStrictEqual(["text", "thinking", "tool_use"])
      expect(assistant.content.every((block) => Schema.is(Py.KnownPythonBlock)(block))).toBe(true)
    })

    it("decodes the ToolResultBlock shape", () => {
      const block = shapes()["ToolResultBlock"]
      expect(Py.classifyPythonBlock(block)).toBe("tool_result")
      expect(decoded(Schema.decodeUnknownEither(Py.PyToolResultBlock)(block))).toStrictEqual(block)
    })
  }
)
