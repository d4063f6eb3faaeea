/**
 * `acx chat` tells the truth about a turn the API does not answer, on the REAL Claude Code CLI:
 * every retry is shown on stderr as it happens (attempt, delay, why), a turn that fails for good
 * is ONE line and exit 1 — not an "API Error" answer on stdout, a "success" on stderr and exit 0
 * — and a retry that succeeds is just an answer (429 and 529 keep their retries); an address that
 * refuses the connection or does not resolve ends the turn at the first retry, with the cause and
 * the base URL, instead of minutes of retries; on a terminal the line is shown and the chat goes on. The CLI's retries are bounded here with its own
 * setting (`CLAUDE_CODE_MAX_RETRIES=2`); a user's default stays. No Node warning on stderr
 * (`--allowed-tools Bash` used to shadow the permission callback), in the default permission mode,
 * `acceptEdits` and `dontAsk` (the SDK warns as the query starts, whatever the turn then does). With
 * `CLAUDE_CODE_PROJECT_DIR_NAME`, the chat's transcript, its store key and `acx sessions
 * --project <path>` all agree on the named project directory.
 *
 * Every chat starts the real Claude Code (≈1 CPU-second): a run is shared by the checks that only
 * read its output.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, BIN, SPAWN_TIMEOUT_MS, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { onTerminal } from "./utils/terminal.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] acx chat retry tests skipped: ${claude.reason}`)
const skipWithout = claude.available ? it : it.skip

const RETRIES = 2
const RETRY_LINE = /^acx: the API call failed \((.+)\); retry (\d+) of (\d+) in \d+\.\ds$/

let double: ModelDouble.ModelDoubleHandle
let root: string
let project: string
let env: Record<string, string>

beforeAll(async () => {
  double = await ModelDouble.startModelDouble({ script: [] })
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-chat-truth-"))
  project = path.join(root, "project")
  fs.mkdirSync(project)
  fs.mkdirSync(path.join(root, "home", ".claude"), { recursive: true })
  if (!claude.available) return
  const real = await realClaude({ baseUrl: double.url, path: claude.path })
  env = {
    ...real.env(path.join(root, "home")),
    ACX_CLAUDE_PATH: claude.path,
    ACX_HOME: path.join(root, "acx-home"),
    CLAUDE_CODE_MAX_RETRIES: String(RETRIES)
  }
})
afterAll(async () => {
  await double.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const chat = (input: string, extra: Record<string, string> = {}, args: ReadonlyArray<string> = []) =>
  acx(["chat", "--store", `sqlite:${path.join(root, "chat.db")}`, "--model", "claude-sonnet-4-5", ...args], {
    cwd: project,
    env: { ...env, ...extra },
    input
  })

/** The stderr lines that are neither a retry nor the closing `session: <uuid>`. */
const otherLines = (result: AcxResult) =>
  result.stderrLines.filter((line) => !RETRY_LINE.test(line) && !/^session: [0-9a-f-]{36}$/.test(line))

const retryLines = (result: AcxResult) => result.stderrLines.filter((line) => RETRY_LINE.test(line))

const always = (answer: ModelDouble.ModelAnswer): ModelDouble.Script => [
  { when: ModelDouble.isSideCall, reply: { content: "A title" }, times: Infinity },
  { reply: answer, times: Infinity }
]

describe("acx chat tells the truth", () => {
  skipWithout("connection refused: at the first retry, one line with the cause and the URL, exit 1", async () => {
    // Claude Code's own default, 10 retries with backoff (minutes): acx stops after the first
    const result = await chat("hi\nnever sent\n", {
      ANTHROPIC_BASE_URL: "http://127.0.0.1:1",
      CLAUDE_CODE_MAX_RETRIES: "10"
    }, ["--allowed-tools", "Bash"])
    expect(result.code, result.stderr).toBe(1)
    expect(result.stdout).toBe("")
    // one failed attempt, one retry announced: then acx looked, and ended the turn
    expect(retryLines(result).map((line) => RETRY_LINE.exec(line)!.slice(1))).toEqual([
      ["no response", "1", "10"]
    ])
    expect(otherLines(result)).toEqual(["acx: cannot reach the API at http://127.0.0.1:1: connection refused"])
    expect(result.stderr).not.toContain("Warning")
    expect(result.stderr).not.toContain("success")
  }, TEST_TIMEOUT_MS)

  skipWithout("a host that does not resolve: at the first retry, one line naming the DNS failure, exit 1", async () => {
    const result = await chat("hi\n", {
      ANTHROPIC_BASE_URL: "http://acx-no-such-host.invalid",
      CLAUDE_CODE_MAX_RETRIES: "10"
    })
    expect(result.code, result.stderr).toBe(1)
    expect(retryLines(result)).toHaveLength(1)
    expect(otherLines(result)).toEqual([
      expect.stringMatching(
        /^acx: cannot reach the API at http:\/\/acx-no-such-host\.invalid: DNS lookup of acx-no-such-host\.invalid failed \((ENOTFOUND|EAI_AGAIN)\)$/
      )
    ])
  }, TEST_TIMEOUT_MS)

  skipWithout("429 twice, then an answer: both retries shown as they happen, the answer, exit 0", async () => {
    double.setScript([
      { when: ModelDouble.isSideCall, reply: { content: "A title" }, times: Infinity },
      { reply: { error: { status: 429, type: "rate_limit_error", message: "slow down" } }, times: 2 },
      { reply: { content: "Answered after the rate limit." }, times: Infinity }
    ])
    double.clearRequests()
    const result = await chat("hi\n", { CLAUDE_CODE_MAX_RETRIES: "10" })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("Answered after the rate limit.\n")
    expect(retryLines(result).map((line) => RETRY_LINE.exec(line)!.slice(1))).toEqual([
      ["429 rate limited", "1", "10"],
      ["429 rate limited", "2", "10"]
    ])
    expect(otherLines(result)).toEqual([])
    expect(double.agentRequests()).toHaveLength(3)
  }, TEST_TIMEOUT_MS)

  skipWithout(
    "a 400 the CLI does not retry: no retry line, the API's words as the one line; no Node warning (dontAsk)",
    async () => {
      double.setScript(
        always({ error: { status: 400, type: "invalid_request_error", message: "the double refuses this request" } })
      )
      // with bare tool names in dontAsk (a mode that never asks): no Node warning either
      const result = await chat("hi\n", {}, ["--allowed-tools", "Bash", "--permission-mode", "dontAsk"])
      expect(result.code, result.stderr).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).not.toMatch(/Warning|CLAUDE_SDK_|trace-warnings/)
      expect(retryLines(result)).toEqual([])
      expect(otherLines(result)).toEqual([
        expect.stringMatching(/^acx: API Error: 400\b.*the double refuses this request/)
      ])
    },
    TEST_TIMEOUT_MS
  )

  skipWithout(
    "a 500 once, then an answer: the retry shown, the answer on stdout, exit 0; no Node warning (--allowed-tools Bash,Read)",
    async () => {
      double.setScript([
        { when: ModelDouble.isSideCall, reply: { content: "A title" }, times: Infinity },
        { reply: { error: { status: 500, message: "boom" } } },
        { reply: { content: "Answered after a retry." }, times: Infinity }
      ])
      // with bare tool names in the default mode (one that asks): no Node warning
      const result = await chat("hi\n", {}, ["--allowed-tools", "Bash,Read"])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe("Answered after a retry.\n")
      expect(result.stderr).not.toMatch(/Warning|CLAUDE_SDK_|trace-warnings/)
      expect(retryLines(result)).toEqual([
        expect.stringMatching(/^acx: the API call failed \(500 server error\); retry 1 of 2 in/)
      ])
      expect(otherLines(result)).toEqual([])
    },
    TEST_TIMEOUT_MS
  )

  skipWithout(
    "529 overloaded every time: each retry line shown as it happens, with the status; the CLI's error as the one line",
    async () => {
      double.setScript(always(ModelDouble.overloaded))
      double.clearRequests()
      // the first retry line is written before the retry's request: had it waited for the turn's
      // end, the double would have seen all three requests by then
      const child = spawn(process.execPath, [BIN, "chat", "--store", `sqlite:${path.join(root, "live.db")}`], {
        cwd: project,
        env: { ...process.env, ...env, NO_COLOR: "1" },
        stdio: ["pipe", "pipe", "pipe"],
        timeout: SPAWN_TIMEOUT_MS,
        killSignal: "SIGKILL"
      })
      let stdout = ""
      let stderr = ""
      let requestsAtFirstRetry: number | undefined
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
        if (requestsAtFirstRetry === undefined && /retry 1 of 2/.test(stderr)) {
          requestsAtFirstRetry = double.agentRequests().length
        }
      })
      child.stdin.end("hi\n")
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
      const result: AcxResult = {
        code,
        signal: null,
        stdout,
        stderr,
        stderrLines: stderr.split("\n").filter((line) => line.trim() !== "")
      }
      expect(result.code, result.stderr).toBe(1)
      expect(result.stdout).toBe("")
      expect(retryLines(result)).toEqual([
        expect.stringMatching(/^acx: the API call failed \(529 overloaded\); retry 1 of 2 in/),
        expect.stringMatching(/^acx: the API call failed \(529 overloaded\); retry 2 of 2 in/)
      ])
      expect(otherLines(result)).toEqual([
        expect.stringMatching(/^acx: API Error: 529 Overloaded\b.*\(after 2 retries\)$/)
      ])
      expect(requestsAtFirstRetry).toBe(1)
      expect(double.agentRequests().length).toBe(RETRIES + 1)
    },
    TEST_TIMEOUT_MS
  )

  skipWithout("on a terminal a failed turn is one line and the chat goes on", async () => {
    const terminal = onTerminal([process.execPath, BIN, "chat", "--store", `sqlite:${path.join(root, "tty.db")}`], {
      cwd: project,
      env: {
        ...process.env,
        ...env,
        NO_COLOR: "1",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:1",
        CLAUDE_CODE_MAX_RETRIES: "1"
      }
    })
    try {
      await terminal.waitFor("/exit (or Ctrl-D) to end")
      terminal.type("hi\r")
      await terminal.waitFor("acx: cannot reach the API at http://127.0.0.1:1: connection refused")
      terminal.type("/exit\r")
      const code = await terminal.exited
      const output = terminal.output()
      expect(code, output).toBe(0)
      expect(output).toContain("retry 1 of 1")
      expect(output.match(/acx: cannot reach the API/g)).toHaveLength(1)
      expect(output).toMatch(/session: [0-9a-f-]{36}/)
    } finally {
      terminal.child.kill("SIGKILL")
    }
  }, TEST_TIMEOUT_MS)

  skipWithout(
    "CLAUDE_CODE_PROJECT_DIR_NAME: transcript, store key and --project <path> all name projects/my_proj; no Node warning (acceptEdits)",
    async () => {
      double.setScript(always({ content: "Hello." }))
      const configDir = path.join(root, "home", ".claude")
      const named = { CLAUDE_CONFIG_DIR: configDir, CLAUDE_CODE_PROJECT_DIR_NAME: "my_proj" }
      const db = path.join(root, "named.db")
      // with bare tool names in acceptEdits (a mode that asks): no Node warning
      const result = await acx(
        ["chat", "--store", `sqlite:${db}`, "--allowed-tools", "Bash", "--permission-mode", "acceptEdits"],
        { cwd: project, env: { ...env, ...named }, input: "hi\n" }
      )
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).not.toMatch(/Warning|CLAUDE_SDK_|trace-warnings/)
      const sessionId = result.stderrLines.find((line) => line.startsWith("session: "))!.slice("session: ".length)
      expect(fs.existsSync(path.join(configDir, "projects", "my_proj", `${sessionId}.jsonl`))).toBe(true)
      const store = createSqliteSessionStore({ filename: db })
      try {
        expect((await store.load({ projectKey: "my_proj", sessionId }))?.length ?? 0).toBeGreaterThan(0)
      } finally {
        await store.close()
      }
      const listed = await acx(["sessions", "--project", project, "--json"], { env: named })
      expect(listed.code, listed.stderr).toBe(0)
      expect((JSON.parse(listed.stdout) as Array<{ sessionId: string }>).map((s) => s.sessionId)).toContain(sessionId)
    },
    TEST_TIMEOUT_MS
  )
})
