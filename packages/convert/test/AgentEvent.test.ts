/**
 * `mapSdkMessage`: total over anything (schema-generated SDK messages of every known shape, the
 * test arbitraries' near-misses, any JSON, hostile objects), exact on hand-written messages of
 * each kind, and on every fixture SDK stream: nothing known falls into `Unknown`.
 */
import { AgentEvent } from "@acx/convert"
import * as Fixtures from "@acx/fixtures"
import * as SdkMessage from "@acx/schema/SdkMessage"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { anyMessage, schemaMessage } from "./arbitraries.js"

const { mapSdkMessage } = AgentEvent
const runs = { numRuns: 2_000 }
const sid = "6ecfec6e-81dd-40a6-ae97-e98985fdde9c"

describe("mapSdkMessage", () => {
  it("property: total over generated SDK messages, their near-misses and any JSON", () => {
    fc.assert(
      fc.property(fc.oneof(schemaMessage, anyMessage, fc.anything()), (message) => {
        const events = mapSdkMessage(message)
        expect(Array.isArray(events)).toBe(true)
        for (const event of events) expect(typeof event._tag).toBe("string")
      }),
      runs
    )
  })

  it("property: every known SDK message maps to known events (never Unknown)", () => {
    fc.assert(
      fc.property(Arbitrary.make(SdkMessage.KnownSdkMessage), (message) => {
        const type = (message as { type: string }).type
        const subtype = (message as { subtype?: string }).subtype
        const handled = ["assistant", "user", "stream_event", "result", "tool_progress"].includes(type) ||
          (type === "system" &&
            [
              "status",
              "session_state_changed",
              "api_retry",
              "compact_boundary",
              "task_started",
              "task_progress",
              "task_updated",
              "task_notification"
            ].includes(subtype ?? ""))
        if (!handled) return
        expect(mapSdkMessage(message).filter((event) => event._tag === "Unknown")).toEqual([])
      }),
      runs
    )
  })

  it("hostile input: getters that throw, proxies, cycles are an Unknown event, not an exception", () => {
    const throwing = Object.defineProperty({ type: "assistant" }, "message", {
      enumerable: true,
      get: () => {
        throw new Error("boom")
      }
    })
    const proxy = new Proxy({}, {
      get: () => {
        throw new Error("trap")
      }
    })
    const cyclic: Record<string, unknown> = { type: "user" }
    cyclic["message"] = { content: [{ type: "tool_result", tool_use_id: "t", content: cyclic }] }
    for (const message of [throwing, proxy, cyclic, null, undefined, 42, "text", [], Symbol("s")]) {
      const events = mapSdkMessage(message)
      expect(events.length).toBeGreaterThan(0)
    }
    expect(mapSdkMessage(throwing)).toEqual([expect.objectContaining({ _tag: "Unknown", type: "assistant" })])
  })

  it("each kind, exactly", () => {
    expect(
      mapSdkMessage({ type: "system", subtype: "init", session_id: sid, model: "m", cwd: "/p", tools: ["Bash", 1] })
    )
      .toEqual([AgentEvent.AgentEvent.SessionStarted({ sessionId: sid, model: "m", cwd: "/p", tools: ["Bash"] })])
    expect(mapSdkMessage({
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      parent_tool_use_id: null
    })).toEqual([AgentEvent.AgentEvent.TextDelta({ text: "Hel", parentToolUseId: null })])
    expect(mapSdkMessage({ type: "stream_event", event: { type: "message_start", message: {} } })).toEqual([])
    expect(mapSdkMessage({
      type: "assistant",
      parent_tool_use_id: "toolu_task",
      message: {
        id: "msg_1",
        model: "claude-sonnet-4-5",
        content: [
          { type: "thinking", thinking: "hmm", signature: "s" },
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }
        ],
        usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5 }
      }
    })).toEqual([
      AgentEvent.AgentEvent.Thinking({ thinking: "hmm", parentToolUseId: "toolu_task" }),
      AgentEvent.AgentEvent.Text({ text: "Listing.", messageId: "msg_1", parentToolUseId: "toolu_task" }),
      AgentEvent.AgentEvent.ToolUse({
        id: "toolu_1",
        name: "Bash",
        input: { command: "ls" },
        parentToolUseId: "toolu_task"
      }),
      AgentEvent.AgentEvent.Usage({
        messageId: "msg_1",
        model: "claude-sonnet-4-5",
        tokens: { input: 10, output: 3, cacheRead: 5, cacheWrite: 0 },
        parentToolUseId: "toolu_task"
      })
    ])
    expect(mapSdkMessage({
      type: "user",
      isReplay: true,
      uuid: "u1",
      message: { role: "user", content: "Fix the test" }
    })).toEqual([AgentEvent.AgentEvent.UserPrompt({ text: "Fix the test", uuid: "u1", parentToolUseId: null })])
    expect(mapSdkMessage({
      type: "user",
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [{ type: "text", text: "a.txt" }],
          is_error: true
        }]
      }
    })).toEqual([
      AgentEvent.AgentEvent.ToolResult({ toolUseId: "toolu_1", text: "a.txt", isError: true, parentToolUseId: null })
    ])
    expect(mapSdkMessage({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      session_id: sid,
      errors: ["too many turns", 3],
      total_cost_usd: 0.5,
      usage: { input_tokens: 100, output_tokens: 20 },
      modelUsage: {
        "claude-sonnet-4-5": { costUSD: 0.5, inputTokens: 300, outputTokens: 40, cacheReadInputTokens: 7 },
        "claude-haiku-4-5": "not an object"
      },
      num_turns: 9,
      duration_ms: 1200
    })).toEqual([AgentEvent.AgentEvent.TurnComplete({
      sessionId: sid,
      subtype: "error_max_turns",
      isError: true,
      result: undefined,
      errors: ["too many turns"],
      totalCostUsd: 0.5,
      tokens: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 },
      costByModel: { "claude-sonnet-4-5": 0.5 },
      tokensByModel: { "claude-sonnet-4-5": { input: 300, output: 40, cacheRead: 7, cacheWrite: 0 } },
      numTurns: 9,
      durationMs: 1200
    })])
    expect(
      mapSdkMessage({
        type: "system",
        subtype: "compact_boundary",
        compact_metadata: { trigger: "auto", pre_tokens: 9000 }
      })
    )
      .toEqual([AgentEvent.AgentEvent.Compaction({ trigger: "auto", preTokens: 9000 })])
    expect(
      mapSdkMessage({
        type: "system",
        subtype: "task_notification",
        task_id: "t1",
        status: "completed",
        summary: "done"
      })
    )
      .toEqual([AgentEvent.AgentEvent.SubagentProgress({
        phase: "finished",
        taskId: "t1",
        toolUseId: undefined,
        description: undefined,
        status: "completed",
        summary: "done"
      })])
    expect(mapSdkMessage({ type: "brand_new", subtype: "x" })).toEqual([
      AgentEvent.AgentEvent.Unknown({ type: "brand_new", subtype: "x", message: { type: "brand_new", subtype: "x" } })
    ])
  })

  it("a failed API call: live retries with attempt, delay and status; the CLI's error text is no model text; the result an error", () => {
    // as Claude Code 2.1.330 sends them for ANTHROPIC_BASE_URL=http://127.0.0.1:1, then for a 529
    expect(mapSdkMessage({
      type: "system",
      subtype: "api_retry",
      attempt: 1,
      max_retries: 2,
      retry_delay_ms: 522,
      error_status: null,
      error: "unknown",
      session_id: sid
    })).toEqual([
      AgentEvent.AgentEvent.ApiRetry({ attempt: 1, maxRetries: 2, delayMs: 522, status: undefined, error: "unknown" })
    ])
    expect(mapSdkMessage({ type: "system", subtype: "api_retry", attempt: 2, max_retries: 2, error_status: 529 }))
      .toEqual([
        AgentEvent.AgentEvent.ApiRetry({ attempt: 2, maxRetries: 2, delayMs: undefined, status: 529, error: undefined })
      ])
    const text = "API Error: 529 Overloaded. This is a server-side issue, usually temporary."
    expect(mapSdkMessage({
      type: "assistant",
      message: { id: "m", model: "<synthetic>", role: "assistant", content: [{ type: "text", text }] },
      parent_tool_use_id: null,
      session_id: sid,
      error: "server_error",
      is_api_error_message: true,
      api_error_status: 529,
      api_error_type: "overloaded_error"
    })).toEqual([
      AgentEvent.AgentEvent.ApiError({ text, status: 529, error: "overloaded_error", parentToolUseId: null })
    ])
    const result = (fields: Record<string, unknown>) =>
      mapSdkMessage({ type: "result", session_id: sid, num_turns: 1, ...fields })[0] as { isError: boolean }
    expect(result({ subtype: "success", is_error: true, terminal_reason: "api_error", result: text }).isError).toBe(
      true
    )
    expect(result({ subtype: "success", terminal_reason: "api_error", result: "x" }).isError).toBe(true)
    expect(result({ subtype: "success", result: "API Error: Connection refused (ECONNREFUSED)" }).isError).toBe(true)
    expect(result({ subtype: "error_during_execution", errors: ["boom"] }).isError).toBe(true)
    expect(result({ subtype: "success", result: "The API Error page says hi." }).isError).toBe(false)
  })

  it("fixture SDK streams: every message maps, the known kinds to known events", () => {
    const messages = Fixtures.sdkMessages()
    expect(messages.length).toBeGreaterThan(0)
    const tags = new Set<string>()
    for (const { value } of messages) {
      const events = mapSdkMessage(value)
      for (const event of events) tags.add(event._tag)
      const type = (value as { type?: string }).type
      if (type === "assistant" || type === "user" || type === "result") {
        expect(events.some((event) => event._tag === "Unknown")).toBe(false)
      }
    }
    expect([...tags]).toEqual(
      expect.arrayContaining(["SessionStarted", "Text", "ToolUse", "ToolResult", "TurnComplete"])
    )
  })
})
