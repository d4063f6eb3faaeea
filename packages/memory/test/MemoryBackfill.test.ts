/**
 * `acx memory backfill`'s library: a transcript gives the hook calls Claude Code would have made
 * (prompts, tool calls with results, failures, Stops, the end; nothing for sidechains, meta
 * entries or calls without a result); planted secrets and `<private>` parts never reach any byte
 * of the memory's files (property-tested through the real SQLite database); the estimate counts
 * the worker's calls; a run is exactly once per session, resumes what a killed run left queued,
 * and leaves sessions the hooks recorded live alone.
 */
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as BackfillEstimate from "../src/BackfillEstimate.js"
import * as HookCapture from "../src/HookCapture.js"
import * as BackfillStore from "../src/internal/backfillStore.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryBackfill from "../src/MemoryBackfill.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as TranscriptHooks from "../src/TranscriptHooks.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const config = MemoryConfig.defaults
const SECRET = "sk-ant-api03-" + "Qk7".repeat(10)
const PRIVATE = "hunter2-private-words"
const homes: Array<string> = []
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})
const makeHome = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-backfill-"))
  homes.push(home)
  return home
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, second)).toISOString()

/** A transcript: `turns` prompts, each followed by a Bash call and its result (the second one failing). */
const transcript = (cwd: string, texts: { prompt: string; command: string; output: string; reply: string }) => [
  { type: "summary", summary: "old" },
  { type: "user", uuid: "u1", cwd, timestamp: at(1), message: { role: "user", content: texts.prompt } },
  {
    type: "assistant",
    uuid: "a1",
    cwd,
    timestamp: at(2),
    message: {
      role: "assistant",
      content: [
        { type: "text", text: texts.reply },
        { type: "tool_use", id: "t1", name: "Bash", input: { command: texts.command } },
        { type: "tool_use", id: "t-never", name: "Read", input: { file_path: "/x" } }
      ]
    }
  },
  {
    type: "user",
    uuid: "r1",
    cwd,
    timestamp: at(3),
    toolUseResult: { stdout: texts.output, stderr: "", interrupted: false },
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: texts.output }] }
  },
  {
    type: "user",
    uuid: "i1",
    cwd,
    timestamp: at(4),
    message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] }
  },
  { type: "user", uuid: "m1", cwd, isMeta: true, timestamp: at(4), message: { role: "user", content: "meta" } },
  { type: "user", uuid: "sc", cwd, isSidechain: true, timestamp: at(4), message: { role: "user", content: "sub" } },
  { type: "user", uuid: "u2", promptId: "p-2", cwd, timestamp: at(5), message: { role: "user", content: "again" } },
  {
    type: "assistant",
    uuid: "a2",
    cwd,
    timestamp: at(6),
    message: { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Bash", input: { command: "false" } }] }
  },
  {
    type: "user",
    uuid: "r2",
    cwd,
    timestamp: at(7),
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t2", is_error: true, content: `exit 1 ${texts.output}` }]
    }
  }
]

describe("TranscriptHooks", () => {
  it("derives the hook calls Claude Code would have made, in order, keyed by the turn", () => {
    const calls = TranscriptHooks.hookCalls(
      { sessionId: "s1", transcriptPath: "/c/s1.jsonl" },
      transcript("/work/app", { prompt: "fix it", command: "ls", output: "a b", reply: "Looking." })
    )
    expect(calls.map((call) => call.event)).toEqual([
      "UserPromptSubmit",
      "PostToolUse",
      "Stop",
      "UserPromptSubmit",
      "PostToolUseFailure",
      "Stop",
      "SessionEnd"
    ])
    expect(calls[0]!.input).toMatchObject({ session_id: "s1", cwd: "/work/app", prompt: "fix it", prompt_id: "u1" })
    expect(calls[1]!.input).toMatchObject({
      tool_name: "Bash",
      tool_use_id: "t1",
      tool_input: { command: "ls" },
      tool_response: { stdout: "a b" }
    })
    expect(calls[2]!.input).toMatchObject({ last_assistant_message: "Looking.", prompt_id: "u1" })
    expect(calls[3]!.input).toMatchObject({ prompt: "again", prompt_id: "p-2" })
    expect(calls[4]!.input).toMatchObject({ tool_use_id: "t2", error: "exit 1 a b" })
    expect(calls[1]!.at).toBe(Date.parse(at(3)))
    // the same transcript read again gives the same keys
    const keys = (cs: ReadonlyArray<TranscriptHooks.TimedCapture>) => cs.map((c) => c.capture.queued?.idempotencyKey)
    const entries = transcript("/work/app", { prompt: "fix it", command: "ls", output: "a b", reply: "Looking." })
    const ref = { sessionId: "s1", transcriptPath: "/c/s1.jsonl" }
    expect(keys(TranscriptHooks.captures(ref, entries, config))).toEqual(
      keys(TranscriptHooks.captures(ref, entries, config))
    )
  })

  it("property: any entries give calls whose captures are the live hook's", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), (entries) => {
        const ref = { sessionId: "s", transcriptPath: "/t.jsonl", cwd: "/p" }
        const calls = TranscriptHooks.hookCalls(ref, entries)
        const captured = TranscriptHooks.captures(ref, entries, config)
        const live = calls.map((call) =>
          HookCapture.capture(call.event, call.input, JSON.stringify(call.input), config)
        )
          .filter((result) => result._tag === "Capture")
        expect(captured.map((timed) => timed.capture)).toEqual(live)
      })
    )
  })
})

const sourceOf = (
  sessions: ReadonlyArray<{ readonly id: string; readonly entries: ReadonlyArray<unknown>; readonly project: string }>
): MemoryBackfill.Source<never> => ({
  name: "test",
  sessions: Effect.succeed(sessions.map((session) => ({
    sessionId: session.id,
    transcriptPath: `/c/${session.id}.jsonl`,
    project: session.project,
    lastActivity: Date.parse(at(7))
  }))),
  entries: (session) => Effect.succeed(sessions.find((s) => s.id === session.sessionId)!.entries)
})

const runBackfill = (
  home: string,
  source: MemoryBackfill.Source<never>,
  extra: Partial<MemoryBackfill.BackfillOptions<never>> = {}
) => Effect.runPromise(provideDatabase(home, MemoryBackfill.run({ source, mode: "local", home, config, ...extra })))

/** Every byte of every file under `dir`. */
const allBytes = (dir: string): string =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "latin1"))
    .join("\n")

describe("MemoryBackfill.run", () => {
  it("property: planted secrets and <private> parts reach no byte of the memory's files", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), async (before, after) => {
        const home = makeHome()
        const planted = `${before}<private>${PRIVATE}</private> ${SECRET} ${after}`
        const entries = transcript("/work/app", {
          prompt: planted,
          command: `echo ${planted}`,
          output: planted,
          reply: planted
        })
        const report = await runBackfill(home, sourceOf([{ id: "s-secret", entries, project: "/work/app" }]))
        expect(report.backfilled).toBe(1)
        const bytes = allBytes(home)
        expect(bytes).not.toContain(SECRET)
        expect(bytes).not.toContain(PRIVATE)
        expect(bytes).toContain("[REDACTED:anthropic-key]")
        fs.rmSync(home, { recursive: true, force: true })
      }),
      { numRuns: 12 }
    )
  }, 120_000)

  it("is exactly once per session, leaves live sessions alone and resumes what a killed run queued", async () => {
    const home = makeHome()
    const entries = (n: number) =>
      transcript("/work/app", { prompt: `task ${n}`, command: `make ${n}`, output: "ok", reply: "done" })
    // a session the hooks saw live
    hooksOf(home, "/work/app", "s-live")("UserPromptSubmit", { prompt: "live one" })
    const source = sourceOf([
      { id: "s-a", entries: entries(1), project: "/work/app" },
      { id: "s-b", entries: entries(2), project: "/work/app" },
      { id: "s-live", entries: entries(3), project: "/work/app" },
      { id: "s-empty", entries: [{ type: "summary" }], project: "/work/app" }
    ])
    // a run killed after queueing s-a (its transaction committed) and before distilling it
    const db = Sqlite.open(MemoryConfig.paths(home).database)
    const queued = BackfillStore.queue(db, {
      sessionId: "s-a",
      project: "/work/app",
      source: "test",
      mode: "local",
      localReason: MemoryBackfill.LOCAL_REASON,
      now: 1
    }, TranscriptHooks.captures({ sessionId: "s-a", transcriptPath: "/c/s-a.jsonl" }, entries(1), config))
    db.close()
    expect(queued).toEqual({ _tag: "Queued", events: 7 })

    const first = await runBackfill(home, source)
    expect(first).toMatchObject({ sessions: 4, backfilled: 2, resumed: 1, live: 1, empty: 1, waiting: 0 })
    const counts = () =>
      query(
        home,
        `SELECT (SELECT count(*) FROM memory_events) AS events, (SELECT count(*) FROM memory_observations) AS observations,
         (SELECT count(*) FROM memory_summaries) AS summaries, (SELECT count(*) FROM memory_prompts) AS prompts,
         (SELECT count(*) FROM memory_events WHERE state = 'pending' AND session_id != 's-live') AS pending`
      )[0]
    const after = counts()
    expect(after).toMatchObject({ pending: 0, prompts: 5 })
    expect(after!["summaries"]).toBeGreaterThanOrEqual(4)
    // dated at the transcript's time, not the run's
    const times = query(home, "SELECT DISTINCT created_at AS t FROM memory_observations WHERE session_id = 's-b'")
    for (const row of times) expect(row["t"]).toBeLessThanOrEqual(Date.parse(at(7)))
    // the live session keeps only what the hooks recorded
    expect(query(home, "SELECT count(*) AS n FROM memory_events WHERE session_id = 's-live'")[0]!["n"]).toBe(1)

    const second = await runBackfill(home, source)
    expect(second).toMatchObject({ backfilled: 0, already: 3, live: 1, events: 0, observations: 0 })
    expect(counts()).toEqual(after)
  })

  it("a transcript that cannot be read is skipped unmarked; the others are backfilled, and a later run reads it", async () => {
    const home = makeHome()
    const entries = transcript("/work/app", { prompt: "task", command: "make", output: "ok", reply: "done" })
    let gone = true
    const source: MemoryBackfill.Source<Error> = {
      ...sourceOf([{ id: "s-ok", entries, project: "/work/app" }, { id: "s-gone", entries, project: "/work/app" }]),
      entries: (session) =>
        session.sessionId === "s-gone" && gone
          ? Effect.fail(new Error("ENOENT: no such file"))
          : Effect.succeed(entries)
    }
    const problems: Array<string | undefined> = []
    const first = await Effect.runPromise(provideDatabase(
      home,
      MemoryBackfill.run({
        source,
        mode: "local",
        home,
        config,
        onProgress: (step) => Effect.sync(() => step.outcome === "unreadable" && problems.push(step.problem))
      })
    ))
    expect(first).toMatchObject({ sessions: 2, backfilled: 1, unreadable: 1 })
    expect(problems).toEqual(["ENOENT: no such file"])
    expect(query(home, "SELECT session_id FROM memory_backfill").map((row) => row["session_id"])).toEqual(["s-ok"])
    gone = false
    const second = await Effect.runPromise(
      provideDatabase(home, MemoryBackfill.run({ source, mode: "local", home, config }))
    )
    expect(second).toMatchObject({ backfilled: 1, already: 1, unreadable: 0 })
  })

  it("model mode stops when another worker holds the lock, leaving it the sessions queued so far", async () => {
    const home = makeHome()
    const entries = transcript("/work/app", { prompt: "task", command: "make", output: "ok", reply: "done" })
    const source = sourceOf([{ id: "s-1", entries, project: "/work/app" }, {
      id: "s-2",
      entries,
      project: "/work/app"
    }])
    const busy = await runBackfill(home, source, { mode: "model", distil: Effect.succeed("busy" as const) })
    expect(busy).toMatchObject({ backfilled: 0, waiting: 1 })
    expect(busy.stopped).toMatch(
      /^stopped: a memory worker is running; it distils the 1 sessions? queued so far; 1 left/
    )
    expect(query(home, "SELECT session_id, state FROM memory_backfill")).toEqual([{
      session_id: "s-1",
      state: "recorded"
    }])
    // later, locally: the queued one is finished, the other backfilled
    const after = await runBackfill(home, source)
    expect(after).toMatchObject({ backfilled: 2, resumed: 1, waiting: 0 })
    expect(query(home, "SELECT count(*) AS n FROM memory_events WHERE state = 'pending'")[0]!["n"]).toBe(0)
  })

  it("a session of an excluded project is left unmarked: lifting the exclusion backfills it", async () => {
    const home = makeHome()
    const source = sourceOf([
      {
        id: "s-open",
        entries: transcript("/work/app", { prompt: "a", command: "b", output: "c", reply: "d" }),
        project: "/work/app"
      },
      {
        id: "s-secret",
        entries: transcript("/work/secret", { prompt: "a", command: "b", output: "c", reply: "d" }),
        project: "/work/secret"
      }
    ])
    const excluded = await runBackfill(home, source, { config: { ...config, excludeProjects: ["/work/secret"] } })
    expect(excluded).toMatchObject({ backfilled: 1, excluded: 1 })
    expect(query(home, "SELECT DISTINCT project FROM memory_events").map((row) => row["project"])).toEqual([
      "/work/app"
    ])
    const lifted = await runBackfill(home, source)
    expect(lifted).toMatchObject({ backfilled: 1, already: 1, excluded: 0 })
  })

  it("the estimate counts the worker's calls: a batch per batchSize events, one per run of checkpoints", () => {
    const event = (kind: HookCapture.QueuedEvent["kind"]): HookCapture.QueuedEvent => ({
      kind,
      idempotencyKey: "k",
      toolName: undefined,
      payload: "x".repeat(400)
    })
    const session = [
      ...Array.from({ length: 25 }, () => event("tool")),
      event("summarise"),
      event("summarise"),
      event("prompt")
    ]
    const sizes = BackfillEstimate.sizesOf(session.map((queued) => ({ queued })))
    expect(sizes[0]).toEqual({ kind: "tool", chars: 400 })
    const estimate = BackfillEstimate.estimate([sizes], { ...config, batchSize: 10, model: "claude-haiku-4-5" })
    // 10 + 10 + 5 tool events, the two checkpoints together, the last prompt
    expect(estimate.calls).toBe(5)
    expect(estimate.events).toBe(28)
    expect(estimate.costUsd).toBeGreaterThan(0)
    expect(BackfillEstimate.estimate([sizes], { ...config, model: "no-such-model" }).costUsd).toBeUndefined()
  })
})
