/**
 * The memory end to end, offline, every process real: `acx memory install` into a private HOME
 * → the real CLI lists the MCP server → a real `claude -p` session whose scripted model reads,
 * edits and runs a command → Claude Code fires acx's hooks with its real payloads → the worker a
 * hook started drives the observer (the SDK's `query()` on the real CLI; the double answers with
 * scripted XML) → observations and summary in SQLite → the next real session's SessionStart
 * injects them (seen in the request the double receives) → `acx memory search` finds them → the
 * official MCP client gets them from `acx memory mcp`. The observer's own Claude Code records
 * nothing and writes nothing into the user's config directory.
 */
import { removeTreeWhenIdle } from "@acx/fixtures/treeRemoval"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN } from "./utils/acx.js"
import { query, waitFor } from "./utils/memory.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const TITLE = "Cart total now includes 8% tax"
const isObserver = ModelDouble.systemMentions("acx's memory observer")

const script = (project: string) => (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
  if (isObserver(request)) {
    const text = ModelDouble.lastUserText(request) ?? ""
    return text.includes("SESSION CHECKPOINT")
      ? {
        content:
          "<summary><request>Add tax to the cart total</request><investigated>cart.js</investigated><learned>Prices are in cents</learned><completed>Total multiplies by 1.08</completed><next_steps>Round to whole cents</next_steps><files_read><file>cart.js</file></files_read><files_edited><file>cart.js</file></files_edited><notes></notes></summary>"
      }
      : !text.includes("tool Edit")
      ? { content: "Nothing worth keeping yet. <no_observations/>" }
      : {
        content:
          `\`\`\`xml\n<observation><type>feature</type><title>${TITLE}</title><facts><fact>TAX_RATE = 1.08 in cart.js</fact></facts><narrative>The cart total multiplies the sum by 1.08.</narrative><concepts><concept>tax</concept></concepts><files_modified><file>cart.js</file></files_modified></observation>\n\`\`\``
      }
  }
  if (ModelDouble.isSideCall(request)) return { content: "Cart tax" }
  if (ModelDouble.userSays("What do you remember")(request)) return { content: "We added tax to the cart." }
  const cart = path.join(project, "cart.js")
  switch (ModelDouble.toolResultCount(request)) {
    case 0:
      return { content: [{ type: "tool_use", name: "Read", input: { file_path: cart } }] }
    case 1:
      return {
        content: [{
          type: "tool_use",
          name: "Edit",
          input: { file_path: cart, old_string: "return sum", new_string: "return sum * 1.08" }
        }]
      }
    case 2:
      return {
        content: [{ type: "tool_use", name: "Bash", input: { command: `node ${cart}`, description: "run it" } }]
      }
    default:
      return { content: "Done: the total includes tax." }
  }
}

describe.skipIf(!claude.available)("acx memory end to end with the real Claude Code CLI", () => {
  let root: string
  let home: string
  let project: string
  let double: ModelDouble.ModelDoubleHandle
  let env: Record<string, string>

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-e2e-"))
    home = path.join(root, "home")
    project = path.join(root, "shop")
    fs.mkdirSync(path.join(home, ".acx"), { recursive: true })
    fs.mkdirSync(project)
    fs.writeFileSync(
      path.join(project, "cart.js"),
      "const total = (sum) => {\n  return sum\n}\nconsole.log(total(100))\n"
    )
    // fast batches and a short idle time, so the run is short; the model observer as by default
    fs.writeFileSync(
      path.join(home, ".acx", "config.json"),
      JSON.stringify({ memory: { batchWaitSeconds: 0, workerIdleMinutes: 0.05 } })
    )
    double = await ModelDouble.startModelDouble({ script: script(project) })
    const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
    env = { ...real.env(home), ACX_CLAUDE_PATH: claude.available ? claude.path : "" }
  }, 60_000)

  afterAll(async () => {
    await double?.close()
    // a worker the last session's hooks started (detached) may still be writing: removed once
    // no process works under the directory
    await removeTreeWhenIdle(root)
  }, 70_000)

  it("captures, distils, injects, finds and serves a session's memory", async () => {
    const install = await acx(["memory", "install"], { env })
    expect(install.code, install.stderr).toBe(0)
    expect(install.stdout).toContain("added PostToolUse hook")
    const binary = claude.available ? claude.path : ""
    const list = await promisify(execFile)(binary, ["mcp", "list"], { env, cwd: project, timeout: 60_000 })
    expect(list.stdout).toMatch(/acx-memory: .*memory mcp/)

    const real = await realClaude({ baseUrl: double.url, path: binary })
    const secret = "sk-ant-api03-" + "PlantedSecret42".repeat(3)
    const first = await real.run({
      prompt: `Add tax to the cart total <private>my password is hunter22</private> with key ${secret}`,
      cwd: project,
      home,
      allowedTools: ["Read", "Edit", "Bash"]
    })
    expect(first.exitCode, first.stderr).toBe(0)
    expect(fs.readFileSync(path.join(project, "cart.js"), "utf8")).toContain("return sum * 1.08")

    // the hooks recorded the session; the worker one of them started distils it and goes idle
    const database = path.join(home, ".acx", "memory.db")
    await waitFor("the worker to finish", () =>
      fs.existsSync(database) &&
      query(database, "SELECT count(*) AS n FROM memory_summaries")[0]!["n"] === 1 &&
      query(database, "SELECT count(*) AS n FROM memory_events WHERE state != 'done'")[0]!["n"] === 0 &&
      query(database, "SELECT count(*) AS n FROM memory_worker WHERE pid IS NOT NULL")[0]!["n"] === 0)
    const events = query(database, "SELECT kind, tool_name FROM memory_events ORDER BY id")
    expect(events.map((event) => event["tool_name"] ?? event["kind"])).toEqual([
      "prompt",
      "Read",
      "Edit",
      "Bash",
      "summarise",
      "summarise"
    ])
    expect(query(database, "SELECT project, status FROM memory_sessions")).toEqual([{ project, status: "completed" }])
    // the private part and the planted key are in no byte of the memory (the observer's mirrored
    // transcript included), nor of its WAL
    for (const file of [database, `${database}-wal`]) {
      if (!fs.existsSync(file)) continue
      const bytes = fs.readFileSync(file)
      expect(bytes.includes(Buffer.from("hunter22")), file).toBe(false)
      expect(bytes.includes(Buffer.from(secret)), file).toBe(false)
    }
    expect(query(database, "SELECT text FROM memory_prompts")).toEqual([
      { text: "Add tax to the cart total  with key [REDACTED:anthropic-key]" }
    ])
    expect(query(database, "SELECT title, source FROM memory_observations")).toEqual([{
      title: TITLE,
      source: "model"
    }])
    // the observer's Claude Code ran in its own config dir: nothing of it in the user's, and its
    // own session was never recorded
    expect(fs.readdirSync(path.join(home, ".claude", "projects"))).toEqual([
      fs.readdirSync(path.join(home, ".claude", "projects"))[0]
    ])
    expect(fs.readdirSync(path.join(home, ".acx", "observer", "claude", "projects"))).toHaveLength(1)
    // owner-only, what the real Claude Code of the observer wrote under $ACX_HOME included
    // (config.json is the test's own file)
    const acxFiles = (fs.readdirSync(path.join(home, ".acx"), { recursive: true, encoding: "utf8" }) as Array<string>)
      .filter((name) => name !== "config.json")
    expect(acxFiles.length).toBeGreaterThan(0)
    for (const name of acxFiles) {
      const stat = fs.lstatSync(path.join(home, ".acx", name))
      if (!stat.isSymbolicLink()) expect((stat.mode & 0o777).toString(8), name).toBe(stat.isDirectory() ? "700" : "600")
    }

    const second = await real.run({ prompt: "What do you remember about this project?", cwd: project, home })
    expect(second.exitCode, second.stderr).toBe(0)
    const injected = double.requests().filter((request) =>
      !isObserver(request) && JSON.stringify(request.body).includes(TITLE)
    )
    expect(injected.length).toBeGreaterThan(0)
    expect(JSON.stringify(injected[0]!.body)).toContain("Memory of earlier sessions in")

    const search = await acx(["memory", "search", "tax", "--project", project, "--json"], { env })
    const results = JSON.parse(search.stdout) as Array<{ id: string; title: string }>
    expect(results.map((result) => result.title)).toContain(TITLE)

    const client = new Client({ name: "acx-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "memory", "mcp"], env, stderr: "pipe" })
    )
    try {
      const tools = await client.listTools()
      expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
        "get_observations",
        "get_session_turns",
        "search",
        "search_sessions",
        "timeline"
      ])
      expect(tools.tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true)
      const found = await client.callTool({ name: "search", arguments: { query: "cart tax", project } })
      const hits = (found.structuredContent as { results: Array<{ id: string; title: string }> }).results
      const hit = hits.find((result) => result.title === TITLE)!
      expect(hit.id).toMatch(/^O\d+$/)
      const got = await client.callTool({ name: "get_observations", arguments: { ids: [hit.id, "O999999"] } })
      const entries = (got.structuredContent as { results: Array<{ id: string; fields: Record<string, unknown> }> })
        .results
      expect(entries).toHaveLength(1)
      expect(entries[0]!.fields["facts"]).toEqual(["TAX_RATE = 1.08 in cart.js"])
      const timeline = await client.callTool({ name: "timeline", arguments: { around: hit.id } })
      const around = (timeline.structuredContent as { results: Array<{ id: string }> }).results
      expect(around.map((entry) => entry.id)).toContain(hit.id)
      const bad = await client.callTool({ name: "timeline", arguments: { around: "nonsense" } })
      expect(bad.isError).toBe(true)
    } finally {
      await client.close()
    }

    const uninstall = await acx(["memory", "uninstall"], { env })
    expect(uninstall.code, uninstall.stderr).toBe(0)
    const settings = path.join(home, ".claude", "settings.json")
    expect(fs.existsSync(settings) ? fs.readFileSync(settings, "utf8") : "").not.toContain("hook PostToolUse")
  }, 240_000)
})
