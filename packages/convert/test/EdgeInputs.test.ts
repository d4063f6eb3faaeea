/**
 * The edge inputs where Acontext's TypeScript and Python integrations diverge, or agree on
 * something acx changes, each with what acx does, deliberately. Items 1–11 are where the two
 * upstream implementations diverge; 12–20 are inputs they handle alike, where acx changes the
 * outcome or deliberately keeps it. The reasons are in docs/convert.md ("Where acx differs from
 * Acontext's own integration, and why").
 */
import {
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  ContentBlocks,
  fromPythonMessage,
  getSessionIdFromMessage
} from "@acx/convert"
import {
  assistant,
  assistantBlob,
  pyAssistant,
  pyUserBlocks,
  TEXT,
  textBlock,
  userBlob,
  userBlocks,
  userReplay,
  UUID_DEFAULT,
  UUID_DISCOVERED
} from "@acx/fixtures/acontextVectors"
import { describe, expect, it } from "@effect/vitest"
import { run, skipReasons } from "./utils/simulate.js"

const TEXT_OUT = textBlock("Hello, world!")
const native = { includeThinking: true, thinkingFormat: "native" } as const
const toolResult = (content: unknown) => userBlocks({ type: "tool_result", tool_use_id: "t", content })
const toolResultOut = (content: unknown) => userBlob({ type: "tool_result", tool_use_id: "t", content })
const toolUse = (input: unknown) => assistant([{ type: "tool_use", id: "t", name: "n", input }])
const toolUseOut = (input: unknown) => assistantBlob({ type: "tool_use", id: "t", name: "n", input })

describe("edge inputs where upstream TS and Python diverge (20 cases + 1 never exercised upstream)", () => {
  it("1. TS thinking without signature: text form, and native falls back to text (upstream TS: signature \"\")", () => {
    const message = assistant([{ type: "thinking", thinking: "why" }])
    expect(claudeAssistantMessageToAnthropicBlob(message, true)).toStrictEqual({
      blob: assistantBlob(textBlock("why")),
      hasThinking: true
    })
    expect(claudeAssistantMessageToAnthropicBlob(message, native)).toStrictEqual({
      blob: assistantBlob(textBlock("why")),
      hasThinking: true
    })
  })

  it("2. Python thinking without signature is not a ThinkingBlock by key presence: dropped (as upstream Py)", () => {
    // Shapes differ here on purpose: the Python plan's rule needs `thinking` + `signature`.
    expect(claudeAssistantMessageToAnthropicBlob(pyAssistant([{ thinking: "why" }, { text: "ok" }]), native))
      .toStrictEqual({ blob: assistantBlob(textBlock("ok")), hasThinking: false })
  })

  it("3. signature null: native falls back to text (upstream TS \"\", Py null)", () => {
    expect(
      claudeAssistantMessageToAnthropicBlob(assistant([{ type: "thinking", thinking: "t", signature: null }]), native)
    )
      .toStrictEqual({ blob: assistantBlob(textBlock("t")), hasThinking: true })
    expect(claudeAssistantMessageToAnthropicBlob(pyAssistant([{ thinking: "t", signature: null }]), native))
      .toStrictEqual({ blob: assistantBlob(textBlock("t")), hasThinking: true })
  })

  it("4. tool_result array with non-object items: strings become text items, others dropped (upstream TS {text:\"\"}, Py crash)", () => {
    expect(claudeUserMessageToAnthropicBlob(toolResult(["plain", 5, true, null, [1]]))).toStrictEqual(
      toolResultOut([textBlock("plain")])
    )
  })

  it("5. tool_result item with text null: dropped; nothing left → \"\" (upstream TS \"\", Py null)", () => {
    expect(claudeUserMessageToAnthropicBlob(toolResult([{ text: null }, { text: "b" }]))).toStrictEqual(
      toolResultOut([textBlock("b")])
    )
    expect(claudeUserMessageToAnthropicBlob(toolResult([{ text: null }]))).toStrictEqual(toolResultOut(""))
  })

  it("6. tool_result content an object: its JSON text (upstream TS \"[object Object]\", Py \"{'a': 1}\")", () => {
    expect(claudeUserMessageToAnthropicBlob(toolResult({ a: 1 }))).toStrictEqual(toolResultOut("{\"a\":1}"))
  })

  it("7. tool_use string input \"NaN\": {raw: \"NaN\"} (as upstream TS; Py sent NaN, invalid JSON)", () => {
    expect(claudeAssistantMessageToAnthropicBlob(toolUse("NaN")).blob).toStrictEqual(toolUseOut({ raw: "NaN" }))
  })

  it("8. tool_use string input that parses to a non-object (\"5\", \"null\", \"[1]\"): wrapped (upstream: 5, null, [1])", () => {
    expect(claudeAssistantMessageToAnthropicBlob(toolUse("5")).blob).toStrictEqual(toolUseOut({ raw: "5" }))
    expect(claudeAssistantMessageToAnthropicBlob(toolUse("null")).blob).toStrictEqual(toolUseOut({ raw: "null" }))
    expect(claudeAssistantMessageToAnthropicBlob(toolUse("[1]")).blob).toStrictEqual(toolUseOut({ raw: "[1]" }))
  })

  it("9. server tool use: TS `server_tool_use` skipped; Python ServerToolUseBlock (id+name+input) stored as tool_use", () => {
    // The asdict() shape cannot tell a ServerToolUseBlock from a ToolUseBlock; acx applies the
    // Python plan's key-presence rule, as upstream Py does.
    const ts = assistant([{ type: "server_tool_use", id: "s", name: "web_search", input: { q: "x" } }, TEXT])
    expect(claudeAssistantMessageToAnthropicBlob(ts).blob).toStrictEqual(assistantBlob(TEXT_OUT))
    const py = pyAssistant([{ id: "s", name: "web_search", input: { q: "x" } }])
    expect(claudeAssistantMessageToAnthropicBlob(py).blob).toStrictEqual(
      assistantBlob({ type: "tool_use", id: "s", name: "web_search", input: { q: "x" } })
    )
  })

  it("10. user content null: nothing to store, in both shapes (upstream Py: TypeError)", () => {
    const ts = { type: "user", message: { role: "user", content: null } }
    const py = { content: null }
    expect(claudeUserMessageToAnthropicBlob(ts)).toBeNull()
    expect(claudeUserMessageToAnthropicBlob(py)).toBeNull()
    const r = run({ sessionId: UUID_DEFAULT }, [ts, py])
    expect(r.calls).toStrictEqual([])
    expect(skipReasons(r)).toStrictEqual(["EmptyContent", "EmptyContent"])
  })

  it("11. replay frames (isReplay: true): stored by default (upstream TS dropped them, Py stored them)", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [userReplay("prompt", "u-1")]).calls[1]).toStrictEqual({
      call: "store",
      sessionId: UUID_DEFAULT,
      blob: userBlob(textBlock("prompt")),
      format: "anthropic",
      meta: null
    })
  })

  it("12. isReplay truthy but not `true` (1, \"true\"): an ordinary user message, stored (upstream TS ignored it)", () => {
    const r = run({ sessionId: UUID_DEFAULT, replays: "skip" }, [
      { type: "user", isReplay: 1, message: { content: "a" } },
      { type: "user", isReplay: "true", message: { content: "b" } }
    ])
    expect(skipReasons(r)).toStrictEqual([null, null])
    expect(r.calls).toHaveLength(3)
  })

  it("13. session id on a non-init system frame: adopted, in both shapes (as upstream TS; Py ignored it)", () => {
    expect(getSessionIdFromMessage({ type: "system", subtype: "status", session_id: UUID_DISCOVERED })).toBe(
      UUID_DISCOVERED
    )
    expect(getSessionIdFromMessage({ subtype: "status", data: { session_id: UUID_DISCOVERED } })).toBe(
      UUID_DISCOVERED
    )
  })

  it("14. images in user messages kept (upstream TS and Py both dropped them); elsewhere dropped", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/" } }
    expect(claudeUserMessageToAnthropicBlob(userBlocks(image))).toStrictEqual(userBlob(image))
    expect(claudeAssistantMessageToAnthropicBlob(assistant([image])).blob).toBeNull()
  })

  it("15. documents in user messages kept (upstream both dropped them)", () => {
    const doc = { type: "document", source: { type: "url", url: "https://example.com/spec.pdf" } }
    expect(claudeUserMessageToAnthropicBlob(userBlocks(doc))).toStrictEqual(userBlob(doc))
  })

  it("16. redacted_thinking: dropped by default and in text form, kept in native form (upstream dropped it)", () => {
    const message = assistant([{ type: "redacted_thinking", data: "enc" }])
    expect(claudeAssistantMessageToAnthropicBlob(message).blob).toBeNull()
    expect(claudeAssistantMessageToAnthropicBlob(message, true).blob).toBeNull()
    expect(claudeAssistantMessageToAnthropicBlob(message, native)).toStrictEqual({
      blob: assistantBlob({ type: "redacted_thinking", data: "enc" }),
      hasThinking: true
    })
  })

  it("17. a text block whose text is not a string (42) is dropped (upstream passed it through)", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks({ type: "text", text: 42 }))).toBeNull()
    expect(claudeAssistantMessageToAnthropicBlob(pyAssistant([{ text: 42 }, { text: "ok" }])).blob).toStrictEqual(
      assistantBlob(textBlock("ok"))
    )
  })

  it("18. tool_use input \"\": {raw: \"\"} (same as upstream)", () => {
    expect(claudeAssistantMessageToAnthropicBlob(toolUse("")).blob).toStrictEqual(toolUseOut({ raw: "" }))
  })

  it("19. non-object items in content arrays are skipped (same as upstream)", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks("loose", 1, null, [TEXT], TEXT))).toStrictEqual(
      userBlob(TEXT_OUT)
    )
    expect(claudeUserMessageToAnthropicBlob(pyUserBlocks("loose", null, { text: "x" }))).toStrictEqual(
      userBlob(textBlock("x"))
    )
  })

  it("20. malformed blocks: extra text fields dropped; tool_use without string id/name and tool_result without string tool_use_id dropped (upstream sent them)", () => {
    expect(
      claudeUserMessageToAnthropicBlob(userBlocks(
        { type: "text", text: "cited", citations: [{ type: "char_location" }], cache_control: { type: "ephemeral" } },
        { type: "tool_result", content: "orphan" },
        { type: "tool_result", tool_use_id: 7, content: "bad id" }
      ))
    ).toStrictEqual(userBlob(textBlock("cited")))
    expect(
      claudeAssistantMessageToAnthropicBlob(assistant([
        { type: "tool_use", name: "n", input: {} },
        { type: "tool_use", id: "t", input: {} },
        TEXT
      ])).blob
    ).toStrictEqual(assistantBlob(TEXT_OUT))
  })

  it("(never exercised by upstream tests) errored message with includeThinking; model \"<synthetic>\" kept in meta", () => {
    const message = assistant([{ type: "thinking", thinking: "t", signature: "s" }, TEXT], {
      model: "<synthetic>",
      error: "rate_limit"
    })
    expect(run({ sessionId: UUID_DEFAULT, includeThinking: true }, [message]).calls[1]).toStrictEqual({
      call: "store",
      sessionId: UUID_DEFAULT,
      blob: assistantBlob(textBlock("t"), TEXT_OUT),
      format: "anthropic",
      meta: { model: "<synthetic>", has_thinking: true, error: "rate_limit" }
    })
  })
  // The remaining divergence (the `create` wire body: no body vs {}, `user: ""`) is HTTP
  // encoding and belongs to @acx/storage's client, not to @acx/convert.
})

describe("role rules in the lower-level ContentBlocks API", () => {
  // The message functions never pass thinking options on the user side, but ContentBlocks is
  // exported too: thinking is an assistant-only block whatever the options.
  it("convertBlock(thinking, \"user\", {includeThinking}) skips the block", () => {
    expect(ContentBlocks.convertBlock({ type: "thinking", thinking: "t", signature: "s" }, "user", native)).toBeNull()
  })

  it("convertBlock(redacted_thinking, \"user\", native) skips the block", () => {
    expect(ContentBlocks.convertBlock({ type: "redacted_thinking", data: "d" }, "user", native)).toBeNull()
  })

  it("a dict with a non-string `type` key is not taken for a Python message", () => {
    expect(fromPythonMessage({ type: 5, content: "x" })).toEqual({ type: 5, content: "x" })
  })
})
