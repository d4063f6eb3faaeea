/**
 * The hook path on real SQLite files: what each event records, duplicates stored once, bad stdin
 * (empty, not JSON, wrong shape, a name that disagrees, too large) recording nothing, excluded
 * projects, the skip list, the observer's own hooks ignored, a locked database spooling the
 * input instead of losing it, and SessionStart's context.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as UnreapedProcess from "@acx/testing/UnreapedProcess"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as HookRunner from "../src/HookRunner.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"

const homes: Array<string> = []
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})

const makeHome = (memory?: Record<string, unknown>) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-hook-"))
  homes.push(home)
  if (memory !== undefined) fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ memory }))
  return home
}

const project = "/work/projects/shop"
const base = (event: string, extra: Record<string, unknown> = {}) => ({
  session_id: "s-1",
  transcript_path: "/tmp/s-1.jsonl",
  cwd: project,
  hook_event_name: event,
  ...extra
})

const hook = (home: string, event: string, input: unknown, env: Record<string, string> = {}) =>
  HookRunner.runHook(event, typeof input === "string" ? input : JSON.stringify(input), {
    home,
    env: { ...env }
  })

const rows = (home: string, sql: string) => {
  const file = MemoryConfig.paths(home).database
  if (!fs.existsSync(file)) return []
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>
  } finally {
    db.close()
  }
}

describe("runHook", () => {
  it("records prompts and tool calls once each, prints only what Claude Code reads", () => {
    const home = makeHome()
    const prompt = hook(home, "UserPromptSubmit", base("UserPromptSubmit", { prompt: "Fix the cart total" }))
    expect(JSON.parse(prompt.stdout)).toEqual({ continue: true, suppressOutput: true })
    expect([prompt.warning, prompt.recorded, prompt.startWorker]).toEqual([undefined, true, true])
    const read = base("PostToolUse", {
      tool_name: "Read",
      tool_use_id: "toolu_1",
      tool_input: { file_path: `${project}/cart.ts` },
      tool_response: { type: "text", file: { filePath: `${project}/cart.ts`, content: "x".repeat(10_000) } }
    })
    expect(hook(home, "PostToolUse", read).recorded).toBe(true)
    // Claude Code may deliver one call twice: stored once
    expect(hook(home, "PostToolUse", read).recorded).toBe(false)
    hook(
      home,
      "PostToolUseFailure",
      base("PostToolUseFailure", {
        tool_name: "Bash",
        tool_use_id: "toolu_2",
        tool_input: { command: "npm test" },
        error: "Exit code 1\n1 failing"
      })
    )
    hook(home, "Stop", base("Stop", { stop_hook_active: false, last_assistant_message: "Fixed." }))
    hook(home, "SessionEnd", base("SessionEnd", { reason: "prompt_input_exit" }))
    const events = rows(home, "SELECT kind, tool_name, idempotency_key, payload, state FROM memory_events ORDER BY id")
    expect(events.map((event) => [event["kind"], event["tool_name"], event["state"]])).toEqual([
      ["prompt", null, "pending"],
      ["tool", "Read", "pending"],
      ["tool_failure", "Bash", "pending"],
      ["summarise", null, "pending"],
      ["summarise", null, "pending"]
    ])
    const readPayload = JSON.parse(events[1]!["payload"] as string)
    expect(readPayload.tool_response.file.content).toMatch(/^x{4000}\n\[… cut: 6000 more characters\]$/)
    expect(rows(home, "SELECT prompt_number, text FROM memory_prompts")).toEqual([
      { prompt_number: 1, text: "Fix the cart total" }
    ])
    const [session] = rows(home, "SELECT project, status, ended_at, end_reason, prompt_count FROM memory_sessions")
    expect(session).toMatchObject({ project, status: "active", end_reason: "prompt_input_exit", prompt_count: 1 })
    expect(session!["ended_at"]).toBeTypeOf("number")
  })

  it("of a burst of hooks, one starts the worker; another may after the grace if none took the lock", () => {
    const home = makeHome()
    const at = (n: number, now: number) =>
      HookRunner.runHook(
        "PostToolUse",
        JSON.stringify(
          base("PostToolUse", { tool_name: "Read", tool_use_id: `t${n}`, tool_input: {}, tool_response: "" })
        ),
        { home, env: {}, now }
      )
    const t0 = 1_800_000_000_000
    expect([at(1, t0), at(2, t0 + 10), at(3, t0 + 9_000)].map((outcome) => outcome.startWorker)).toEqual([
      true,
      false,
      false
    ])
    // the worker never took the lock: after the grace a hook starts one again
    expect(at(4, t0 + 10_001).startWorker).toBe(true)
  })

  it.skipIf(!fs.existsSync("/proc/self/stat"))(
    "a hook starts a worker when the row's worker is a zombie or its pid another process's",
    async () => {
      const home = makeHome()
      const database = MemoryConfig.paths(home).database
      let n = 0
      const hookWith = (row: { pid: number; pidStart: number | null }) => {
        const db = new Database(database)
        try {
          // a fresh heartbeat, and no other hook started a worker lately
          db.prepare(
            "UPDATE memory_worker SET pid = ?, pid_start = ?, heartbeat_at = ?, spawned_at = NULL WHERE id = 1"
          )
            .run(row.pid, row.pidStart, Date.now())
        } finally {
          db.close()
        }
        n++
        const input = base("PostToolUse", {
          tool_name: "Read",
          tool_use_id: `t${n}`,
          tool_input: {},
          tool_response: ""
        })
        return hook(home, "PostToolUse", input).startWorker
      }
      expect(hook(home, "UserPromptSubmit", base("UserPromptSubmit", { prompt: "go" })).recorded).toBe(true)
      // a live worker (this process, as recorded): no start
      expect(hookWith({ pid: process.pid, pidStart: ProcessLiveness.startTime(process.pid) ?? null })).toBe(false)
      // a zombie (killed, its parent a `sleep` that never waits for it)
      const unreaped = await UnreapedProcess.start("sleep", ["600"])
      try {
        const zombie = unreaped.pid
        const start = ProcessLiveness.startTime(zombie)!
        expect(hookWith({ pid: zombie, pidStart: start })).toBe(false)
        await unreaped.kill()
        expect(() => process.kill(zombie, 0)).not.toThrow()
        expect(hookWith({ pid: zombie, pidStart: start })).toBe(true)
        // a row written before start times were recorded: the state alone says it
        expect(hookWith({ pid: zombie, pidStart: null })).toBe(true)
        // the live `sleep`, recorded with another start time: its pid was reused
        const parentStart = ProcessLiveness.startTime(unreaped.parent)!
        expect(hookWith({ pid: unreaped.parent, pidStart: parentStart + 1 })).toBe(true)
        expect(hookWith({ pid: unreaped.parent, pidStart: parentStart })).toBe(false)
      } finally {
        unreaped.stop()
      }
    }
  )

  it("bad stdin: one warning line, exit as usual, nothing written", () => {
    const home = makeHome({ maxHookInputBytes: 1000 })
    const cases: Array<[string, string | unknown, RegExp]> = [
      ["PostToolUse", "", /stdin is empty/],
      ["PostToolUse", "{not json", /not JSON/],
      ["PostToolUse", [1, 2], /not a JSON object/],
      ["PostToolUse", base("Stop", { stop_hook_active: false }), /hook_event_name "Stop" is not PostToolUse/],
      ["PostToolUse", { cwd: project, hook_event_name: "PostToolUse" }, /no session_id/],
      ["PostToolUse", base("PostToolUse", { cwd: "relative/dir" }), /absolute cwd/],
      ["PostToolUse", base("PostToolUse", { tool_name: "Read" }), /tool_use_id/],
      [
        "PostToolUse",
        base("PostToolUse", { tool_name: "Read", tool_use_id: "t", tool_input: "y".repeat(2000) }),
        /larger than 1000 bytes/
      ],
      ["PreCompact", base("PreCompact", {}), /not an event acx memory records/]
    ]
    for (const [event, input, warning] of cases) {
      const outcome = hook(home, event, input)
      expect(outcome.warning, JSON.stringify(input).slice(0, 80)).toMatch(warning)
      expect(outcome.warning!.split("\n")).toHaveLength(1)
      expect(JSON.parse(outcome.stdout)).toEqual({ continue: true, suppressOutput: true })
      expect(outcome.recorded).toBe(false)
    }
    expect(fs.existsSync(MemoryConfig.paths(home).database)).toBe(false)
  })

  it("records nothing for excluded projects, skipped tools, prompts that were all private, or the observer", () => {
    const home = makeHome({ excludeProjects: ["/work/projects/secret*"], skipTools: ["TodoWrite"] })
    const secret = { ...base("UserPromptSubmit", { prompt: "hello" }), cwd: "/work/projects/secret-plans/sub" }
    expect(hook(home, "UserPromptSubmit", secret)).toMatchObject({ warning: undefined, recorded: false })
    const todo = base("PostToolUse", { tool_name: "TodoWrite", tool_use_id: "t1", tool_input: {}, tool_response: {} })
    expect(hook(home, "PostToolUse", todo)).toMatchObject({ warning: undefined, recorded: false })
    const allPrivate = base("UserPromptSubmit", { prompt: "<private>my salary is 10</private>" })
    expect(hook(home, "UserPromptSubmit", allPrivate).recorded).toBe(false)
    const observer = base("UserPromptSubmit", { prompt: "observe this" })
    expect(hook(home, "UserPromptSubmit", observer, { [HookRunner.OBSERVER_ENV]: "1" }).recorded).toBe(false)
    expect(rows(home, "SELECT * FROM memory_events")).toEqual([])
  })

  it("removes private parts and redacts secrets before anything is written", () => {
    const home = makeHome()
    const key = "sk-ant-api03-" + "a1B2c3D4".repeat(6)
    hook(
      home,
      "UserPromptSubmit",
      base("UserPromptSubmit", { prompt: `Deploy with <private>password hunter22</private> and ${key}` })
    )
    hook(
      home,
      "PostToolUse",
      base("PostToolUse", {
        tool_name: "Read",
        tool_use_id: "t-env",
        tool_input: { file_path: `${project}/.env` },
        tool_response: "DATABASE_PASSWORD=correct-horse-battery\nPORT=3000"
      })
    )
    const text = JSON.stringify([
      rows(home, "SELECT * FROM memory_events"),
      rows(home, "SELECT * FROM memory_prompts")
    ])
    expect(text).not.toContain("hunter22")
    expect(text).not.toContain(key)
    expect(text).not.toContain("correct-horse-battery")
    expect(text).toContain("[REDACTED:anthropic-key]")
    expect(text).toContain("PORT=3000")
    // nor in the file's bytes: the database and its WAL, read while a connection holds the WAL open
    const files = MemoryConfig.paths(home)
    const reader = new Database(files.database)
    try {
      reader.prepare("SELECT count(*) FROM memory_events").get()
      for (const file of [files.database, `${files.database}-wal`]) {
        if (!fs.existsSync(file)) continue
        const bytes = fs.readFileSync(file)
        for (const secret of ["hunter22", key, "correct-horse-battery"]) {
          expect(bytes.includes(Buffer.from(secret)), `${secret} in ${path.basename(file)}`).toBe(false)
        }
      }
    } finally {
      reader.close()
    }
  })

  it("a locked database: the input is spooled, not lost", () => {
    const home = makeHome()
    const files = MemoryConfig.paths(home)
    const holder = Sqlite.open(files.database)
    holder.exec("BEGIN IMMEDIATE")
    try {
      const outcome = HookRunner.runHook(
        "UserPromptSubmit",
        JSON.stringify(base("UserPromptSubmit", { prompt: "while locked" })),
        { home, env: {}, busyTimeoutMs: 50 }
      )
      expect(outcome).toMatchObject({ spooled: true, recorded: false, startWorker: true })
      expect(outcome.warning).toMatch(/locked.*spool/)
    } finally {
      holder.exec("ROLLBACK")
    }
    const spooled = fs.readdirSync(files.spool)
    expect(spooled).toHaveLength(1)
    const { event, raw } = JSON.parse(fs.readFileSync(path.join(files.spool, spooled[0]!), "utf8"))
    const { config } = MemoryConfig.load(home)
    expect(HookRunner.recordSpooled(holder, event, raw, config, Date.now())).toBe(true)
    holder.close()
    expect(rows(home, "SELECT text FROM memory_prompts")).toEqual([{ text: "while locked" }])
  })

  it("identical prompts and Stop bodies on three turns: every turn kept; a re-delivered call stored once", () => {
    // a CLI that sends no prompt_id: the turn is the transcript's size when the hook ran
    const home = makeHome()
    const transcript = path.join(home, "s-1.jsonl")
    fs.writeFileSync(transcript, "")
    const call = (event: string, extra: Record<string, unknown>) =>
      hook(home, event, base(event, { transcript_path: transcript, ...extra }))
    for (let turn = 1; turn <= 3; turn++) {
      expect(call("UserPromptSubmit", { prompt: "yes, continue" }).recorded).toBe(true)
      // Claude Code delivering the same call again (the transcript has not moved): a duplicate
      expect(call("UserPromptSubmit", { prompt: "yes, continue" }).recorded).toBe(false)
      fs.appendFileSync(transcript, `{"type":"user","turn":${turn}}\n`)
      expect(call("Stop", { stop_hook_active: false, last_assistant_message: "Done." }).recorded).toBe(true)
      expect(call("Stop", { stop_hook_active: false, last_assistant_message: "Done." }).recorded).toBe(false)
      fs.appendFileSync(transcript, `{"type":"assistant","turn":${turn}}\n`)
    }
    expect(rows(home, "SELECT prompt_number, text FROM memory_prompts ORDER BY id")).toEqual([1, 2, 3].map((n) => ({
      prompt_number: n,
      text: "yes, continue"
    })))
    expect(rows(home, "SELECT kind FROM memory_events ORDER BY id").map((row) => row["kind"])).toEqual([
      "prompt",
      "summarise",
      "prompt",
      "summarise",
      "prompt",
      "summarise"
    ])
  })

  it("the turn is Claude Code's prompt_id when the call has one: the same id twice is a duplicate", () => {
    const home = makeHome()
    const call = (event: string, promptId: string, extra: Record<string, unknown>) =>
      hook(home, event, base(event, { prompt_id: promptId, ...extra }))
    for (const id of ["p-1", "p-2", "p-1", "p-3"]) {
      call("UserPromptSubmit", id, { prompt: "yes, continue" })
      call("Stop", id, { stop_hook_active: false, last_assistant_message: "Done." })
      call("SessionEnd", id, { reason: "other" })
    }
    expect(rows(home, "SELECT count(*) AS n FROM memory_prompts")).toEqual([{ n: 3 }])
    // a resumed session ends once per run: each end is kept (the worker skips what a Stop covered)
    expect(rows(home, "SELECT kind, count(*) AS n FROM memory_events GROUP BY kind ORDER BY kind")).toEqual([
      { kind: "prompt", n: 3 },
      { kind: "summarise", n: 6 }
    ])
  })

  it("a session resumed after it ended goes on: not ended, active again until its next end", () => {
    const home = makeHome()
    const session = () => rows(home, "SELECT status, ended_at IS NOT NULL AS ended, end_reason FROM memory_sessions")
    hook(home, "SessionStart", base("SessionStart", { source: "startup" }))
    hook(home, "UserPromptSubmit", base("UserPromptSubmit", { prompt_id: "p-1", prompt: "yes, continue" }))
    hook(home, "SessionEnd", base("SessionEnd", { prompt_id: "p-1", reason: "other" }))
    expect(session()).toEqual([{ status: "active", ended: 1, end_reason: "other" }])
    // the worker completed it meanwhile
    const db = Sqlite.open(MemoryConfig.paths(home).database)
    db.prepare("UPDATE memory_sessions SET status = 'completed'").run()
    db.close()
    hook(home, "SessionStart", base("SessionStart", { source: "resume" }))
    expect(session()).toEqual([{ status: "active", ended: 0, end_reason: null }])
    hook(home, "SessionEnd", base("SessionEnd", { prompt_id: "p-2", reason: "prompt_input_exit" }))
    expect(session()).toEqual([{ status: "active", ended: 1, end_reason: "prompt_input_exit" }])
  })

  it("a spooled call keeps the transcript's position it was made at", () => {
    const home = makeHome()
    const files = MemoryConfig.paths(home)
    const transcript = path.join(home, "s-1.jsonl")
    fs.writeFileSync(transcript, "{}\n")
    const raw = JSON.stringify(base("UserPromptSubmit", { transcript_path: transcript, prompt: "yes, continue" }))
    const holder = Sqlite.open(files.database)
    holder.exec("BEGIN IMMEDIATE")
    try {
      expect(HookRunner.runHook("UserPromptSubmit", raw, { home, env: {}, busyTimeoutMs: 50 }).spooled).toBe(true)
    } finally {
      holder.exec("ROLLBACK")
    }
    // the session moved on before the worker read the spool
    fs.appendFileSync(transcript, "{\"type\":\"user\"}\n")
    const [name] = fs.readdirSync(files.spool)
    const spooled = JSON.parse(fs.readFileSync(path.join(files.spool, name!), "utf8"))
    expect(spooled.position).toBe(3)
    const { config } = MemoryConfig.load(home)
    expect(
      HookRunner.recordSpooled(holder, spooled.event, spooled.raw, config, Date.now(), spooled.key, spooled.position)
    ).toBe(true)
    holder.close()
    // the same call, delivered directly at the position it was made at, is the one already stored
    fs.writeFileSync(transcript, "{}\n")
    expect(HookRunner.runHook("UserPromptSubmit", raw, { home, env: {} }).recorded).toBe(false)
    expect(rows(home, "SELECT count(*) AS n FROM memory_prompts")).toEqual([{ n: 1 }])
  })

  it("SessionStart prints the project's memory as additionalContext within the budget", () => {
    const home = makeHome({ contextTokens: 120 })
    const files = MemoryConfig.paths(home)
    const db = Sqlite.open(files.database)
    const insert = db.prepare(
      `INSERT INTO memory_observations (session_id, project, type, title, narrative, source, created_at)
       VALUES ('old', ?, ?, ?, 'n', 'model', ?)`
    )
    for (let i = 1; i <= 20; i++) insert.run(project, "discovery", `Finding number ${i}`, 1_700_000_000_000 + i * 1000)
    insert.run("/work/projects/other", "bugfix", "Not this project", 1_800_000_000_000)
    db.close()
    const start = hook(home, "SessionStart", base("SessionStart", { source: "startup" }))
    const output = JSON.parse(start.stdout)
    expect(output.hookSpecificOutput.hookEventName).toBe("SessionStart")
    const context: string = output.hookSpecificOutput.additionalContext
    expect(context).toContain(`Memory of earlier sessions in ${project}`)
    expect(context).toContain("O20 [discovery]")
    expect(context).not.toContain("Not this project")
    // newest first, cut to the budget (about 4 characters a token)
    expect(context.indexOf("Finding number 20")).toBeLessThan(context.indexOf("Finding number 19"))
    expect(context).not.toContain("Finding number 1 ")
    expect(Math.ceil(context.length / 4)).toBeLessThanOrEqual(120)
    // nothing known about a project: no context at all
    const empty = hook(home, "SessionStart", { ...base("SessionStart", { source: "startup" }), cwd: "/elsewhere" })
    expect(JSON.parse(empty.stdout)).toEqual({ continue: true, suppressOutput: true })
  })
})
