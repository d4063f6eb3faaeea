/**
 * `pnpm bench`: what `@acx/agent` costs and saves, on the real Claude Code CLI offline against
 * the model double (only the model's words are scripted), every ratio against a baseline measured
 * in the same run:
 * 1. a warm AgentSession turn against the same turn on a raw streaming-input `query()` with the
 *    same options (the goal: ≤ 1.05×), rounds alternating between the two;
 * 2. a warm turn against a cold one (a new process resuming a ~500-entry transcript from SQLite);
 * 3. 100 conversations through a pool with maxWarm 8: turns per second, peak memory (this
 *    process and the Claude Code processes), memory per warm conversation.
 */
import * as AgentPool from "@acx/agent/AgentPool"
import * as AgentSession from "@acx/agent/AgentSession"
import { createSqliteSessionStore } from "@acx/session-store/promise"
import { detectClaude, ModelDouble, realClaude, startModelDouble } from "@acx/testing"
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const ROUNDS = 31
const HISTORY_TOOL_CALLS = 145
const CONVERSATIONS = 100
const MAX_WARM = 8

const detected = await detectClaude()
if (!detected.available) {
  console.log(`@acx/agent: skipped (${detected.reason})`)
  process.exit(0)
}

const model = await startModelDouble({
  script: [
    {
      when: ModelDouble.isSideCall,
      reply: { content: "A title", usage: { inputTokens: 0, outputTokens: 0 } },
      times: Infinity
    },
    {
      // a long history: one turn of many tool calls (each an assistant and a tool-result entry)
      when: (request) =>
        ModelDouble.lastUserText(request)?.includes("Build history") === true || (
          ModelDouble.lastMessageHasToolResult(request) &&
          JSON.stringify(request.body["messages"]).includes("Build history") &&
          (request.body["messages"] as ReadonlyArray<unknown>).length < HISTORY_TOOL_CALLS * 2
        ),
      reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "true" } }] },
      times: Infinity
    },
    { when: ModelDouble.lastMessageHasToolResult, reply: { content: "History built." }, times: Infinity },
    { reply: { content: "Answered.", usage: { inputTokens: 1000, outputTokens: 20 } }, times: Infinity }
  ]
})
const claude = await realClaude({ baseUrl: model.url })
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-bench-agent-"))
const cwd = fs.realpathSync(fs.mkdtempSync(path.join(root, "project-")))
const home = path.join(root, "home")
fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
const sessionOptions = {
  cwd,
  model: "claude-sonnet-4-5",
  env: claude.env(home),
  pathToClaudeCodeExecutable: claude.path,
  allowedTools: ["Bash"]
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rssOf = (pid: string): number => {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
    return Number(line?.split(/\s+/)[1] ?? 0) * 1024
  } catch {
    return 0
  }
}
/** The resident memory of every Claude Code process of this benchmark's HOME. */
const claudeRss = (): { readonly processes: number; readonly bytes: number } => {
  let processes = 0
  let bytes = 0
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== claude.path) continue
      if (!fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) continue
      processes += 1
      bytes += rssOf(pid)
    } catch {
      // ended while read
    }
  }
  return { processes, bytes }
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

// 1. warm turn: AgentSession against a raw streaming query() with the same options
{
  const pending: Array<SDKUserMessage> = []
  let wake: (() => void) | undefined
  const input: AsyncIterable<SDKUserMessage> = {
    async *[Symbol.asyncIterator]() {
      while (true) {
        while (pending.length > 0) yield pending.shift()!
        await new Promise<void>((resolve) => (wake = resolve))
      }
    }
  }
  const raw = query({
    prompt: input,
    options: { ...sessionOptions, includePartialMessages: true, extraArgs: { "replay-user-messages": null } }
  })
  const rawTurn = async () => {
    const started = performance.now()
    pending.push({
      type: "user",
      message: { role: "user", content: "Hello" },
      parent_tool_use_id: null,
      session_id: ""
    })
    wake?.()
    while (true) {
      const next = await raw.next()
      if (next.done === true) throw new Error("the raw query ended")
      if (next.value.type === "result") break
    }
    return performance.now() - started
  }
  const times = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const session = yield* AgentSession.make({ ...sessionOptions, sessionStore: null })
    const agentTurn = Effect.gen(function*() {
      const started = performance.now()
      yield* session.ask("Hello")
      return performance.now() - started
    })
    yield* Effect.promise(rawTurn) // warm both processes
    yield* agentTurn
    const rawTimes: Array<number> = []
    const agentTimes: Array<number> = []
    // the order alternates between rounds: whatever the previous turn left (GC, the CLI's own
    // after-turn work) falls on both alike
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        rawTimes.push(yield* Effect.promise(rawTurn))
        agentTimes.push(yield* agentTurn)
      } else {
        agentTimes.push(yield* agentTurn)
        rawTimes.push(yield* Effect.promise(rawTurn))
      }
    }
    return { raw: median(rawTimes), agent: median(agentTimes) }
  })))
  raw.close()
  console.log(`warm turn, median of ${ROUNDS} rounds (real Claude Code, one process each):`)
  console.log(`  raw streaming query()   ${times.raw.toFixed(1).padStart(7)} ms  1.00×`)
  console.log(
    `  AgentSession.ask        ${times.agent.toFixed(1).padStart(7)} ms  ${
      (times.agent / times.raw).toFixed(2)
    }×  (goal ≤ 1.05×)`
  )
}

// 2. warm against cold: a new process resuming a long transcript from SQLite
{
  const store = createSqliteSessionStore({ filename: path.join(root, "history.db") })
  const built = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const session = yield* AgentSession.make({ ...sessionOptions, sessionStore: store })
    const turn = yield* session.ask("Build history")
    return turn.sessionId!
  })))
  const projectKey = (await store.listSessions(cwd.replace(/[^a-zA-Z0-9]/g, "-"))).length > 0
    ? cwd.replace(/[^a-zA-Z0-9]/g, "-")
    : undefined
  const entries = projectKey === undefined ? undefined : (await store.load({ projectKey, sessionId: built }))?.length
  const cold: Array<number> = []
  const warm: Array<number> = []
  for (let round = 0; round < 5; round++) {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const started = performance.now()
      const session = yield* AgentSession.make({ ...sessionOptions, sessionStore: store, resume: built })
      yield* session.ask("Hello")
      cold.push(performance.now() - started)
      const again = performance.now()
      yield* session.ask("Hello")
      warm.push(performance.now() - again)
    })))
  }
  await store.close()
  const coldMs = median(cold)
  const warmMs = median(warm)
  console.log(`warm against cold, a session of ${entries ?? "?"} transcript entries, median of 5:`)
  console.log(`  warm turn               ${warmMs.toFixed(0).padStart(7)} ms  1.00×`)
  console.log(`  cold turn (spawn+resume)${coldMs.toFixed(0).padStart(7)} ms  ${(coldMs / warmMs).toFixed(1)}×`)
}

// 3. a pool: 100 conversations through 8 processes
{
  let peakClaude = { processes: 0, bytes: 0 }
  let peakHeap = 0
  const sampler = setInterval(() => {
    const now = claudeRss()
    if (now.bytes > peakClaude.bytes) peakClaude = now
    peakHeap = Math.max(peakHeap, process.memoryUsage().rss)
  }, 50)
  const started = performance.now()
  await Effect.runPromise(
    Effect.gen(function*() {
      const pool = yield* AgentPool.AgentPool
      yield* Effect.forEach(
        Array.from({ length: CONVERSATIONS }, (_, i) => `chat-${i}`),
        (key) => pool.ask(key, "Hello"),
        { concurrency: MAX_WARM * 2, discard: true }
      )
    }).pipe(
      Effect.provide(AgentPool.layer({ maxWarm: MAX_WARM, cwd, session: sessionOptions })),
      Effect.provide(AgentPool.layerDatabase(`sqlite:${path.join(root, "pool.db")}`))
    )
  )
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  console.log(`pool, ${CONVERSATIONS} conversations (one turn each, every one a cold start), maxWarm ${MAX_WARM}:`)
  console.log(
    `  ${(CONVERSATIONS / seconds).toFixed(2)} turns/s (${seconds.toFixed(1)} s on ${os.cpus().length} cores)`
  )
  console.log(
    `  peak: ${peakClaude.processes} Claude Code processes, ${mb(peakClaude.bytes)} resident; this process ${
      mb(peakHeap)
    }`
  )
  console.log(
    `  per warm conversation: ${mb(peakClaude.bytes / Math.max(1, peakClaude.processes))} (its Claude Code process)`
  )
}

await model.close()
fs.rmSync(root, { recursive: true, force: true })
