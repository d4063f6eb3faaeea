/**
 * `acx hook` never holds Claude Code up on its stdin (real processes, the built bundle): a writer
 * that sends its payload and keeps the pipe open for 8 s, a writer that stalls halfway, and a
 * writer with 100 MB. The hook answers and exits while each writer still holds the pipe open;
 * of the 100 MB it takes no more than the cap and what the pipe buffers.
 */
import Database from "better-sqlite3"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { BIN, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeHomeWhenIdle } from "./utils/memory.js"

const roots: Array<string> = []
// the hook may have started the memory worker, detached: it goes before its home does
afterEach(() => Promise.all(roots.splice(0).map((root) => removeHomeWhenIdle(root))), 70_000)

const makeHome = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-stdin-"))
  roots.push(home)
  // a worker a hook starts exits soon after it is idle, so the home can go
  fs.writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02 } })
  )
  return home
}

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The hook had exited before the writer closed its end of the pipe. */
  readonly exitedWhileOpen: boolean
  /** Bytes the pipe accepted from the writer. */
  readonly written: number
}

/**
 * Runs `acx hook <event>` with a writer that sends `chunks` (waiting for the pipe to drain), then
 * holds the pipe open for `holdMs` before closing it. The writer stops at the first write the
 * pipe refuses (the hook closed its end).
 */
const hookWithWriter = (home: string, event: string, chunks: Iterable<Buffer>, holdMs: number) =>
  new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "hook", event], {
      env: { ...process.env, ACX_HOME: home },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let written = 0
    let closedByWriter = false
    let exited = false
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.on("error", () => {}) // EPIPE once the hook stopped reading: expected
    child.on("error", reject)
    const hold = setTimeout(() => {
      closedByWriter = !exited
      child.stdin.end()
    }, holdMs)
    child.on("close", (code, signal) => {
      exited = true
      clearTimeout(hold)
      resolve({ code, signal, stdout, stderr, exitedWhileOpen: !closedByWriter, written })
    })
    void (async () => {
      for (const chunk of chunks) {
        if (exited || child.stdin.destroyed) return
        const accepted = await new Promise<boolean>((done) => child.stdin.write(chunk, (error) => done(!error)))
        if (!accepted) return
        written += chunk.length
      }
    })()
  })

const payload = (event: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(`${
    JSON.stringify({
      session_id: "s-stdin",
      transcript_path: "",
      cwd: "/work/projects/shop",
      hook_event_name: event,
      ...extra
    })
  }\n`)

const events = (home: string) => {
  const db = new Database(path.join(home, "memory.db"), { readonly: true })
  try {
    return db.prepare("SELECT kind FROM memory_events").all() as Array<{ kind: string }>
  } finally {
    db.close()
  }
}

describe("acx hook reads stdin with a deadline and a cap", () => {
  it("a writer that sends its payload, then keeps the pipe open 8 s: recorded, the hook already gone", async () => {
    const home = makeHome()
    const run = await hookWithWriter(home, "Stop", [payload("Stop", { last_assistant_message: "Done." })], 8_000)
    expect([run.code, run.stderr]).toEqual([0, ""])
    expect(JSON.parse(run.stdout)).toEqual({ continue: true, suppressOutput: true })
    expect(run.exitedWhileOpen).toBe(true)
    expect(events(home)).toEqual([{ kind: "summarise" }])
  }, TEST_TIMEOUT_MS)

  it(
    "a writer that stalls halfway (a socket, as Claude Code gives): the hook answers at its deadline with one line and ends",
    async () => {
      const home = makeHome()
      const half = payload("UserPromptSubmit", { prompt: "hello" }).subarray(0, 40)
      const run = await hookWithWriter(home, "UserPromptSubmit", [half], 8_000)
      // its read of the socket is still in progress and Node cannot cancel it: the hook, its answer
      // written, ends itself rather than wait for the writer
      expect([run.code, run.signal]).toEqual([null, "SIGKILL"])
      expect(JSON.parse(run.stdout)).toEqual({ continue: true, suppressOutput: true })
      expect(run.exitedWhileOpen).toBe(true)
      expect(run.stderr.trim()).toMatch(/^acx hook UserPromptSubmit: stdin did not end within \d+ ms \(40 bytes read\)/)
      expect(fs.existsSync(path.join(home, "memory.db"))).toBe(false)
    },
    TEST_TIMEOUT_MS
  )

  it(
    "a writer that stalls halfway on a shell pipe: the hook gives up at its deadline with one line, exit 0",
    async () => {
      const home = makeHome()
      const half = path.join(home, "half.json")
      fs.writeFileSync(half, payload("UserPromptSubmit", { prompt: "hello" }).subarray(0, 40))
      const started = Date.now()
      const run = spawnSync(
        "sh",
        [
          "-c",
          `{ cat "${half}"; sleep 8; } | "${process.execPath}" "${BIN}" hook UserPromptSubmit; echo "exit $? after $(( $(date +%s) - ${
            Math.floor(started / 1000)
          } )) s" >&2`
        ],
        { env: { ...process.env, ACX_HOME: home }, encoding: "utf8", timeout: 60_000 }
      )
      // the shell waits for both sides: what matters is the hook's own exit status, and its answer
      expect(run.stderr).toMatch(/^acx hook UserPromptSubmit: stdin did not end within \d+ ms \(40 bytes read\)/)
      expect(run.stderr).toMatch(/exit 0 after/)
      expect(JSON.parse(run.stdout)).toEqual({ continue: true, suppressOutput: true })
      expect(fs.existsSync(path.join(home, "memory.db"))).toBe(false)
    },
    TEST_TIMEOUT_MS
  )

  it("100 MB on stdin: the hook stops at the cap while reading, refuses it in one line", async () => {
    const home = makeHome()
    const total = 100 * 1024 * 1024
    const chunk = Buffer.alloc(1024 * 1024, "x")
    const chunks = Array.from({ length: total / chunk.length }, () => chunk)
    const run = await hookWithWriter(home, "PostToolUse", chunks, 60_000)
    expect(run.code).toBe(0)
    expect(run.exitedWhileOpen).toBe(true)
    expect(run.stderr.trim()).toBe(
      "acx hook PostToolUse: stdin is larger than 16777216 bytes (memory.maxHookInputBytes): nothing recorded"
    )
    // the cap, plus what a pipe and the last chunks in flight hold
    console.log(`acx hook took ${(run.written / 1024 / 1024).toFixed(1)} MB of the 100 MB offered`)
    expect(run.written).toBeLessThan(16 * 1024 * 1024 + 8 * 1024 * 1024)
    expect(fs.existsSync(path.join(home, "memory.db"))).toBe(false)
  }, TEST_TIMEOUT_MS)
})
