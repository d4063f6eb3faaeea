/**
 * memoryHooks() on the real SDK `query()` driving the real Claude Code CLI against the model
 * double: the prompt and the tool call are recorded as `acx hook` records them, and after the
 * worker ran, the next query's first prompt carries the memory to the model (programmatic hooks
 * never receive SessionStart).
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { query } from "@anthropic-ai/claude-agent-sdk"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryDatabase from "../src/MemoryDatabase.js"
import { memoryHooks } from "../src/MemoryHooks.js"
import * as MemoryWorker from "../src/MemoryWorker.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-hooks-"))
// a worker a hook started (detached) may still be writing when the test ends
afterAll(() => fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }))

describe.skipIf(!claude.available)("memoryHooks", () => {
  it("records an SDK app's session and gives its memory to the next one", async () => {
    const home = path.join(root, "home")
    const acxHome = path.join(root, "acx")
    const project = path.join(root, "project")
    for (const dir of [home, acxHome, project]) fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(project, "notes.md"), "the deploy key lives in vault\n")
    fs.writeFileSync(
      path.join(acxHome, "config.json"),
      JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0 } })
    )
    const started = path.join(root, "worker-started")
    const workerBin = path.join(root, "fake-acx.mjs")
    fs.writeFileSync(workerBin, `import * as fs from "node:fs"\nfs.writeFileSync(${JSON.stringify(started)}, "yes")\n`)
    const double = await ModelDouble.startModelDouble({
      script: (request) =>
        ModelDouble.isSideCall(request)
          ? { content: "title" }
          : ModelDouble.lastMessageHasToolResult(request)
          ? { content: "The notes say where the key lives." }
          : ModelDouble.userSays("Read the notes")(request)
          ? { content: [{ type: "tool_use", name: "Read", input: { file_path: path.join(project, "notes.md") } }] }
          : { content: "I remember." }
    })
    try {
      const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
      const warnings: Array<string> = []
      const run = async (prompt: string) => {
        for await (
          const _message of query({
            prompt,
            options: {
              ...real.queryOptions(home),
              cwd: project,
              allowedTools: ["Read"],
              hooks: memoryHooks({ home: acxHome, workerBin, onWarning: (line) => warnings.push(line) })
            }
          })
        ) {
          // the messages themselves are not what this test is about
        }
      }
      await run("Read the notes and tell me where the key lives")
      const db = Sqlite.open(MemoryConfig.paths(acxHome).database)
      const events = db.prepare("SELECT kind, tool_name AS tool, project FROM memory_events ORDER BY id").all()
      db.close()
      // SessionEnd may come after the query's last message, as the process exits
      expect(events.slice(0, 3)).toEqual([
        { kind: "prompt", tool: null, project },
        { kind: "tool", tool: "Read", project },
        { kind: "summarise", tool: null, project }
      ])
      expect(warnings).toEqual([])
      // the worker is started detached: on a loaded machine it may not have run yet
      const deadline = Date.now() + 30_000
      while (!fs.existsSync(started) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(fs.readFileSync(started, "utf8")).toBe("yes")

      await Effect.runPromise(
        MemoryWorker.run({ home: acxHome, env: {}, idleTimeout: 0, log: () => {} }).pipe(
          Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(acxHome).database))
        )
      )
      await run("What do you remember?")
      const second = double.requests().filter((request) =>
        !ModelDouble.isSideCall(request) && JSON.stringify(request.body).includes("What do you remember?")
      )
      expect(JSON.stringify(second[0]!.body)).toContain("Read 1 file: notes.md")
    } finally {
      await double.close()
    }
  }, 120_000)
})
