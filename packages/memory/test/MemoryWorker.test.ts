/**
 * The worker on a real memory database: local mode (deterministic observations and summary, no
 * model), and the observer on the REAL Claude Code CLI against the model double — batches in one
 * conversation, the instructions once, observations and summary stored with the events done,
 * the ledger from the CLI's cumulative cost, the observer's transcripts kept out of the user's
 * config directory; an unreadable reply retried once, then failed with the reply kept, and
 * `retryFailed` re-queueing it; two workers at once (one wins); interrupted at any step of its
 * start, the worker gives the lock back.
 */
import * as AgentUsage from "@acx/convert/AgentUsage"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as HookRunner from "../src/HookRunner.js"
import type { ObserverFactory } from "../src/internal/observer.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryWorker from "../src/MemoryWorker.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

const makeRoot = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-worker-"))
  roots.push(root)
  const acxHome = path.join(root, "acx")
  const home = path.join(root, "home")
  const project = path.join(root, "project")
  for (const dir of [acxHome, path.join(home, ".claude"), project]) fs.mkdirSync(dir, { recursive: true })
  return { root, acxHome, home, project }
}

/** A session's worth of hook inputs, through the real hook function. */
const session = (acxHome: string, project: string, sessionId: string, tools: number) => {
  const at = hooksOf(acxHome, project, sessionId)
  at("UserPromptSubmit", { prompt: "Make the cart total include tax" })
  for (let i = 0; i < tools; i++) {
    at("PostToolUse", {
      tool_name: i % 2 === 0 ? "Read" : "Edit",
      tool_use_id: `${sessionId}-t${i}`,
      tool_input: { file_path: path.join(project, `src/file${i}.ts`) },
      tool_response: { ok: true }
    })
  }
  at("PostToolUseFailure", {
    tool_name: "Bash",
    tool_use_id: `${sessionId}-fail`,
    tool_input: { command: "npm test" },
    error: "Exit code 1: 2 failing"
  })
  at("Stop", { stop_hook_active: false })
  at("SessionEnd", { reason: "other" })
}

const runWorker = <A, E>(acxHome: string, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(provideDatabase(acxHome, effect))

const quick = (config: Partial<MemoryConfig.MemoryConfig>): MemoryConfig.MemoryConfig => ({
  ...MemoryConfig.defaults,
  batchWaitSeconds: 0,
  ...config
})

describe("MemoryWorker", () => {
  it("local mode: deterministic observations and summary, every event done once", async () => {
    const { acxHome, project } = makeRoot()
    session(acxHome, project, "s-local", 4)
    const exit = await runWorker(
      acxHome,
      MemoryWorker.run({ home: acxHome, env: {}, config: quick({ mode: "local" }), idleTimeout: 0, log: () => {} })
    )
    expect(exit).toMatchObject({ _tag: "Idle", events: 8 })
    expect(query(acxHome, "SELECT state, count(*) AS n FROM memory_events GROUP BY state")).toEqual([
      { state: "done", n: 8 }
    ])
    const observations = query(acxHome, "SELECT type, title, source FROM memory_observations ORDER BY id")
    expect(observations.map((row) => row["title"])).toEqual([
      "User asked: Make the cart total include tax",
      "Edited 2 files: src/file1.ts, src/file3.ts",
      "Ran 1 command (1 failed): npm test",
      "1 tool call failed: Bash: Exit code 1: 2 failing",
      "Read 2 files: src/file0.ts, src/file2.ts"
    ])
    expect(new Set(observations.map((row) => row["source"]))).toEqual(new Set(["local"]))
    // the Stop summarised; the SessionEnd after it found nothing new
    const summaries = query(acxHome, "SELECT request, files_edited, notes FROM memory_summaries")
    expect(summaries).toEqual([{
      request: "Make the cart total include tax",
      files_edited: JSON.stringify(["src/file1.ts", "src/file3.ts"]),
      notes: "Recorded without a model (mode is local)."
    }])
    expect(query(acxHome, "SELECT status FROM memory_sessions")).toEqual([{ status: "completed" }])
    // the next session starts with it
    const start = HookRunner.runHook(
      "SessionStart",
      JSON.stringify({
        session_id: "s-next",
        transcript_path: "",
        cwd: project,
        hook_event_name: "SessionStart",
        source: "startup"
      }),
      { home: acxHome, env: {} }
    )
    const context = JSON.parse(start.stdout).hookSpecificOutput.additionalContext as string
    expect(context).toContain("[session summary]")
    expect(context).toContain("Edited 2 files")
  })

  it("two workers started at once: one runs, the other says who holds the lock", async () => {
    const { acxHome, project } = makeRoot()
    session(acxHome, project, "s-race", 2)
    const config = quick({ mode: "local" })
    const worker = (pid: number) =>
      MemoryWorker.run({ home: acxHome, env: {}, config, pid, idleTimeout: "300 millis", log: () => {} })
    const exits = await runWorker(acxHome, Effect.all([worker(process.pid), worker(process.ppid)], { concurrency: 2 }))
    expect(exits.map((exit) => exit._tag).sort()).toEqual(["AlreadyRunning", "Idle"])
    expect(query(acxHome, "SELECT count(*) AS n FROM memory_observations")[0]!["n"]).toBe(5)
  })

  it("interrupted at any step of its start (a SIGTERM), the worker gives the lock back", async () => {
    // the release used to be registered after the worker had opened its session store: an
    // interruption in between left a dead worker's pid holding the lock
    const { acxHome, project } = makeRoot()
    session(acxHome, project, "s-stop", 1)
    const config = quick({ mode: "local" })
    const lockHolder = () => query(acxHome, "SELECT pid FROM memory_worker WHERE id = 1")[0]!["pid"]
    let interruptedHolding = 0
    for (let steps = 0; steps < 40; steps++) {
      await runWorker(
        acxHome,
        Effect.gen(function*() {
          const worker = yield* Effect.fork(
            MemoryWorker.run({ home: acxHome, env: {}, config, idleTimeout: "5 minutes", log: () => {} })
          )
          for (let i = 0; i < steps; i++) yield* Effect.yieldNow()
          if (lockHolder() === process.pid) interruptedHolding++
          yield* Fiber.interrupt(worker)
        })
      )
      expect(lockHolder()).toBeNull()
    }
    // the interruptions fell both before the lock was taken and while it was held
    expect(interruptedHolding).toBeGreaterThan(0)
    expect(interruptedHolding).toBeLessThan(40)
  })

  it("an event recorded at any point of the worker's run is taken by it, or its hook starts a worker", async () => {
    // the worker used to decide it was idle, then give the lock back: a hook that recorded an
    // event in between saw it alive and started none, and the event waited for the next hook
    // (the session's last one: until the next session). The hook runs at each line the worker
    // logs in turn, so it lands before, during and after the worker's exit.
    const { acxHome, project } = makeRoot()
    const config = quick({ mode: "local" })
    let injected = 0
    for (let at = 0; at === injected; at++) {
      session(acxHome, project, `s-run-${at}`, 1)
      let lines = 0
      let late: HookRunner.HookOutcome | undefined
      const exit = await runWorker(
        acxHome,
        MemoryWorker.run({
          home: acxHome,
          env: {},
          config,
          idleTimeout: 0,
          log: () => {
            if (lines++ !== at) return
            injected++
            late = hooksOf(acxHome, project, `s-late-${at}`)("UserPromptSubmit", { prompt: "One more thing" })
          }
        })
      )
      expect(exit._tag).toBe("Idle")
      if (late === undefined) break
      expect(late.recorded).toBe(true)
      const pending = query(acxHome, "SELECT count(*) AS n FROM memory_events WHERE state = 'pending'")[0]!["n"]
      // never an event left waiting with no worker on its way
      expect({ at, taken: pending === 0 || late.startWorker }).toEqual({ at, taken: true })
      // what a started worker would do, so that the next round begins with an empty queue
      if (pending > 0) {
        await runWorker(acxHome, MemoryWorker.run({ home: acxHome, env: {}, config, idleTimeout: 0, log: () => {} }))
      }
    }
    // the hook ran at every line, the worker's last one ("stopped") included
    expect(injected).toBeGreaterThanOrEqual(3)
  })

  const answer = {
    text: "<observation><type>change</type><title>Noted</title></observation>",
    error: undefined,
    ledger: [],
    sessionId: undefined,
    usage: AgentUsage.empty
  }

  /** An observer that answers every batch alike, and runs `onClose` when the worker closes it. */
  const observerClosing = (onClose: Effect.Effect<void>): ObserverFactory => () =>
    Effect.succeed({ ask: () => Effect.succeed(answer), close: onClose })

  /** The worker with a model (so an observer, kept warm), until idle at once. */
  const runWarm = (acxHome: string, observer: ObserverFactory) =>
    runWorker(
      acxHome,
      MemoryWorker.run({
        home: acxHome,
        env: { ANTHROPIC_API_KEY: "sk-test" },
        config: quick({}),
        observer,
        idleTimeout: 0,
        log: () => {}
      })
    )

  it("an event recorded as the worker goes idle (its observers closing) is taken by it before it exits", async () => {
    // the moment between reading an empty queue and giving the lock back: a warm observer
    // closing. Its hook sees the worker alive and starts none, so the worker must take the event.
    const { acxHome, project } = makeRoot()
    hooksOf(acxHome, project, "s-warm")("UserPromptSubmit", { prompt: "Make the cart total include tax" })
    let late: HookRunner.HookOutcome | undefined
    const observer = observerClosing(Effect.sync(() => {
      late ??= hooksOf(acxHome, project, "s-late")("UserPromptSubmit", { prompt: "One more thing" })
    }))
    const exit = await runWarm(acxHome, observer)
    expect(late?.recorded).toBe(true)
    expect(late?.startWorker).toBe(false)
    expect(exit).toMatchObject({ _tag: "Idle", events: 2 })
    expect(query(acxHome, "SELECT DISTINCT state FROM memory_events")).toEqual([{ state: "done" }])
    expect(query(acxHome, "SELECT pid FROM memory_worker")).toEqual([{ pid: null }])
  })

  it("a hook that spools as the worker goes idle, and whose worker found it still holding the lock: the spool is taken", async () => {
    // a hook spools when the database stays locked, and starts a worker whatever it saw; that
    // worker met this one still holding the lock and went: the input waited for the next hook
    const { acxHome, project } = makeRoot()
    hooksOf(acxHome, project, "s-warm")("UserPromptSubmit", { prompt: "Make the cart total include tax" })
    let second: MemoryWorker.WorkerExit | undefined
    const observer = observerClosing(Effect.suspend(() => {
      if (second !== undefined) return Effect.void
      HookRunner.spool(MemoryConfig.paths(acxHome).spool, "UserPromptSubmit", {
        session_id: "s-spooled",
        transcript_path: "",
        cwd: project,
        hook_event_name: "UserPromptSubmit",
        prompt: "Spooled while the database was locked"
      }, Date.now())
      return Effect.promise(() =>
        runWorker(
          acxHome,
          MemoryWorker.run({ home: acxHome, env: {}, config: quick({ mode: "local" }), pid: process.ppid })
        )
      ).pipe(Effect.map((exit) => void (second = exit)))
    }))
    const exit = await runWarm(acxHome, observer)
    expect(second).toMatchObject({ _tag: "AlreadyRunning", pid: process.pid })
    expect(exit).toMatchObject({ _tag: "Idle", events: 2 })
    expect(fs.readdirSync(MemoryConfig.paths(acxHome).spool)).toEqual([])
    expect(query(acxHome, "SELECT session_id, state FROM memory_events ORDER BY id")).toEqual([
      { session_id: "s-warm", state: "done" },
      { session_id: "s-spooled", state: "done" }
    ])
    expect(query(acxHome, "SELECT pid FROM memory_worker")).toEqual([{ pid: null }])
  })

  describe.skipIf(!claude.available)("with the real Claude Code CLI as the observer", () => {
    const observation = (n: number) =>
      `Noted.\n<observation><type>feature</type><title>Cart total includes tax ${n}</title><facts><fact>tax rate 8%</fact></facts><narrative>The cart total now adds tax.</narrative><concepts><concept>cart</concept></concepts><files_modified><file>src/file1.ts</file></files_modified></observation>`
    const summary =
      "<summary><request>Cart total with tax</request><investigated>src/file0.ts</investigated><learned>Tax is 8%</learned><completed>Added tax</completed><next_steps>Fix the failing test</next_steps><files_read><file>src/file0.ts</file></files_read><files_edited><file>src/file1.ts</file></files_edited><notes>none</notes></summary>"

    // the observer offers no tools, so the double tells its requests from the CLI's side calls
    // by the system prompt
    const isObserver = ModelDouble.systemMentions("acx's memory observer")
    const observerCalls = (double: ModelDouble.ModelDoubleHandle) => double.requests().filter(isObserver)

    const world = async (script: ModelDouble.Script) => {
      const root = makeRoot()
      const double = await ModelDouble.startModelDouble({ script })
      const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
      return { ...root, double, env: { ...process.env, ...real.env(root.home) } }
    }

    it("batches events into one conversation, stores what it says, and bills the ledger", async () => {
      let batches = 0
      const w = await world((request) => {
        if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
        const text = ModelDouble.lastUserText(request) ?? ""
        const usage = { inputTokens: 2000, outputTokens: 100 }
        if (text.includes("SESSION CHECKPOINT")) return { content: summary, usage }
        return { content: observation(++batches), usage }
      })
      try {
        session(w.acxHome, w.project, "s-model", 14)
        const exit = await runWorker(
          w.acxHome,
          MemoryWorker.run({
            home: w.acxHome,
            env: w.env,
            config: quick({ batchSize: 10 }),
            idleTimeout: 0,
            pathToClaudeCodeExecutable: claude.available ? claude.path : undefined,
            log: () => {}
          })
        )
        expect(exit).toMatchObject({ _tag: "Idle", events: 18 })
        const calls = observerCalls(w.double)
        // 16 prompt and tool events in batches of 10, then one summary: 3 model calls
        expect(calls).toHaveLength(3)
        const prompts = calls.map((request) => ModelDouble.lastUserText(request) ?? "")
        expect(prompts[0]).toContain("You are acx's memory observer")
        expect(prompts[0]).toContain("EVENTS 1 TO 10")
        expect(prompts[1]).not.toContain("You are acx's memory observer")
        expect(prompts[2]).toContain("SESSION CHECKPOINT (Stop)")
        // one conversation: the summary request carries the earlier batches
        expect(JSON.stringify(calls[2]!.body["messages"])).toContain("EVENTS 1 TO 10")
        expect(calls.every((request) => request.body["model"] === "claude-haiku-4-5")).toBe(true)
        expect(query(w.acxHome, "SELECT title, source FROM memory_observations ORDER BY id")).toEqual([
          { title: "Cart total includes tax 1", source: "model" },
          { title: "Cart total includes tax 2", source: "model" }
        ])
        expect(query(w.acxHome, "SELECT request, next_steps, source FROM memory_summaries")).toEqual([
          { request: "Cart total with tax", next_steps: "Fix the failing test", source: "model" }
        ])
        expect(query(w.acxHome, "SELECT DISTINCT state FROM memory_events")).toEqual([{ state: "done" }])
        // haiku 4.5 at $1 / $5 per million tokens, read from the CLI's cumulative cost
        const ledger = query(w.acxHome, "SELECT model, input_tokens, output_tokens, cost_usd FROM memory_usage")
        expect(ledger).toHaveLength(3)
        for (const row of ledger) {
          expect(row).toMatchObject({ model: "claude-haiku-4-5", input_tokens: 2000, output_tokens: 100 })
          expect(row["cost_usd"]).toBeCloseTo(0.0025, 6)
        }
        // the observer's transcript is in its private config dir, never in the user's
        const files = MemoryConfig.paths(w.acxHome)
        expect(fs.existsSync(path.join(w.home, ".claude", "projects"))).toBe(false)
        expect(fs.readdirSync(path.join(files.observerConfigDir, "projects"))).toHaveLength(1)
        const [row] = query(w.acxHome, "SELECT observer_session_id, status FROM memory_sessions")
        expect(row).toMatchObject({ status: "completed" })
        expect(row!["observer_session_id"]).toMatch(/^[0-9a-f-]{36}$/)
        // and the SessionStore in the memory database holds it, to resume from
        expect(query(w.acxHome, "SELECT count(*) AS n FROM sqlite_master WHERE name LIKE '%session%'")[0]!["n"])
          .toBeGreaterThan(0)
      } finally {
        await w.double.close()
      }
    }, 120_000)

    it(
      "a conversation grown past observerMaxContextTokens is ended; the summary is told what was recorded",
      async () => {
        let batches = 0
        const w = await world((request) => {
          if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
          const text = ModelDouble.lastUserText(request) ?? ""
          const usage = { inputTokens: 5000, outputTokens: 100 }
          if (text.includes("SESSION CHECKPOINT")) return { content: summary, usage }
          return { content: observation(++batches), usage }
        })
        try {
          session(w.acxHome, w.project, "s-rotate", 14)
          await runWorker(
            w.acxHome,
            MemoryWorker.run({
              home: w.acxHome,
              env: w.env,
              config: quick({ batchSize: 10, observerMaxContextTokens: 4000 }),
              idleTimeout: 0,
              pathToClaudeCodeExecutable: claude.available ? claude.path : undefined,
              log: () => {}
            })
          )
          const calls = observerCalls(w.double)
          expect(calls).toHaveLength(3)
          // every call read more than the bound: each started a fresh conversation, instructions first
          for (const call of calls) {
            expect(ModelDouble.lastUserText(call)).toContain("You are acx's memory observer")
            expect(call.body["messages"]).toHaveLength(1)
          }
          const checkpoint = ModelDouble.lastUserText(calls[2]!) ?? ""
          expect(checkpoint).toContain("- [feature] Cart total includes tax 1")
          expect(checkpoint).toContain("- [feature] Cart total includes tax 2")
          expect(query(w.acxHome, "SELECT request FROM memory_summaries")).toEqual([{ request: "Cart total with tax" }])
        } finally {
          await w.double.close()
        }
      },
      120_000
    )

    it("an unreadable reply is asked once more with the reminder, then the batch is recorded locally", async () => {
      const w = await world((request) =>
        !isObserver(request)
          ? { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
          : { content: "Sure! I will keep that in mind.", usage: { inputTokens: 100, outputTokens: 10 } }
      )
      try {
        session(w.acxHome, w.project, "s-bad", 1)
        const run = MemoryWorker.run({
          home: w.acxHome,
          env: w.env,
          config: quick({ maxAttempts: 3 }),
          idleTimeout: 0,
          pathToClaudeCodeExecutable: claude.available ? claude.path : undefined,
          log: () => {}
        })
        await runWorker(w.acxHome, run)
        // nothing failed, nothing waits for a retry on the model
        expect(query(w.acxHome, "SELECT DISTINCT state, attempts FROM memory_events")).toEqual([
          { state: "done", attempts: 0 }
        ])
        const calls = observerCalls(w.double)
        expect(ModelDouble.lastUserText(calls[1]!)).toContain("could not be read")
        expect(query(w.acxHome, "SELECT DISTINCT source FROM memory_observations")).toEqual([{ source: "local" }])
        // every call paid for is in the ledger
        expect(query(w.acxHome, "SELECT count(*) AS n FROM memory_usage")[0]!["n"]).toBe(calls.length)
      } finally {
        await w.double.close()
      }
    }, 120_000)
  })
})
