/**
 * `acx hook` and `acx memory` as real processes: hook processes record a session and start the
 * worker detached (the bin hands `hook` to its own bundle), the worker records local
 * observations and exits when idle, then status, search, show, timeline, context, forget,
 * retry; hooks from 8 processes at once store every event once; a SIGTERM the moment the worker
 * holds the lock releases it; bad stdin exits 0 with one line.
 *
 * Of the commands that read the memory back, `memory status --json` and a `memory show` that fails
 * go through the BUILT binary (`acx`); the others run the same `run` in this process
 * (`acxInProcess`), a process start each saved.
 */
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { acx, BIN, runWithInput, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { processesWithHome, removeTreeWhenIdle, waitFor } from "./utils/memory.js"

const roots: Array<string> = []
// a worker a hook started may outlive the test's checks: each directory goes once it has exited
afterEach(() => Promise.all(roots.splice(0).map((root) => removeTreeWhenIdle(root))), 70_000)

const makeRoot = (memory: Record<string, unknown> = {}) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-memory-"))
  roots.push(root)
  const home = path.join(root, "acx")
  const project = path.join(root, "shop")
  fs.mkdirSync(home)
  fs.mkdirSync(project)
  fs.writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02, ...memory } })
  )
  return { root, home, project }
}

/** Runs `acx hook <event>` with a JSON stdin, as Claude Code does. */
const hook = (home: string, event: string, input: unknown) =>
  runWithInput(process.execPath, [BIN, "hook", event], typeof input === "string" ? input : JSON.stringify(input), {
    ACX_HOME: home
  })

const count = (home: string, sql: string): number => {
  const db = new Database(path.join(home, "memory.db"), { readonly: true })
  try {
    return (db.prepare(sql).get() as { n: number }).n
  } finally {
    db.close()
  }
}

const input = (project: string, sessionId: string, event: string, extra: Record<string, unknown>) => ({
  session_id: sessionId,
  transcript_path: "",
  cwd: project,
  hook_event_name: event,
  ...extra
})

describe("acx hook and acx memory", () => {
  it("hooks record a session, the worker they start distils it, the CLI reads it back", async () => {
    // idle for long while the hooks run: a hook slower than a short idle timeout (under load) met
    // no worker, started a second one, and the events were split between two "done" lines
    const { home, project } = makeRoot({ workerIdleMinutes: 5 })
    const env = { ACX_HOME: home }
    const at = (event: string, extra: Record<string, unknown>) =>
      hook(home, event, input(project, "s-cli", event, extra))
    const prompt = await at("UserPromptSubmit", { prompt: "Add tax to the cart total" })
    expect(prompt).toEqual({ code: 0, stdout: "{\"continue\":true,\"suppressOutput\":true}\n", stderr: "" })
    await at("PostToolUse", {
      tool_name: "Edit",
      tool_use_id: "t1",
      tool_input: { file_path: path.join(project, "src/cart.ts"), old_string: "a", new_string: "b" },
      tool_response: { filePath: path.join(project, "src/cart.ts") }
    })
    await at("PostToolUseFailure", {
      tool_name: "Bash",
      tool_use_id: "t2",
      tool_input: { command: "npm test -- cart" },
      error: "Exit code 1: expected 108 to equal 100"
    })
    await at("Stop", { stop_hook_active: false })
    await at("SessionEnd", { reason: "prompt_input_exit" })
    // every event is queued: the worker re-reads its settings and exits once idle for a moment
    // (`acx memory worker` once handed the worker the settings it read at its start, which it then
    // never re-read: this wait timed out)
    fs.writeFileSync(
      path.join(home, "config.json"),
      JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02 } })
    )
    // the first hook started the worker, detached; it records and exits when idle
    const log = () =>
      fs.existsSync(path.join(home, "memory-worker.log"))
        ? fs.readFileSync(path.join(home, "memory-worker.log"), "utf8")
        : ""
    // the worker's last line comes after it gave the lock up
    await waitFor(
      "the worker to finish",
      () =>
        count(home, "SELECT count(*) AS n FROM memory_events WHERE state != 'done'") === 0 &&
        count(home, "SELECT count(*) AS n FROM memory_worker WHERE pid IS NOT NULL") === 0 &&
        /acx memory worker: done/.test(log())
    )
    // one worker did it all: the hooks after the first saw it starting
    expect(log()).toMatch(/acx memory worker: done \(\d+ batches, 5 events\)/)

    const status = await acx(["memory", "status", "--json"], { env })
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({
      queue: { pending: 0, done: 5, failed: 0 },
      worker: { running: false },
      sessions: { completed: 1 },
      counts: { summaries: 1, prompts: 1 }
    })
    const human = await acxInProcess(["memory", "status"], { env })
    expect(human.stdout).toContain("queue:    0 pending, 5 done, 0 failed")
    expect(human.stdout).toContain("  mode: \"local\"")
    expect(human.stdout).toContain("model:    none, observations are recorded locally (mode is local)")

    const search = await acxInProcess(["memory", "search", "cart", "--json"], { env })
    const results = JSON.parse(search.stdout) as Array<{ id: string; snippet: string; project: string }>
    expect(results.length).toBeGreaterThan(0)
    expect(results.every((result) => result.project === project)).toBe(true)
    expect(results.some((result) => result.snippet.includes("**cart**"))).toBe(true)
    const none = await acxInProcess(["memory", "search", "cart", "--project", "/elsewhere"], { env })
    expect(none.stdout.trim()).toBe("nothing found for \"cart\"")

    const first = results[0]!.id
    const show = await acxInProcess(["memory", "show", first], { env })
    expect(show.code).toBe(0)
    expect(show.stdout.split("\n")[0]).toMatch(new RegExp(`^${first} \\((observation|summary|prompt)\\)$`))
    const missing = await acx(["memory", "show", "O999"], { env })
    expect([missing.code, missing.stderr.trim()]).toEqual([1, "acx: no entry O999"])
    const bad = await acxInProcess(["memory", "show", "cart"], { env })
    expect(bad.stderr.trim()).toMatch(/^acx: "cart" is not an id/)

    const timeline = await acxInProcess(["memory", "timeline", first], { env })
    expect(timeline.stdout).toContain(`> ${first}`)

    const context = await acxInProcess(["memory", "context", "--project", project], { env })
    expect(context.stdout).toContain(`# Memory of earlier sessions in ${project} (acx)`)
    expect(context.stdout).toContain("[session summary]")
    // exactly what the next SessionStart injects
    const start = await hook(home, "SessionStart", input(project, "s-next", "SessionStart", { source: "startup" }))
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toBe(context.stdout.trimEnd())

    const forget = await acxInProcess(["memory", "forget", "--session", "s-cli"], { env })
    expect(forget.stdout).toMatch(/^forgot \d+ observations?, 1 summary, 1 prompt, 5 events, 1 session$/m)
    const after = await acxInProcess(["memory", "search", "cart"], { env })
    expect(after.stdout.trim()).toBe("nothing found for \"cart\"")
    const nothing = await acxInProcess(["memory", "forget"], { env })
    expect([nothing.code, nothing.stderr.trim()]).toEqual([
      1,
      "acx: say what to forget: --session ID, --project DIR or --before DATE"
    ])
  }, TEST_TIMEOUT_MS)

  it("8 hook processes at once store every event once, duplicates included", async () => {
    const { home, project } = makeRoot({ workerIdleMinutes: 5 })
    // the 8 processes start at once and race for the write lock; each later call races again with
    // the writers still going (duplicates of writers 0-3 and 4-7 included): 3 calls each keep every
    // writer overlapping the others at half the process starts of 6
    const writers = 8
    const perWriter = 3
    await Promise.all(Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; i < perWriter; i++) {
        const call = input(project, `s-${writer % 2}`, "PostToolUse", {
          tool_name: "Read",
          // writers 0-3 and 4-7 deliver the same calls: each stored once
          tool_use_id: `t-${writer % 4}-${i}`,
          tool_input: { file_path: path.join(project, `f${i}.ts`) },
          tool_response: "ok"
        })
        const result = await hook(home, "PostToolUse", call)
        expect(result.code).toBe(0)
      }
    }))
    expect(count(home, "SELECT count(*) AS n FROM memory_events")).toBe(4 * perWriter)
    expect(count(home, "SELECT count(DISTINCT idempotency_key) AS n FROM memory_events")).toBe(4 * perWriter)
    // the workers the hooks started: one won the lock
    await waitFor(
      "one worker",
      () => count(home, "SELECT count(*) AS n FROM memory_worker WHERE pid IS NOT NULL") === 1
    )
    const pid = count(home, "SELECT pid AS n FROM memory_worker")
    // a worker a hook started late (a start slower than the spawn grace, under load) finds the
    // lock held and exits; stopped before it claims, the first would hand it the lock
    await waitFor("the other workers to exit", () => processesWithHome(home).join() === String(pid))
    process.kill(pid, "SIGTERM")
    await waitFor(
      "the worker to stop",
      () => count(home, "SELECT count(*) AS n FROM memory_worker WHERE pid IS NOT NULL") === 0
    )
  }, TEST_TIMEOUT_MS)

  it("a SIGTERM the moment the worker holds the lock stops it gracefully and frees the lock", async () => {
    // the worker used to listen for signals in a fiber raced with its work: a SIGTERM after it
    // took the lock and before that fiber ran killed it holding the lock, and the next hooks saw a
    // dead worker's pid until the heartbeat went stale. The kill comes the moment the pid shows
    const { home } = makeRoot({ workerIdleMinutes: 5 })
    const database = path.join(home, "memory.db")
    const lockHolder = (): number | null => {
      try {
        return count(home, "SELECT pid AS n FROM memory_worker WHERE id = 1")
      } catch {
        return null // not created yet, or being migrated
      }
    }
    for (let round = 0; round < 3; round++) {
      const worker = spawn(process.execPath, [BIN, "memory", "worker"], {
        env: { ...process.env, ACX_HOME: home },
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      worker.stderr.on("data", (chunk) => (stderr += chunk))
      const exited = new Promise<number | null>((resolve) => worker.on("exit", (code) => resolve(code)))
      let holder: number | null = null
      const deadline = Date.now() + 60_000
      // a tight loop on purpose: each read is a synchronous SQLite query, the kill follows at once
      while (holder === null && Date.now() < deadline && worker.exitCode === null) {
        holder = fs.existsSync(database) ? lockHolder() : null
        if (holder === null) await new Promise((resolve) => setImmediate(resolve))
      }
      expect(holder).toBe(worker.pid)
      worker.kill("SIGTERM")
      expect(await exited).toBe(0)
      expect(stderr).toContain("acx memory worker: stopped by SIGTERM")
      expect(lockHolder()).toBeNull()
    }
  }, TEST_TIMEOUT_MS)

  it("a hook with bad stdin prints the neutral answer, one line on stderr, and exits 0", async () => {
    const { home, project } = makeRoot()
    for (const stdin of ["", "not json", "[]", JSON.stringify(input(project, "s", "Stop", {}))]) {
      const result = await hook(home, "PostToolUse", stdin)
      expect(result.code).toBe(0)
      expect(result.stdout).toBe("{\"continue\":true,\"suppressOutput\":true}\n")
      expect(result.stderr.trim().split("\n")).toHaveLength(1)
      expect(result.stderr).toMatch(/^acx hook PostToolUse: /)
    }
    const big = await hook(home, "PostToolUse", "x".repeat(50 * 1024 * 1024))
    expect([big.code, big.stderr.trim()]).toEqual([
      0,
      "acx hook PostToolUse: stdin is larger than 16777216 bytes (memory.maxHookInputBytes): nothing recorded"
    ])
    expect(fs.existsSync(path.join(home, "memory.db"))).toBe(false)
  }, TEST_TIMEOUT_MS)
})
