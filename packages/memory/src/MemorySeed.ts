/**
 * Test-facing: a memory database seeded the way Claude Code and the worker fill it, for the
 * tests of the memory's callers (the page's routes, its browser tests). A session's prompt and
 * tool call go through the real hook (with the transcript's times), then its pending events are
 * stored as one batch with chosen observations, a summary and a ledger entry, through
 * `MemoryRepo` as the worker stores them. Nothing here writes SQL.
 *
 * @since 0.1.0
 */
import type { Observation } from "@acx/convert/ObserverReply"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as HookRunner from "./HookRunner.js"
import * as MemoryConfig from "./MemoryConfig.js"
import * as MemoryRepo from "./MemoryRepo.js"

/**
 * What a transcript holds that the memory can point at: its first typed prompt and a tool call.
 *
 * @since 0.1.0
 * @category testing
 */
export interface SessionTurns {
  readonly sessionId: string
  readonly cwd: string
  readonly prompt: { readonly uuid: string; readonly text: string; readonly at: number }
  readonly tool: {
    readonly id: string
    readonly name: string
    readonly input: Readonly<Record<string, unknown>>
    readonly at: number
  }
}

type Line = Record<string, any>

const isToolUse = (tool: string | undefined) => (block: any): boolean =>
  block?.type === "tool_use" && (tool === undefined ? block.name !== "TodoWrite" : block.name === tool)

/**
 * The first typed prompt of a transcript file and its first tool call (`tool`: the first call of
 * that tool; by default the first that is not `TodoWrite`). Throws when the transcript has none:
 * the test's fixture is the wrong one.
 *
 * @since 0.1.0
 * @category testing
 */
export const turnsOf = (
  session: { readonly file: string; readonly sessionId: string },
  options: { readonly tool?: string | undefined } = {}
): SessionTurns => {
  const entries = fs.readFileSync(session.file, "utf8").split("\n").flatMap((line): Array<Line> => {
    try {
      return [JSON.parse(line) as Line]
    } catch {
      return []
    }
  })
  const user = entries.find((entry) =>
    entry["type"] === "user" && typeof entry["message"]?.content === "string" && entry["isMeta"] !== true
  )
  const assistant = entries.find((entry) =>
    entry["type"] === "assistant" && Array.isArray(entry["message"]?.content) &&
    entry["message"].content.some(isToolUse(options.tool))
  )
  if (user === undefined || assistant === undefined) {
    throw new Error(`${session.file} has no typed prompt or no ${options.tool ?? "tool"} call`)
  }
  const block = assistant["message"].content.find(isToolUse(options.tool))
  return {
    sessionId: session.sessionId,
    cwd: user["cwd"],
    prompt: { uuid: user["uuid"], text: user["message"].content, at: Date.parse(user["timestamp"]) },
    tool: { id: block.id, name: block.name, input: block.input, at: Date.parse(assistant["timestamp"]) }
  }
}

/**
 * An observation with defaults.
 *
 * @since 0.1.0
 * @category testing
 */
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

/**
 * What {@link seedBatch} stores.
 *
 * @since 0.1.0
 * @category testing
 */
export interface SeedOptions {
  /** Which of the session's turns the hook records first (none: the batch has no event). */
  readonly events: ReadonlyArray<"prompt" | "tool">
  readonly observations: ReadonlyArray<Observation>
  /** Whether the batch also stores a session summary. */
  readonly summary?: boolean | undefined
  /** A ledger entry of this cost (1 200 input and 300 output tokens); none when absent. */
  readonly costUsd?: number | undefined
  /** When the batch is stored (epoch ms; default a second after the later turn). */
  readonly now?: number | undefined
}

const hook = (acxHome: string, turns: SessionTurns, event: string, at: number, extra: Record<string, unknown>) =>
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

/**
 * Records the session's turns through the hook and stores its pending events as one batch with
 * the observations (creating the database when missing); resolves to the batch's event ids.
 *
 * @since 0.1.0
 * @category testing
 */
export const seedBatch = (acxHome: string, turns: SessionTurns, options: SeedOptions): Promise<Array<number>> => {
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
  return Effect.runPromise(
    Effect.gen(function*() {
      const repo = yield* MemoryRepo.MemoryRepo
      const pending = yield* repo.events({ sessionId: turns.sessionId, state: "pending", order: "oldest" })
      const eventIds = pending.map((event) => event.id)
      yield* repo.completeBatch({
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
    }).pipe(Effect.provide(MemoryRepo.layerFile(MemoryConfig.paths(acxHome).database)))
  )
}
