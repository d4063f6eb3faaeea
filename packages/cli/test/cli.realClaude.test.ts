/**
 * Sessions the REAL Claude Code CLI wrote (offline, against the model double): a turn with a
 * Bash call, a Task subagent with its own tool call, a second turn in a resumed process. `acx
 * sessions`, `show` and `stats` read them: the token figures equal exactly what the double
 * declared, per model, the subagent included; and the CLI's own cost for those figures is
 * recorded (acx's price table must reproduce it).
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, parseJson, TEST_TIMEOUT_MS } from "./utils/acx.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const MODEL = "claude-sonnet-4-5"
const SUBAGENT_PROMPT = "Count the lines of notes.txt"

const inSubagent = (request: ModelDouble.ModelRequest) =>
  JSON.stringify((request.body["messages"] as ReadonlyArray<unknown>)[0] ?? "").includes(SUBAGENT_PROMPT)

/** Every reply the agent loops get, with its usage: the figures `acx stats` must add up to. */
const usage = {
  mainTool: { inputTokens: 2000, outputTokens: 50, cacheReadInputTokens: 1000, cacheCreationInputTokens: 300 },
  mainTask: { inputTokens: 2100, outputTokens: 60, cacheReadInputTokens: 1100, cacheCreationInputTokens: 0 },
  subTool: { inputTokens: 500, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  subDone: { inputTokens: 600, outputTokens: 15, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  mainDone: { inputTokens: 2200, outputTokens: 25, cacheReadInputTokens: 1200, cacheCreationInputTokens: 0 },
  resumed: { inputTokens: 2400, outputTokens: 10, cacheReadInputTokens: 1300, cacheCreationInputTokens: 0 }
}

const script: ModelDouble.Script = [
  // the subagent's loop (its first message is the Task prompt)
  {
    when: (r) => inSubagent(r) && !ModelDouble.lastMessageHasToolResult(r),
    reply: {
      content: [{ type: "tool_use", name: "Bash", input: { command: "wc -l < notes.txt" } }],
      usage: usage.subTool
    }
  },
  {
    when: (r) => inSubagent(r) && ModelDouble.lastMessageHasToolResult(r),
    reply: { content: "notes.txt has 3 lines.", usage: usage.subDone }
  },
  // the main loop
  {
    when: ModelDouble.userSays("Look at the notes"),
    reply: {
      content: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }],
      usage: usage.mainTool
    }
  },
  {
    when: (r) => ModelDouble.lastMessageHasToolResult(r) && !JSON.stringify(r.body["messages"]).includes("3 lines"),
    reply: {
      content: [{
        type: "tool_use",
        name: "Task",
        input: {
          description: "Count lines",
          prompt: SUBAGENT_PROMPT,
          subagent_type: "general-purpose",
          // in the foreground: the Task's tool result is the subagent's answer
          run_in_background: false
        }
      }],
      usage: usage.mainTask
    }
  },
  { when: ModelDouble.lastMessageHasToolResult, reply: { content: "The notes have 3 lines.", usage: usage.mainDone } },
  { when: ModelDouble.userSays("Anything else"), reply: { content: "No, that is all.", usage: usage.resumed } }
]

const sum = (figures: ReadonlyArray<(typeof usage)[keyof typeof usage]>) => ({
  input: figures.reduce((n, u) => n + u.inputTokens, 0),
  output: figures.reduce((n, u) => n + u.outputTokens, 0),
  cacheRead: figures.reduce((n, u) => n + u.cacheReadInputTokens, 0),
  cacheWrite: figures.reduce((n, u) => n + u.cacheCreationInputTokens, 0)
})

describe.runIf(claude.available)("acx on sessions the real Claude Code CLI wrote", () => {
  let double: ModelDouble.ModelDoubleHandle
  let home: string
  let cwd: string
  let sessionId: string
  let results: Array<{ readonly [key: string]: unknown }>

  beforeAll(async () => {
    double = await ModelDouble.startModelDouble({ script })
    home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-real-home-"))
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-real-project-")))
    fs.writeFileSync(path.join(cwd, "notes.txt"), "one\ntwo\nthree\n")
    const cli = await realClaude({ baseUrl: double.url })
    const first = await cli.run({
      prompt: "Look at the notes",
      cwd,
      home,
      model: MODEL,
      allowedTools: ["Bash", "Task"]
    })
    expect(first.exitCode, first.stderr).toBe(0)
    sessionId = first.sessionId!
    const second = await cli.run({ prompt: "Anything else?", cwd, home, model: MODEL, resume: sessionId })
    expect(second.exitCode, second.stderr).toBe(0)
    results = [first, second].map((run) => run.messages.at(-1)!)
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await double?.close()
    if (home !== undefined) fs.rmSync(home, { recursive: true, force: true })
    if (cwd !== undefined) fs.rmSync(cwd, { recursive: true, force: true })
  })

  const env = () => ({ CLAUDE_CONFIG_DIR: path.join(home, ".claude") })

  it("the runs did what the double said: the tools ran, the subagent answered, one session resumed", () => {
    expect(results.map((result) => [result["type"], result["subtype"], result["session_id"]])).toEqual([
      ["result", "success", sessionId],
      ["result", "success", sessionId]
    ])
    expect(results[0]!["result"]).toBe("The notes have 3 lines.")
    expect(results[1]!["result"]).toBe("No, that is all.")
    const subagentFiles = fs.readdirSync(path.join(home, ".claude", "projects"), { recursive: true })
      .map(String).filter((file) => file.includes("subagents") && file.endsWith(".jsonl"))
    expect(subagentFiles).toHaveLength(1)
  })

  it(
    "acx stats: tokens equal the double's figures exactly, the subagent's included",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      type Totals = { input: number; output: number; cacheRead: number; cacheWrite: number }
      const stats = parseJson<{
        rows: Array<{
          sessionId: string
          tokens: Totals
          models: Record<string, { tokens: Totals }>
          subagents: number
          toolCalls: Record<string, number>
        }>
      }>(await acx(["stats", "--json"], { env: env() }))
      expect(stats.rows.map((row) => row.sessionId)).toEqual([sessionId])
      const row = stats.rows[0]!
      const all = sum(Object.values(usage))
      expect(row.tokens).toMatchObject(all)
      expect(Object.keys(row.models)).toEqual([MODEL])
      expect(row.models[MODEL]!.tokens).toMatchObject(all)
      expect(row.subagents).toBe(1)
      expect(row.toolCalls).toEqual({ Bash: 2, Task: 1 })
    }
  )

  it(
    "acx sessions and acx show read the session, both turns and the tool output",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const listing = (await acx(["sessions"], { env: env() })).stdout
      expect(listing).toContain(sessionId)
      const markdown = (await acx(["show", sessionId.slice(0, 8)], { env: env() })).stdout
      for (
        const text of [
          "Look at the notes",
          "Anything else?",
          "The notes have 3 lines.",
          "No, that is all.",
          "notes.txt"
        ]
      ) {
        expect(markdown).toContain(text)
      }
    }
  )

  it("the CLI's own cost for the double's figures (recorded for acx's price table)", () => {
    const first = results[0]!
    const modelUsage = first["modelUsage"] as Record<string, Record<string, number>>
    // Claude Code 2.1.330 counts exactly the agent loops' figures (main and subagent; no side
    // call) and prices claude-sonnet-4-5 at $3 / MTok input, $15 output, $0.30 cache read and
    // $3.75 cache write: 7400 × 3 + 170 × 15 + 3300 × 0.30 + 300 × 3.75 = 26 865 µ$.
    const main = sum([usage.mainTool, usage.mainTask, usage.subTool, usage.subDone, usage.mainDone])
    expect(main).toEqual({ input: 7400, output: 170, cacheRead: 3300, cacheWrite: 300 })
    expect(modelUsage).toEqual({
      [MODEL]: expect.objectContaining({
        inputTokens: 7400,
        outputTokens: 170,
        cacheReadInputTokens: 3300,
        cacheCreationInputTokens: 300
      })
    })
    expect(modelUsage[MODEL]!["costUSD"]).toBeCloseTo(0.026865, 12)
    expect(Number(first["total_cost_usd"])).toBeCloseTo(0.026865, 12)
    // cumulative per session: the resumed run starts from the saved total and adds its turn
    // (2400 × 3 + 10 × 15 + 1300 × 0.30 = 7 740 µ$)
    expect(Number(results[1]!["total_cost_usd"])).toBeCloseTo(0.026865 + 0.00774, 12)
  })
})
