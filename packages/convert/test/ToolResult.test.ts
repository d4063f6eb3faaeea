/**
 * One text for a tool result: the session page's tool results, `acx chat`'s `ToolResult`
 * events and Acontext's read-back comparison all come from `ToolResult`. The page and the
 * events used to disagree (a document block was `[document]` on the page and nothing in the
 * events; an object content pretty JSON on one, compact on the other).
 */
import { mapSdkMessage } from "@acx/convert/AgentEvent"
import * as CommandMarkup from "@acx/convert/CommandMarkup"
import * as SessionBlocks from "@acx/convert/SessionBlocks"
import { normalizeToolResultContent, storedToolResultText, toolResultText } from "@acx/convert/ToolResult"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const item = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string() }),
  fc.record({ type: fc.constantFrom("document", "tool_reference", "search_result"), title: fc.string() }),
  fc.record({
    type: fc.constant("image"),
    source: fc.record({ type: fc.constant("base64"), data: fc.base64String() })
  }),
  fc.string(),
  fc.jsonValue()
)
const content = fc.oneof(fc.string(), fc.array(item, { maxLength: 5 }), fc.jsonValue(), fc.constant(undefined))

// the text `acx chat` shows for a result, as an event of the SDK's user message
const eventText = (value: unknown): string | undefined => {
  const events = mapSdkMessage({
    type: "user",
    parent_tool_use_id: null,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: value }] }
  })
  const event = events.find((e) => e._tag === "ToolResult")
  return event?._tag === "ToolResult" ? event.text : undefined
}

describe("ToolResult.toolResultText", () => {
  it("is total, and reads text blocks, strings, other blocks as [type], without images", () => {
    fc.assert(fc.property(content, (value) => {
      expect(typeof toolResultText(value)).toBe("string")
    }))
    expect(toolResultText([
      { type: "text", text: "a" },
      { type: "document", source: {} },
      { type: "image", source: { type: "base64", data: "AAAA" } },
      "b"
    ])).toBe("a\n[document]\nb")
    expect(toolResultText(null)).toBe("")
    expect(toolResultText({ ok: true })).toBe("{\n  \"ok\": true\n}")
  })

  it("the session page and acx chat's events show the same text for any result", () => {
    fc.assert(fc.property(content, (value) => {
      const page = SessionBlocks.resultOf({ type: "tool_result", content: value }, { line: 1, block: 0 }, undefined, (
        text
      ) => text)
      // the page cuts long texts and strips terminal escapes: compare what it shows
      const shown = CommandMarkup.stripAnsi(eventText(value) ?? "")
      expect(page.text.text).toBe(shown.slice(0, page.text.text.length))
      expect(page.text.size).toBe(shown.length)
    }))
  })

  it("compares stored results by the text Acontext keeps: text items, concatenated", () => {
    fc.assert(fc.property(content, (value) => {
      const normalized = normalizeToolResultContent(value)
      expect(storedToolResultText(value)).toBe(
        typeof normalized === "string" ? normalized : normalized.map((entry) => entry.text).join("")
      )
    }))
    expect(storedToolResultText([{ type: "text", text: "a" }, { type: "text", text: "b" }])).toBe("ab")
  })
})
