/**
 * acx's dollars against the REAL Claude Code CLI's own: sessions the CLI ran (offline, against
 * the model double) with three models asked for by `--model`, usage with cache reads and cache
 * writes (5-minute and 1-hour), a tool round, and one session resumed on another model. For every
 * session `acx stats` must give the `total_cost_usd` the CLI reported in its last result, and for
 * every model the `modelUsage[model].costUSD` it reported.
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

const SONNET = "claude-sonnet-4-5"
const HAIKU = "claude-haiku-4-5"
const OPUS = "claude-opus-4-6"

const modelOf = (request: ModelDouble.ModelRequest): string => String(request.body["model"] ?? "")

/** Each reply's usage: odd figures, so a wrong rate anywhere shows in the sum. */
const usage = {
  sonnetTool: {
    inputTokens: 3_217,
    outputTokens: 143,
    cacheReadInputTokens: 51_009,
    cacheCreationInputTokens: 2_311,
    cacheCreation1hInputTokens: 1_733
  },
  sonnetDone: {
    inputTokens: 3_402,
    outputTokens: 87,
    cacheReadInputTokens: 53_320,
    cacheCreationInputTokens: 407,
    cacheCreation1hInputTokens: 0
  },
  haiku: {
    inputTokens: 12_345,
    outputTokens: 678,
    cacheReadInputTokens: 90_001,
    cacheCreationInputTokens: 4_567,
    cacheCreation1hInputTokens: 1_111
  },
  // no `cache_creation` object: every cache write at the 5-minute rate
  opus: { inputTokens: 7_001, outputTokens: 333, cacheReadInputTokens: 120_007, cacheCreationInputTokens: 999 }
}

const script: ModelDouble.Script = [
  {
    when: (r) => modelOf(r).startsWith(SONNET) && ModelDouble.userSays("List the files")(r),
    reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }], usage: usage.sonnetTool }
  },
  {
    when: (r) => modelOf(r).startsWith(SONNET) && ModelDouble.lastMessageHasToolResult(r),
    reply: { content: "One file: notes.txt.", usage: usage.sonnetDone }
  },
  { when: (r) => modelOf(r).startsWith(HAIKU), reply: { content: "Hello from haiku.", usage: usage.haiku } },
  { when: (r) => modelOf(r).startsWith(OPUS), reply: { content: "Opus agrees.", usage: usage.opus } }
]

type Result = { readonly [key: string]: unknown }
type ModelUsage = Record<string, { costUSD: number; inputTokens: number; outputTokens: number }>

describe.runIf(claude.available)("acx's cost equals the real Claude Code CLI's", () => {
  let double: ModelDouble.ModelDoubleHandle
  let home: string
  let cwd: string
  /** The last result of each session, by session id. */
  const lastResult = new Map<string, Result>()

  beforeAll(async () => {
    double = await ModelDouble.startModelDouble({ script })
    home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-costs-home-"))
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-costs-project-")))
    fs.writeFileSync(path.join(cwd, "notes.txt"), "one\n")
    const cli = await realClaude({ baseUrl: double.url })
    const run = async (prompt: string, model: string, resume?: string) => {
      const result = await cli.run({ prompt, cwd, home, model, allowedTools: ["Bash"], ...(resume ? { resume } : {}) })
      expect(result.exitCode, result.stderr).toBe(0)
      const last = result.messages.at(-1)!
      expect(last["type"]).toBe("result")
      expect(last["is_error"], JSON.stringify(last)).toBe(false)
      lastResult.set(result.sessionId!, last)
      return result.sessionId!
    }
    const first = await run("List the files", SONNET)
    await run("Say hello", HAIKU)
    // the first session again, on another model: one session, two models
    await run("Do you agree?", OPUS, first)
  }, TEST_TIMEOUT_MS * 2)

  afterAll(async () => {
    await double?.close()
    if (home !== undefined) fs.rmSync(home, { recursive: true, force: true })
    if (cwd !== undefined) fs.rmSync(cwd, { recursive: true, force: true })
  })

  it("the double was asked for every model, with the usage above", () => {
    const asked = new Set(double.agentRequests().map(modelOf))
    for (const model of [SONNET, HAIKU, OPUS]) expect([...asked].some((m) => m.startsWith(model)), model).toBe(true)
    expect(lastResult.size).toBe(2)
  })

  it(
    "acx stats: each session's dollars are the CLI's total_cost_usd; each model's, its modelUsage costUSD",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const out = parseJson<{
        rows: Array<
          { sessionId: string; costUSD: number; unpriced: Array<string>; models: Record<string, { costUSD: number }> }
        >
        total: { costUSD: number }
      }>(await acx(["stats", "--json"], { env: { CLAUDE_CONFIG_DIR: path.join(home, ".claude") } }))
      expect(out.rows.map((row) => row.sessionId).sort()).toEqual([...lastResult.keys()].sort())
      let cliTotal = 0
      for (const row of out.rows) {
        const result = lastResult.get(row.sessionId)!
        const cliCost = Number(result["total_cost_usd"])
        cliTotal += cliCost
        expect(row.unpriced).toEqual([])
        // the CLI sums the same per-response products in the same order: equal to the last bits
        // that float addition leaves (far below a cent)
        expect(row.costUSD, row.sessionId).toBeCloseTo(cliCost, 12)
        const modelUsage = result["modelUsage"] as ModelUsage
        expect(Object.keys(row.models).sort()).toEqual(Object.keys(modelUsage).sort())
        for (const [model, figures] of Object.entries(modelUsage)) {
          expect(row.models[model]!.costUSD, model).toBeCloseTo(figures.costUSD, 12)
        }
      }
      expect(out.total.costUSD).toBeCloseTo(cliTotal, 12)
      expect(cliTotal).toBeGreaterThan(0.1)
    }
  )
})
