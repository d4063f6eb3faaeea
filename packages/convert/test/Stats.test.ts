import { projectStats, sessionStats } from "@acx/convert/Stats"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"

const load = (dir: string, name: string): Array<unknown> => {
  const file = Fixtures.transcriptFiles().find((f) =>
    path.basename(path.dirname(f)) === dir && path.basename(f) === name
  )
  expect(file).toBeDefined()
  return Fixtures.readJsonLines(file!).map((line) => line.value)
}

const SONNET = "claude-sonnet-4-5-20250929"

describe("sessionStats", () => {
  it("counts roles after merging, tool calls, models, duration, subagents, compactions", () => {
    const stats = sessionStats([
      { type: "user", timestamp: "2025-01-01T00:00:10.000Z", message: { content: "hi" } },
      { type: "user", isMeta: true, message: { content: "caveat" } },
      {
        type: "assistant",
        requestId: "r",
        timestamp: "2025-01-01T00:00:11.000Z",
        message: { id: "m", model: "opus", content: [{ type: "text", text: "a" }], usage: { output_tokens: 1 } }
      },
      {
        type: "assistant",
        requestId: "r",
        message: { id: "m", model: "opus", content: [{ type: "tool_use", name: "Bash" }], usage: { output_tokens: 4 } }
      },
      { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "x" }] } },
      { type: "system", subtype: "compact_boundary", timestamp: "2025-01-01T00:00:00.000Z" },
      {
        type: "assistant",
        isSidechain: true,
        agentId: "ag",
        timestamp: "bad",
        message: {
          model: "<synthetic>",
          content: [{ type: "tool_use", name: "Bash" }, { type: "tool_use", name: "Read" }]
        }
      },
      { type: "user", isSidechain: true, timestamp: "2025-01-01T00:01:00.000Z", message: { content: "side" } },
      null,
      "junk"
    ])
    expect(stats).toEqual({
      messages: { user: 2, assistant: 2, toolResults: 1, meta: 1 },
      toolCalls: { Bash: 2, Read: 1 },
      tokens: { input: 0, output: 4, cacheRead: 0, cacheWrite: 0 },
      tokensByModel: { opus: { input: 0, output: 4, cacheRead: 0, cacheWrite: 0 } },
      models: { opus: 1 },
      firstTimestamp: "2025-01-01T00:00:00.000Z",
      lastTimestamp: "2025-01-01T00:01:00.000Z",
      durationMs: 60000,
      subagents: 2,
      compactions: 1,
      sessions: 1
    })
  })

  it("is total on empty and malformed input", () => {
    const empty = {
      messages: { user: 0, assistant: 0, toolResults: 0, meta: 0 },
      toolCalls: {},
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      tokensByModel: {},
      models: {},
      firstTimestamp: undefined,
      lastTimestamp: undefined,
      durationMs: 0,
      subagents: 0,
      compactions: 0,
      sessions: 1
    }
    expect(sessionStats([])).toEqual(empty)
    expect(sessionStats(42 as never)).toEqual(empty)
    expect(projectStats([])).toEqual({ ...empty, sessions: 0 })
    expect(projectStats("x" as never)).toEqual({ ...empty, sessions: 0 })
    expect(projectStats([null, { messages: 3, toolCalls: { Bash: "x" }, tokens: null, sessions: 2 }] as never))
      .toEqual({ ...empty, toolCalls: { Bash: 0 }, sessions: 2 })
  })

  // Hand-counted by reading the files (27 and 15 lines).
  it("tomjnsn-agentlogs crud.jsonl and compact.jsonl, hand-counted", () => {
    const crud = sessionStats(load("tomjnsn-agentlogs", "crud.jsonl"))
    // 1 typed prompt, 19 assistant lines = 10 message ids, 9 tool_result lines for 9 tool_use.
    expect(crud).toEqual({
      messages: { user: 1, assistant: 10, toolResults: 9, meta: 0 },
      toolCalls: { TodoWrite: 5, Write: 1, Bash: 1, Read: 1, Edit: 1 },
      tokens: { input: 25, output: 1508, cacheRead: 148958, cacheWrite: 12593 },
      tokensByModel: { [SONNET]: { input: 25, output: 1508, cacheRead: 148958, cacheWrite: 12593 } },
      models: { [SONNET]: 10 },
      firstTimestamp: "2025-10-12T21:35:53.825Z",
      lastTimestamp: "2025-10-12T21:36:39.886Z",
      durationMs: 46061,
      subagents: 0,
      compactions: 0,
      sessions: 1
    })
    const compact = sessionStats(load("tomjnsn-agentlogs", "compact.jsonl"))
    // 8 user lines: 2 isMeta caveats + 1 isCompactSummary; 2 assistant lines (thinking, text) of one id.
    expect(compact).toEqual({
      messages: { user: 5, assistant: 1, toolResults: 0, meta: 3 },
      toolCalls: {},
      tokens: { input: 10, output: 148, cacheRead: 13522, cacheWrite: 2128 },
      tokensByModel: { [SONNET]: { input: 10, output: 148, cacheRead: 13522, cacheWrite: 2128 } },
      models: { [SONNET]: 1 },
      firstTimestamp: "2025-10-10T21:56:01.409Z",
      lastTimestamp: "2025-10-10T21:57:52.066Z",
      durationMs: 110657,
      subagents: 0,
      compactions: 1,
      sessions: 1
    })
    const project = projectStats([crud, compact])
    expect(project.messages).toEqual({ user: 6, assistant: 11, toolResults: 9, meta: 3 })
    expect(project.tokens).toEqual({ input: 35, output: 1656, cacheRead: 162480, cacheWrite: 14721 })
    expect(project.models).toEqual({ [SONNET]: 11 })
    expect(project.toolCalls).toEqual(crud.toolCalls)
    expect(project.firstTimestamp).toBe("2025-10-10T21:56:01.409Z")
    expect(project.lastTimestamp).toBe("2025-10-12T21:36:39.886Z")
    expect(project.durationMs).toBe(46061 + 110657)
    expect(project.compactions).toBe(1)
    expect(project.sessions).toBe(2)
  })

  it("marot-spotter subagent file counts its agent", () => {
    const stats = sessionStats(load("subagents", "agent-a881341.jsonl"))
    expect(stats.subagents).toBe(1)
  })
})
