/**
 * Real sessions through the hook path: the fixtures' Claude Code transcripts replayed as the
 * hook inputs Claude Code would have sent (each prompt a UserPromptSubmit, each tool call with its
 * result a PostToolUse or, when it failed, a PostToolUseFailure, then Stop and SessionEnd), each
 * delivered twice. Every call is stored once, no input is refused, and the worker (local mode)
 * turns all of it into observations and a summary per session.
 */
import { readJsonLines, relative, transcriptFiles } from "@acx/fixtures"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as HookRunner from "../src/HookRunner.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryDatabase from "../src/MemoryDatabase.js"
import * as MemoryWorker from "../src/MemoryWorker.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-fixtures-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

type Entry = { readonly [key: string]: any }

/** The hook inputs a transcript's session would have produced. */
const hookInputs = (entries: ReadonlyArray<Entry>): Array<Record<string, unknown>> => {
  const main = entries.filter((entry) => entry["isSidechain"] !== true && typeof entry["sessionId"] === "string")
  const sessionId = main[0]?.["sessionId"] as string | undefined
  const cwd = main.find((entry) => typeof entry["cwd"] === "string")?.["cwd"] as string | undefined
  if (sessionId === undefined || cwd === undefined) return []
  const base = { session_id: sessionId, transcript_path: "", cwd }
  const calls = new Map<string, { name: string; input: unknown }>()
  const inputs: Array<Record<string, unknown>> = []
  for (const entry of main) {
    const content = entry["message"]?.["content"]
    if (entry["type"] === "assistant" && Array.isArray(content)) {
      for (const block of content) {
        if (block?.type === "tool_use") calls.set(block.id, { name: block.name, input: block.input })
      }
    }
    if (entry["type"] !== "user") continue
    if (typeof content === "string" && entry["isMeta"] !== true) {
      inputs.push({ ...base, hook_event_name: "UserPromptSubmit", prompt: content })
      continue
    }
    if (!Array.isArray(content)) continue
    for (const block of content) {
      if (block?.type !== "tool_result") continue
      const call = calls.get(block.tool_use_id)
      if (call === undefined) continue
      const common = { ...base, tool_name: call.name, tool_input: call.input, tool_use_id: block.tool_use_id }
      inputs.push(
        block.is_error === true
          ? {
            ...common,
            hook_event_name: "PostToolUseFailure",
            error: typeof block.content === "string" ? block.content : JSON.stringify(block.content)
          }
          : { ...common, hook_event_name: "PostToolUse", tool_response: entry["toolUseResult"] ?? block.content }
      )
    }
  }
  return [
    ...inputs,
    { ...base, hook_event_name: "Stop", stop_hook_active: false },
    { ...base, hook_event_name: "SessionEnd", reason: "other" }
  ]
}

describe("the fixtures' sessions through the hooks", () => {
  it("stores every tool call once and distils every session", async () => {
    const home = path.join(root, "acx")
    fs.mkdirSync(home)
    fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0 } }))
    const { config } = MemoryConfig.load(home)
    const expected = { tools: new Set<string>(), sessions: new Set<string>() }
    for (const file of transcriptFiles()) {
      const inputs = hookInputs(readJsonLines(file).map((line) => line.value as Entry))
      for (const input of [...inputs, ...inputs]) {
        const event = input["hook_event_name"] as string
        const outcome = HookRunner.runHook(event, JSON.stringify(input), { home, env: {} })
        expect(outcome.warning, `${relative(file)} ${event}`).toBeUndefined()
        if (event === "PostToolUse" || event === "PostToolUseFailure") {
          if (!config.skipTools.includes(input["tool_name"] as string)) {
            expected.tools.add(`${input["session_id"]}:${input["tool_use_id"]}`)
          }
        }
        expected.sessions.add(input["session_id"] as string)
      }
    }
    expect(expected.tools.size).toBeGreaterThan(20)
    const db = Sqlite.open(MemoryConfig.paths(home).database)
    const stored = db.prepare("SELECT session_id AS s, idempotency_key AS k FROM memory_events WHERE kind LIKE 'tool%'")
      .all() as Array<{ s: string; k: string }>
    db.close()
    expect(stored).toHaveLength(expected.tools.size)
    expect(new Set(stored.map((row) => row.k.replace(/^tool:/, "")))).toEqual(expected.tools)

    const exit = await Effect.runPromise(
      MemoryWorker.run({ home, env: {}, config, idleTimeout: 0, log: () => {} }).pipe(
        Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(home).database))
      )
    )
    expect(exit._tag).toBe("Idle")
    const after = Sqlite.open(MemoryConfig.paths(home).database)
    try {
      expect(after.prepare("SELECT DISTINCT state FROM memory_events").all()).toEqual([{ state: "done" }])
      const summarised = after.prepare("SELECT DISTINCT session_id AS s FROM memory_summaries").all()
      expect(summarised).toHaveLength(expected.sessions.size)
      expect(after.prepare("SELECT count(*) AS n FROM memory_observations").get()).toMatchObject({
        n: expect.any(Number)
      })
      const statuses = after.prepare("SELECT DISTINCT status FROM memory_sessions").all()
      expect(statuses).toEqual([{ status: "completed" }])
    } finally {
      after.close()
    }
  }, 60_000)
})
