/**
 * A memory database seeded by the memory package's own functions: a fixture session's first
 * prompt and one of its tool calls recorded by the real hook (with the transcript's times), then
 * stored as a batch with chosen observations, a summary and a ledger entry (`completeBatch`, as
 * the worker stores them).
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

/** What a fixture transcript holds that the memory can point at. */
export interface FixtureTurns {
  readonly sessionId: string
  readonly cwd: string
  readonly prompt: { readonly uuid: string; readonly text: string; readonly at: number }
  readonly tool: { readonly id: string; readonly name: string; readonly input: unknown; readonly at: number }
}

/** The first typed prompt and the first tool call (after it) of a fixture session. */
export const fixtureTurns = (session: Fixtures.BuiltSession): FixtureTurns => {
  const entries = fs.readFileSync(session.file, "utf8").split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, any>]
    } catch {
      return []
    }
  })
  const user = entries.find((entry) =>
    entry["type"] === "user" && typeof entry["message"]?.content === "string" && entry["isMeta"] !== true
  )!
  const assistant = entries.find((entry) =>
    entry["type"] === "assistant" &&
    Array.isArray(entry["message"]?.content) &&
    entry["message"].content.some((block: any) => block.type === "tool_use" && block.name !== "TodoWrite")
  )!
  const block = assistant["message"].content.find((b: any) => b.type === "tool_use" && b.name !== "TodoWrite")
  return {
    sessionId: session.sessionId,
    cwd: user["cwd"],
    prompt: { uuid: user["uuid"], text: user["message"].content, at: Date.parse(user["timestamp"]) },
    tool: { id: block.id, name: block.name, input: block.input, at: Date.parse(assistant["timestamp"]) }
  }
}

/** An observation with defaults. */
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

const hook = (acxHome: string, turns: FixtureTurns, event: string, at: number, extra: Record<string, unknown>) =>
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

/** Runs an effect on the memory database (created when missing: the seeding's job). */
export const onDatabase = <A, E>(acxHome: string, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(effect.pipe(Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(acxHome).database))))

/**
 * Records the session's events through the hook (only the prompt, only the tool call, or both)
 * and stores them as one batch with `observations`; returns the batch's event ids.
 */
export const seedBatch = async (
  acxHome: string,
  turns: FixtureTurns,
  options: {
    readonly events: ReadonlyArray<"prompt" | "tool">
    readonly observations: ReadonlyArray<Observation>
    readonly summary?: boolean
    readonly costUsd?: number
    readonly now?: number
  }
) => {
  if (options.events.includes("prompt")) {
    hook(acxHome, turns, "UserPromptSubmit", turns.prompt.at, { prompt: turns.prompt.text })
  }
  if (options.events.includes("tool")) {
    hook(acxHome, turns, "PostToolUse", turns.tool.at, {
      tool_name: turns.tool.name,
      tool_use_id: turns.tool.id,
      tool_input: turns.tool.input,
      tool_response: { ok: true }
    })
  }
  const now = options.now ?? Math.max(turns.prompt.at, turns.tool.at) + 1000
  return onDatabase(
    acxHome,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pending = yield* sql<{ id: number }>`
        SELECT id FROM memory_events WHERE session_id = ${turns.sessionId} AND state = 'pending' ORDER BY id`
      const eventIds = pending.map((row) => row.id)
      yield* MemoryStore.completeBatch({
        sessionId: turns.sessionId,
        project: turns.cwd,
        eventIds,
        observations: options.observations,
        summary: options.summary === true
          ? {
            request: turns.prompt.text.slice(0, 200),
            investigated: "the fixture",
            learned: "fixtures are real sessions",
            completed: "the seeding",
            nextSteps: "read the page",
            filesRead: [],
            filesEdited: [],
            notes: ""
          }
          : undefined,
        source: "local",
        ledger: options.costUsd === undefined ? [] : [{
          sessionId: turns.sessionId,
          model: "claude-haiku-4-5",
          inputTokens: 1200,
          outputTokens: 300,
          cacheReadTokens: 0,
          cacheCreationTokens: 0,
          costUsd: options.costUsd
        }]
      }, now)
      return eventIds
    })
  )
}
