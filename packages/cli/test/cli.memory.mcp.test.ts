/**
 * `acx memory mcp` as Claude Code 2.1.330+ meets it. The real CLI opens every stdio server with
 * `server/discover` (MCP 2026-07-28) under a string id and waits out a ~2.8 s probe timeout when
 * the answer does not carry that id; the server used to answer with the error code in `id`, and
 * to drop every string-id request (`Cannot convert warm-0 to a BigInt`).
 *
 * - raw JSON-RPC over the spawned process: discover, string and number ids echoed exactly,
 *   -32601 for an unknown method, -32700/-32600 for lines that are not requests, and the server
 *   keeps answering after them;
 * - the official MCP TypeScript client: its transport with string ids, its `Client` (number
 *   ids, `initialize`) listing and calling the tools;
 * - the real Claude Code CLI: `claude mcp list` shows the server Connected, and the request after
 *   discover (logged by a tap on the server's stdin) is a stateless request, not the fallback
 *   `initialize`, sent well inside the probe timeout; a print-mode session whose scripted model
 *   calls `mcp__acx-memory__search` gets the memory's answer back.
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import Database from "better-sqlite3"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeTreeWhenIdle } from "./utils/memory.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

/** Claude Code's probe timeout for `server/discover` on stdio, before it falls back to `initialize`. */
const PROBE_TIMEOUT_MS = 2_800

const PROMPT = "Round the cart tax to whole cents"

let root: string
let acxHome: string
let project: string

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-mcp-"))
  acxHome = path.join(root, "acx")
  project = path.join(root, "shop")
  fs.mkdirSync(acxHome)
  fs.mkdirSync(project)
  fs.writeFileSync(
    path.join(acxHome, "config.json"),
    JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02 } })
  )
  // one prompt in the memory, recorded the way Claude Code's hook records it
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "hook", "UserPromptSubmit"], {
      env: { ...process.env, ACX_HOME: acxHome },
      stdio: ["pipe", "ignore", "ignore"]
    })
    child.on("error", reject)
    child.on("close", () => resolve())
    child.stdin.end(JSON.stringify({
      session_id: "s-mcp",
      transcript_path: "",
      cwd: project,
      hook_event_name: "UserPromptSubmit",
      prompt: PROMPT
    }))
  })
  const db = new Database(path.join(acxHome, "memory.db"), { readonly: true })
  try {
    expect((db.prepare("SELECT count(*) AS n FROM memory_prompts").get() as { n: number }).n).toBe(1)
  } finally {
    db.close()
  }
}, 60_000)

afterAll(() => removeTreeWhenIdle(root), 70_000)

/** `acx memory mcp` with lines written one at a time; resolves with every line it answered. */
const exchange = async (lines: ReadonlyArray<string>, expected: number) => {
  const child = spawn(process.execPath, [BIN, "memory", "mcp"], {
    env: { ...process.env, ACX_HOME: acxHome },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const answers = new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${expected} answers; got:\n${stdout}\nstderr:\n${stderr}`)),
      30_000
    )
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const complete = stdout.split("\n").filter((line) => line.trim() !== "")
      if (stdout.endsWith("\n") && complete.length >= expected) {
        clearTimeout(timer)
        resolve(complete.map((line) => JSON.parse(line) as Record<string, unknown>))
      }
    })
  })
  for (const line of lines) child.stdin.write(`${line}\n`)
  try {
    return { answers: await answers, stderr: () => stderr }
  } finally {
    child.stdin.end()
    await new Promise((resolve) => child.once("close", resolve))
  }
}

const rpc = (id: unknown, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

describe("acx memory mcp speaks JSON-RPC 2.0 as clients send it", () => {
  it(
    "answers server/discover, string and number ids, unknown methods and bad lines, each under its own id",
    async () => {
      const { answers, stderr } = await exchange([
        rpc("server-discover-probe-1", "server/discover", {
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
        }),
        rpc("warm-0", "ping"),
        "not json",
        rpc(7, "resources/unknown"),
        rpc(8, "ping"),
        JSON.stringify([1, 2]),
        rpc("call-1", "tools/call", {
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
          name: "search",
          arguments: { query: "cart tax" }
        }),
        rpc("warm-0", "ping")
      ], 8)
      const byId = (id: unknown) => answers.filter((answer) => answer["id"] === id)
      expect(byId("server-discover-probe-1")).toEqual([{
        jsonrpc: "2.0",
        id: "server-discover-probe-1",
        result: {
          resultType: "complete",
          supportedVersions: ["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"],
          capabilities: { tools: {} },
          instructions: expect.stringContaining("search_sessions"),
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "acx-memory", version: expect.any(String) } }
        }
      }])
      expect(byId("warm-0")).toEqual([{ jsonrpc: "2.0", id: "warm-0", result: {} }, {
        jsonrpc: "2.0",
        id: "warm-0",
        result: {}
      }])
      expect(byId(7)).toEqual([{
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32601, message: "Method not found: resources/unknown" }
      }])
      expect(byId(8)).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }])
      expect(byId(null).map((answer) => (answer["error"] as { code: number }).code).sort()).toEqual([-32600, -32700])
      const call = byId("call-1")[0]!["result"] as {
        resultType: string
        structuredContent: { results: Array<{ kind: string; snippet: string }> }
      }
      expect(call.resultType).toBe("complete")
      expect(call.structuredContent.results.map((result) => result.kind)).toContain("prompt")
      expect(stderr()).not.toContain("BigInt")
    },
    TEST_TIMEOUT_MS
  )

  it(
    "60 requests written at once, string and number ids mixed and repeated: each answered once, under its id",
    async () => {
      const ids = Array.from({ length: 60 }, (_, i) => i % 3 === 0 ? i % 9 : i % 3 === 1 ? `req-${i % 7}` : `${i}`)
      const lines = ids.map((id, i) =>
        i % 2 === 0
          ? rpc(id, "ping")
          : rpc(id, "tools/call", { name: "search", arguments: { query: "cart" } })
      )
      // one write: the server reads them in any chunking
      const { answers } = await exchange([lines.join("\n")], ids.length)
      expect(answers.map((answer) => answer["id"]).sort()).toEqual([...ids].sort())
      expect(answers.every((answer) => "result" in answer)).toBe(true)
    },
    TEST_TIMEOUT_MS
  )

  it(
    "a client that writes its requests and closes stdin gets every answer, then the server exits by itself",
    async () => {
      const result = await acx(["memory", "mcp"], {
        env: { ACX_HOME: acxHome },
        input: [
          rpc("server-discover-probe-1", "server/discover"),
          rpc("warm-0", "ping"),
          rpc(3, "tools/call", { name: "search", arguments: { query: "cart tax" } })
        ].join("\n") + "\n"
      })
      expect(result.code, result.stderr).toBe(0)
      const answers = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: unknown })
      expect(answers.map((answer) => answer.id).sort()).toEqual([3, "server-discover-probe-1", "warm-0"].sort())
    },
    TEST_TIMEOUT_MS
  )

  it("the official MCP client: its transport with string ids, its Client with number ids", async () => {
    const env = { ...process.env, ACX_HOME: acxHome } as Record<string, string>
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "memory", "mcp"],
      env,
      stderr: "pipe"
    })
    const received: Array<JSONRPCMessage> = []
    const twoAnswers = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`answers: ${JSON.stringify(received)}`)), 30_000)
      transport.onmessage = (message) => {
        received.push(message)
        if (received.length === 2) {
          clearTimeout(timer)
          resolve()
        }
      }
    })
    await transport.start()
    try {
      await transport.send({ jsonrpc: "2.0", id: "warm-0", method: "ping" })
      await transport.send({ jsonrpc: "2.0", id: "list-1", method: "tools/list" })
      await twoAnswers
    } finally {
      await transport.close()
    }
    expect(received.map((message) => "id" in message ? message.id : undefined).sort()).toEqual(["list-1", "warm-0"])

    const client = new Client({ name: "acx-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "memory", "mcp"], env, stderr: "pipe" })
    )
    try {
      expect(client.getServerVersion()?.name).toBe("acx-memory")
      const tools = await client.listTools()
      expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
        "get_observations",
        "get_session_turns",
        "search",
        "search_sessions",
        "timeline"
      ])
      const found = await client.callTool({ name: "search", arguments: { query: "cart tax" } })
      const results = (found.structuredContent as { results: Array<{ kind: string }> }).results
      expect(results.map((result) => result.kind)).toContain("prompt")
    } finally {
      await client.close()
    }
  }, TEST_TIMEOUT_MS)
})

describe.skipIf(!claude.available)("the real Claude Code CLI connects to acx memory mcp at once", () => {
  const binary = claude.available ? claude.path : ""
  let double: ModelDouble.ModelDoubleHandle
  let home: string
  let tap: string
  let env: Record<string, string>

  beforeAll(async () => {
    home = path.join(root, "home")
    tap = path.join(root, "tap.jsonl")
    fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
    // a tap between Claude Code and the server: what the client sent, and when
    const wrapper = path.join(root, "tap.mjs")
    fs.writeFileSync(
      wrapper,
      `import { spawn } from "node:child_process"
import * as fs from "node:fs"
const [log, bin] = process.argv.slice(2)
const server = spawn(process.execPath, [bin, "memory", "mcp"], { stdio: ["pipe", "inherit", "inherit"] })
let partial = ""
process.stdin.on("data", (chunk) => {
  server.stdin.write(chunk)
  partial += chunk.toString()
  const lines = partial.split("\\n")
  partial = lines.pop()
  for (const line of lines) fs.appendFileSync(log, JSON.stringify({ at: Date.now(), line }) + "\\n")
})
process.stdin.on("end", () => server.stdin.end())
server.on("exit", (code) => process.exit(code ?? 0))
`
    )
    double = await ModelDouble.startModelDouble({
      script: (request) => {
        if (ModelDouble.isSideCall(request)) return { content: "Cart tax" }
        return ModelDouble.toolResultCount(request) === 0
          ? { content: [{ type: "tool_use", name: "mcp__acx-memory__search", input: { query: "cart tax" } }] }
          : { content: "Found it." }
      }
    })
    const real = await realClaude({ baseUrl: double.url, path: binary })
    env = real.env(home)
    // the project trusted: Claude Code 2.1.337 checks no MCP server's health in a folder the
    // user has not trusted (`claude mcp list`: Not checked)
    fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
    fs.writeFileSync(
      path.join(home, ".claude", ".claude.json"),
      JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } })
    )
    await promisify(execFile)(
      binary,
      [
        "mcp",
        "add",
        "-s",
        "user",
        "acx-memory",
        "-e",
        `ACX_HOME=${acxHome}`,
        "--",
        process.execPath,
        wrapper,
        tap,
        BIN
      ],
      { env, cwd: project, timeout: 60_000 }
    )
  }, 60_000)

  afterAll(async () => {
    await double?.close()
  })

  const tapped = () =>
    fs.readFileSync(tap, "utf8").split("\n").filter((line) => line !== "").map((line) => {
      const entry = JSON.parse(line) as { at: number; line: string }
      return { at: entry.at, message: JSON.parse(entry.line) as { id?: unknown; method?: string } }
    })

  it("claude mcp list: Connected, through server/discover, with no fallback to initialize", async () => {
    fs.rmSync(tap, { force: true })
    const list = await promisify(execFile)(binary, ["mcp", "list"], { env, cwd: project, timeout: 60_000 })
    expect(list.stdout).toMatch(/acx-memory: .* - ✔ Connected/)
    const sent = tapped()
    const discover = sent.findIndex((entry) => entry.message.method === "server/discover")
    expect(discover).toBe(0)
    expect(typeof sent[0]!.message.id).toBe("string")
    const next = sent[discover + 1]!
    // the discover answer carried its id and a version Claude Code speaks: it went on statelessly
    expect(next.message.method).toBe("tools/list")
    expect(sent.some((entry) => entry.message.method === "initialize")).toBe(false)
    // a protocol assertion, not a speed one: a client that got no usable answer waits the whole
    // probe timeout before its next request; the gap is only how fast the answer came
    expect(next.at - sent[discover]!.at).toBeLessThan(PROBE_TIMEOUT_MS)
  }, TEST_TIMEOUT_MS)

  it("a print-mode session calls mcp__acx-memory__search and gets the memory's answer", async () => {
    fs.rmSync(tap, { force: true })
    const real = await realClaude({ baseUrl: double.url, path: binary })
    const run = await real.run({
      prompt: "What do we know about cart tax?",
      cwd: project,
      home,
      allowedTools: ["mcp__acx-memory__search"],
      // print mode does not wait for MCP servers by default: on a loaded machine the session
      // could start before the server's first answer (how fast that comes is the first test's);
      // this one is about the tool call, so the session waits for the connection
      env: { MCP_CONNECTION_NONBLOCKING: "false" }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    const init = run.messages.find((message) => message.type === "system" && message["subtype"] === "init")
    expect(init?.["mcp_servers"]).toContainEqual(expect.objectContaining({ name: "acx-memory", status: "connected" }))
    const answered = double.requests().find((request) =>
      !ModelDouble.isSideCall(request) && ModelDouble.toolResultCount(request) === 1
    )
    expect(answered).toBeDefined()
    const toolResult = JSON.stringify(ModelDouble.lastToolResultMessage(answered!))
    expect(toolResult).toContain(PROMPT.split(" ")[0]!)
    expect(toolResult).not.toContain("is_error\":true")
    expect(run.messages.at(-1)).toMatchObject({ type: "result", subtype: "success" })
    // the session's connection too went through discover, not the fallback
    expect(tapped().map((entry) => entry.message.method)).toContain("tools/call")
    expect(tapped().some((entry) => entry.message.method === "initialize")).toBe(false)
  }, TEST_TIMEOUT_MS)
})
