/**
 * `acx chat` driven through stdin on the REAL Claude Code CLI (offline, against the model double):
 * two prompts answered by ONE process, the answers on stdout, tool calls and `session: <uuid>` on
 * stderr; `--resume ID` with the local transcripts deleted continues from the store (the model is
 * shown the first two prompts); a tool that needs permission is denied when stdin is not a
 * terminal, with one line saying how to allow it.
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { onTerminal } from "./utils/terminal.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] acx chat tests skipped: ${claude.reason}`)

const texts = (request: ModelDouble.ModelRequest): ReadonlyArray<string> =>
  (request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }>).flatMap((message) =>
    message.role !== "user" || typeof message.content === "string"
      ? message.role === "user" ? [message.content as string] : []
      : (message.content as ReadonlyArray<{ type: string; text?: string }>).flatMap((block) =>
        block.type === "text" && block.text !== undefined ? [block.text] : []
      )
  )

/** The last user message has a text block with `text` (the CLI may add reminder blocks of its own) and no tool result. */
const says = (text: string) => (request: ModelDouble.ModelRequest): boolean => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }>
  const last = messages.at(-1)
  if (last === undefined || last.role !== "user" || ModelDouble.lastMessageHasToolResult(request)) return false
  return typeof last.content === "string"
    ? last.content.includes(text)
    : (last.content as ReadonlyArray<{ type: string; text?: string }>).some((block) =>
      block.type === "text" && block.text?.includes(text) === true
    )
}

const script: ModelDouble.Script = [
  { when: ModelDouble.isSideCall, reply: { content: "A title" }, times: Infinity },
  {
    when: says("List the files"),
    reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }] }
  },
  {
    when: says("Create a file"),
    reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "touch created.txt" } }] },
    times: Infinity
  },
  { when: says("Say hello"), reply: { content: "Hello from the double." } },
  {
    when: says("What did I ask?"),
    reply: { content: "You asked me to list the files and to say hello." }
  },
  { when: ModelDouble.lastMessageHasToolResult, reply: { content: "There is one file: notes.txt." }, times: Infinity }
]

let double: ModelDouble.ModelDoubleHandle
let root: string
let env: Record<string, string>
let spawnLog: string

beforeAll(async () => {
  double = await ModelDouble.startModelDouble({ script })
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-chat-"))
  fs.mkdirSync(path.join(root, "project"))
  fs.writeFileSync(path.join(root, "project", "notes.txt"), "hello\n")
  if (!claude.available) return
  const real = await realClaude({ baseUrl: double.url, path: claude.path })
  spawnLog = path.join(root, "spawns.log")
  const wrapper = path.join(root, "claude-wrapper")
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$$" >> '${spawnLog}'\nexec '${claude.path}' "$@"\n`, { mode: 0o755 })
  env = { ...real.env(path.join(root, "home")), ACX_CLAUDE_PATH: wrapper, ACX_HOME: path.join(root, "acx-home") }
  fs.mkdirSync(path.join(root, "home", ".claude"), { recursive: true })
})
afterAll(async () => {
  await double.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const spawns = () => fs.readFileSync(spawnLog, "utf8").trim().split("\n").length
const skipWithout = claude.available ? it : it.skip

describe("acx chat on the real Claude Code CLI", () => {
  skipWithout("two prompts on one process; then --resume with the local transcripts deleted", async () => {
    const store = `sqlite:${path.join(root, "chat.db")}`
    const cwd = path.join(root, "project")
    const first = await acx(["chat", "--store", store, "--model", "claude-sonnet-4-5", "--allowed-tools", "Bash"], {
      cwd,
      env,
      input: "List the files\nSay hello\n"
    })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe("There is one file: notes.txt.\nHello from the double.\n")
    expect(first.stderrLines).toContain("⏺ Bash(ls)")
    // --allowed-tools Bash is allowed by acx's permission callback, not an SDK rule that shadows it
    expect(first.stderr).not.toMatch(/Warning|CLAUDE_SDK_CAN_USE_TOOL_SHADOWED/)
    const sessionLine = first.stderrLines.find((line) => line.startsWith("session: "))
    expect(sessionLine).toMatch(/^session: [0-9a-f-]{36}$/)
    expect(spawns()).toBe(1)

    fs.rmSync(path.join(root, "home", ".claude", "projects"), { recursive: true, force: true })
    const id = sessionLine!.slice("session: ".length)
    const resumed = await acx(["chat", "--store", store, "--resume", id, "--model", "claude-sonnet-4-5"], {
      cwd,
      env,
      input: "What did I ask?\n/cost\n/exit\nnever sent\n"
    })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toBe("You asked me to list the files and to say hello.\n")
    expect(resumed.stderrLines).toContain(`session: ${id}`)
    expect(resumed.stderrLines.some((line) => /^cost: (\$\d+\.\d{2}|<\$0\.01) over 1 turn/.test(line))).toBe(true)
    const last = double.agentRequests().at(-1)!
    expect(texts(last)).toEqual(expect.arrayContaining(["List the files", "Say hello", "What did I ask?"]))
    expect(double.agentRequests().some((request) => texts(request).includes("never sent"))).toBe(false)
    expect(spawns()).toBe(2)
  }, TEST_TIMEOUT_MS)

  skipWithout("a tool that needs permission is denied without a terminal, saying how to allow it", async () => {
    const result = await acx([
      "chat",
      "--store",
      `sqlite:${path.join(root, "deny.db")}`,
      "--model",
      "claude-sonnet-4-5"
    ], {
      cwd: path.join(root, "project"),
      env,
      input: "Create a file\n"
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderrLines).toContain("acx: denied Bash(touch created.txt): allow it with --allowed-tools Bash")
    expect(fs.existsSync(path.join(root, "project", "created.txt"))).toBe(false)
    // the prompt line was never taken as an answer: the model got the denial as the tool's result
    const denied = double.agentRequests().at(-1)!
    expect(JSON.stringify(denied.body["messages"])).toContain("did not allow Bash")
  }, TEST_TIMEOUT_MS)

  skipWithout("on a terminal a tool that needs permission is asked about, and allowed by the answer", async () => {
    const cwd = path.join(root, "project")
    const terminal = onTerminal(
      [process.execPath, BIN, "chat", "--store", `sqlite:${path.join(root, "tty.db")}`, "--model", "claude-sonnet-4-5"],
      { cwd, env: { ...process.env, ...env, NO_COLOR: "1" } }
    )
    try {
      await terminal.waitFor("/exit (or Ctrl-D) to end")
      terminal.type("Create a file\r")
      await terminal.waitFor("Allow Bash(touch created.txt)? [y/N]")
      terminal.type("y\r")
      await terminal.waitFor("There is one file: notes.txt.")
      terminal.type("/exit\r")
      await terminal.waitFor("session: ")
      expect(fs.existsSync(path.join(cwd, "created.txt"))).toBe(true)
    } finally {
      terminal.child.kill("SIGKILL")
      fs.rmSync(path.join(cwd, "created.txt"), { force: true })
    }
  }, TEST_TIMEOUT_MS)

  it("rejects a bad --store with one line and exit 2", async () => {
    const result = await acx(["chat", "--store", "mysql://x"], { input: "" })
    expect(result.code).toBe(2)
    expect(result.stderrLines).toEqual([
      expect.stringMatching(/^acx: --store: expected sqlite:FILE, a FILE\.db \/ FILE\.sqlite path, or postgres:\/\/URL/)
    ])
  }, TEST_TIMEOUT_MS)
})
