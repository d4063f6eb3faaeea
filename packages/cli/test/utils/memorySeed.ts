/**
 * A memory database seeded as Claude Code and the worker would fill it, for the memory page's
 * browser tests: the memory package's own functions (the real hook, then `completeBatch` as the
 * worker stores a batch) for a fixture session's turns.
 */
import type { Observation } from "@acx/convert/ObserverReply"
import type * as Fixtures from "@acx/fixtures"
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryStore from "@acx/memory/MemoryStore"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"

export const observation = (fields: Partial<Observation> & { readonly title: string }): Observation => ({
  type: "discovery",
  subtitle: undefined,
  facts: [],
  narrative: "",
  concepts: [],
  filesRead: [],
  filesModified: [],
  ...fields
})

/** The fixture session's cwd, first prompt and first file-writing tool call. */
export const turnsOf = (session: Fixtures.BuiltSession) => {
  const entries = fs.readFileSync(session.file, "utf8").split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, any>]
    } catch {
      return []
    }
  })
  const user = entries.find((e) => e["type"] === "user" && typeof e["message"]?.content === "string")!
  const assistant = entries.find((e) =>
    e["type"] === "assistant" && Array.isArray(e["message"]?.content) &&
    e["message"].content.some((b: any) => b.type === "tool_use" && b.name === "Write")
  )!
  const tool = assistant["message"].content.find((b: any) => b.type === "tool_use" && b.name === "Write")
  return {
    sessionId: session.sessionId,
    cwd: user["cwd"] as string,
    prompt: { text: user["message"].content as string, at: Date.parse(user["timestamp"]) },
    tool: { id: tool.id as string, input: tool.input, at: Date.parse(assistant["timestamp"]) }
  }
}

/** Records hook events of the session (as Claude Code would) and stores them as one batch. */
export const seed = async (
  acxHome: string,
  turns: ReturnType<typeof turnsOf>,
  events: ReadonlyArray<"prompt" | "tool">,
  observations: ReadonlyArray<Observation>
) => {
  const hook = (event: string, at: number, extra: Record<string, unknown>) =>
    HookRunner.runHook(
      event,
      JSON.stringify({
        session_id: turns.sessionId,
        transcript_path: "",
        cwd: turns.cwd,
        hook_event_name: event,
        ...extra
      }),
      { home: acxHome, env: {}, now: at }
    )
  if (events.includes("prompt")) hook("UserPromptSubmit", turns.prompt.at, { prompt: turns.prompt.text })
  if (events.includes("tool")) {
    hook("PostToolUse", turns.tool.at, {
      tool_name: "Write",
      tool_use_id: turns.tool.id,
      tool_input: turns.tool.input,
      tool_response: { ok: true }
    })
  }
  await Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pending = yield* sql<{ id: number }>`
        SELECT id FROM memory_events WHERE session_id = ${turns.sessionId} AND state = 'pending' ORDER BY id`
      yield* MemoryStore.completeBatch({
        sessionId: turns.sessionId,
        project: turns.cwd,
        eventIds: pending.map((row) => row.id),
        observations,
        summary: undefined,
        source: "local",
        ledger: [{
          sessionId: turns.sessionId,
          model: "claude-haiku-4-5",
          inputTokens: 900,
          outputTokens: 200,
          cacheReadTokens: 0,
          cacheCreationTokens: 0,
          costUsd: 0.004
        }]
      }, Date.now())
    }).pipe(Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(acxHome).database)))
  )
}
