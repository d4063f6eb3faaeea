/**
 * `acx stats` from the built binary: dollars per row and per model, every grouping adding up to
 * the same total, date ranges, big numbers ("2.95B"), active time and wall span labelled, the
 * user's pricing file, unpriced models, and the worker threads and cache of the bundle (a cold run
 * on a config dir big enough for workers, a warm run that reads nothing, an appended file read
 * from where it stopped).
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import * as StatsReport from "@acx/convert/StatsReport"
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, parseJson, TEST_TIMEOUT_MS } from "./utils/acx.js"

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

interface Turn {
  readonly at: string
  readonly model: string
  readonly usage: Record<string, unknown>
}

/** A transcript: per turn a prompt, an assistant message in two fragments (the last one carries the final output count). */
const transcript = (turns: ReadonlyArray<Turn>, pad = 0): string =>
  turns.map((turn, i) => {
    const user = { type: "user", timestamp: turn.at, uuid: `u${i}`, message: { role: "user", content: "go" } }
    const fragment = (output: number, block: unknown) => ({
      type: "assistant",
      timestamp: turn.at,
      uuid: `a${i}-${output}`,
      requestId: `req_${i}`,
      message: { id: `msg_${i}`, model: turn.model, content: [block], usage: { ...turn.usage, output_tokens: output } }
    })
    const text = { type: "text", text: "x".repeat(pad) }
    return [
      user,
      fragment(1, text),
      fragment(Number(turn.usage["output_tokens"] ?? 0), { type: "tool_use", id: `t${i}`, name: "Bash", input: {} })
    ].map((entry) => JSON.stringify(entry)).join("\n") + "\n"
  }).join("")

let root: string
let configDir: string
let acxHome: string
const env = () => ({ CLAUDE_CONFIG_DIR: configDir, ACX_HOME: acxHome, TZ: "UTC" })

const write = (project: string, id: string, text: string) => {
  fs.mkdirSync(path.join(configDir, "projects", project), { recursive: true })
  fs.writeFileSync(path.join(configDir, "projects", project, `${id}.jsonl`), text)
}

type Tokens = { input: number; output: number; cacheRead: number; cacheWrite: number; total: number }
type Row = {
  key: string
  sessions: number
  tokens: Tokens
  costUSD: number
  unpriced: Array<string>
  activeMs: number
  spanMs: number
  models: Record<string, { tokens: Tokens; costUSD: number | null; messages: number }>
}
type StatsJson = {
  by: string
  pricing: { source: string; date: string; rates: Record<string, Pricing.ModelRates | null> }
  rows: Array<Row>
  total: Row
  read: { cached: number; appended: number; folded: number; bytes: number; workers: number }
}

const stats = async (...args: Array<string>) => {
  const result = await acx(["stats", "--json", ...args], { env: env() })
  expect(result.code, result.stderr).toBe(0)
  return parseJson<StatsJson>(result)
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-stats-"))
  configDir = path.join(root, "claude")
  acxHome = path.join(root, "acx-home")
  const usage = (input: number, output: number, read: number, write5m: number, write1h: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write5m + write1h,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h }
  })
  // one session over two days and two models; 2 954 320 000 cache-read tokens in all
  write(
    "-work-alpha",
    uuid(1),
    transcript([
      {
        at: "2026-03-01T10:00:00.000Z",
        model: "claude-sonnet-4-5-20250929",
        usage: usage(1000, 200, 1_000_000_000, 500, 300)
      },
      {
        at: "2026-03-01T10:03:00.000Z",
        model: "claude-haiku-4-5-20251001",
        usage: usage(2000, 100, 954_320_000, 0, 0)
      },
      { at: "2026-03-02T09:00:00.000Z", model: "claude-sonnet-4-5-20250929", usage: usage(10, 20, 1_000_000_000, 0, 0) }
    ])
  )
  write(
    "-work-beta",
    uuid(2),
    transcript([
      { at: "2026-03-09T12:00:00.000Z", model: "claude-opus-4-6", usage: usage(100, 10, 0, 1000, 0) },
      { at: "2026-03-09T12:01:00.000Z", model: "gpt-double", usage: usage(5000, 50, 0, 0, 0) }
    ])
  )
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("acx stats: dollars, groupings, ranges, numbers", () => {
  it("dollars per model and in total, as the rates in the JSON say", { timeout: TEST_TIMEOUT_MS }, async () => {
    const out = await stats("--by", "model")
    const sonnet = out.rows.find((row) => row.key === "claude-sonnet-4-5-20250929")!
    // 1010 in, 220 out, 2e9 cache read, 500 5m + 300 1h cache write, at $3 / $15 / $0.30 / $3.75 / $6
    const expected = (1010 * 3 + 220 * 15 + 2e9 * 0.3 + 500 * 3.75 + 300 * 6) / 1e6
    expect(sonnet.costUSD).toBeCloseTo(expected, 9)
    expect(sonnet.models["claude-sonnet-4-5-20250929"]!.costUSD).toBeCloseTo(expected, 9)
    expect(out.pricing.rates["claude-haiku-4-5-20251001"]).toMatchObject({ input: 1, output: 5 })
    expect(out.pricing.rates["gpt-double"]).toBeNull()
    expect(out.pricing.source).toContain("Claude Code 2.1.330")
    expect(out.total.unpriced).toEqual(["gpt-double"])
    expect(out.rows.find((row) => row.key === "gpt-double")!.models["gpt-double"]!.costUSD).toBeNull()
    const haiku = (2000 * 1 + 100 * 5 + 954_320_000 * 0.1) / 1e6
    const opus = (100 * 5 + 10 * 25 + 1000 * 6.25) / 1e6
    expect(out.total.costUSD).toBeCloseTo(expected + haiku + opus, 9)
  })

  it(
    "every grouping adds up to the same total; every row carries its models",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const all = await Promise.all(StatsReport.groupings.map((by) => stats("--by", by)))
      for (const out of all) {
        expect(out.total.tokens).toEqual(all[0]!.total.tokens)
        expect(out.rows.reduce((n, row) => n + row.tokens.total, 0), out.by).toBe(out.total.tokens.total)
        expect(out.rows.reduce((n, row) => n + row.costUSD, 0), out.by).toBeCloseTo(out.total.costUSD, 9)
        for (const row of out.rows) {
          expect(Object.values(row.models).reduce((n, m) => n + m.tokens.total, 0)).toBe(row.tokens.total)
        }
      }
      const byKey = (by: string) => all.find((out) => out.by === by)!.rows.map((row) => row.key)
      expect(byKey("session")).toEqual([uuid(1), uuid(2)])
      expect(byKey("day")).toEqual(["2026-03-01", "2026-03-02", "2026-03-09"])
      // 1 March 2026 is a Sunday: its week began on 23 February; the 2nd is a Monday
      expect(byKey("week")).toEqual(["2026-02-23", "2026-03-02", "2026-03-09"])
      expect(byKey("month")).toEqual(["2026-03"])
      expect(byKey("project").sort()).toEqual(["-work-alpha", "-work-beta"])
      expect(all[0]!.total.tokens.total).toBe(
        1000 + 200 + 1e9 + 800 + 2000 + 100 + 954_320_000 + 10 + 20 + 1e9 + 100 + 10 + 1000 + 5000 + 50
      )
    }
  )

  it("--since/--until keep whole local days; a bad date is one line and exit 2 (bad usage)", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expect((await stats("--by", "day", "--since", "2026-03-02")).rows.map((r) => r.key)).toEqual([
      "2026-03-02",
      "2026-03-09"
    ])
    expect((await stats("--by", "day", "--until", "20260301")).rows.map((r) => r.key)).toEqual(["2026-03-01"])
    const none = await acx(["stats", "--since", "2027-01-01"], { env: env() })
    expect(none.stdout).toContain("no sessions in that date range")
    for (
      const args of [["--since", "2026-02-30"], ["--until", "March"], [
        "--since",
        "2026-03-05",
        "--until",
        "2026-03-01"
      ]]
    ) {
      const bad = await acx(["stats", ...args], { env: env() })
      expect(bad.code, args.join(" ")).toBe(2)
      expect(bad.stderrLines, args.join(" ")).toHaveLength(1)
      expect(bad.stderrLines[0]).toMatch(/^acx: --(since|until)/)
    }
  })

  it(
    "the text: 2.95B not 2954.32M, dollars, active time and wall span labelled",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const text = (await acx(["stats"], { env: env() })).stdout
      expect(text).toContain("2.95B cache read")
      expect(text).not.toMatch(/\d{4}\.\d\dM/)
      // active: 3 minutes on the 1st (then a 23-hour gap), 1 minute on the 9th; span: 1st 10:00 to 9th 12:01
      expect(text).toMatch(/^active time\s+4m 00s \(gaps over 5 min left out/m)
      expect(text).toMatch(/^wall span\s+8d 02h \(2026-03-01 to 2026-03-09\)/m)
      expect(text).toMatch(/^cost\s+\$\d[\d,]*\.\d\d \+ unpriced models$/m)
      expect(text).toMatch(/^ {2}gpt-double\s+unpriced/m)
      // a row with two models is followed by one sub-row per model
      expect(text).toMatch(
        /00000000 .* 2 models\s+-work-alpha\n.*└ claude-haiku-4-5-20251001\n.*└ claude-sonnet-4-5-20250929/
      )
      expect(text).not.toContain("duration")
    }
  )

  it(
    "$ACX_HOME/pricing.json overrides and adds models; a bad one is one line naming it",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const file = path.join(acxHome, "pricing.json")
      fs.mkdirSync(acxHome, { recursive: true })
      fs.writeFileSync(file, JSON.stringify({ models: { "gpt-double": { input: 1000, output: 0 } } }))
      try {
        const out = await stats("--by", "model")
        expect(out.total.unpriced).toEqual([])
        expect(out.rows.find((row) => row.key === "gpt-double")!.costUSD).toBeCloseTo(5, 9)
        fs.writeFileSync(file, "{ not json")
        const bad = await acx(["stats"], { env: env() })
        expect(bad.code).toBe(1)
        expect(bad.stderrLines).toEqual([expect.stringMatching(/^acx: .*pricing\.json: not JSON/)])
      } finally {
        fs.rmSync(file)
      }
    }
  )
})

describe("acx stats: worker threads and the cache, from the built binary", () => {
  let bigDir: string
  const bigEnv = () => ({ CLAUDE_CONFIG_DIR: bigDir, ACX_HOME: path.join(root, "big-home"), TZ: "UTC" })
  const bigStats = async () => {
    const result = await acx(["stats", "--json"], { env: bigEnv() })
    expect(result.code, result.stderr).toBe(0)
    return parseJson<StatsJson>(result)
  }
  // what the files hold, folded here in one thread with the library
  const expected = () => {
    const folds = fs.readdirSync(path.join(bigDir, "projects", "p")).map((name) => {
      const fold = StatsFold.empty()
      const ctx = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" as const }
      for (const line of fs.readFileSync(path.join(bigDir, "projects", "p", name), "utf8").split("\n")) {
        StatsFold.foldLine(fold, line, ctx)
      }
      return { file: name, projectKey: "p", sessionId: name.slice(0, -6), fold }
    })
    return StatsReport.report(folds, "session", {}, Pricing.builtinPricing).total
  }

  beforeAll(() => {
    bigDir = path.join(root, "big")
    fs.mkdirSync(path.join(bigDir, "projects", "p"), { recursive: true })
    // 12 sessions of ~1 MB: above the size under which acx folds in the main thread
    for (let s = 0; s < 12; s++) {
      const turns = Array.from({ length: 100 }, (_, i) => ({
        at: new Date(Date.UTC(2026, 2, 1 + (s % 5), 8, i)).toISOString(),
        model: s % 2 === 0 ? "claude-sonnet-4-5" : "claude-haiku-4-5",
        usage: { input_tokens: 10 + i, output_tokens: 5 + s, cache_read_input_tokens: 1000 * i }
      }))
      fs.writeFileSync(path.join(bigDir, "projects", "p", `${uuid(100 + s)}.jsonl`), transcript(turns, 8000))
    }
  })

  it(
    "cold: folded in worker threads, the figures one thread gives; warm: nothing read",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const cold = await bigStats()
      expect(cold.read.workers).toBeGreaterThanOrEqual(1)
      expect(cold.read.folded).toBe(12)
      const want = expected()
      expect(cold.total.tokens).toEqual(want.tokens)
      expect(cold.total.costUSD).toBeCloseTo(want.costUSD, 9)
      expect(cold.total.sessions).toBe(12)
      const warm = await bigStats()
      expect(warm.read).toMatchObject({ cached: 12, folded: 0, appended: 0, bytes: 0 })
      expect(warm.total).toEqual(cold.total)
      expect(fs.readdirSync(path.join(root, "big-home", "cache")).some((name) => name.startsWith("stats-"))).toBe(true)
    }
  )

  it("an appended file is read from where the cache stopped", { timeout: TEST_TIMEOUT_MS }, async () => {
    await bigStats()
    const file = path.join(bigDir, "projects", "p", `${uuid(100)}.jsonl`)
    const extra = transcript([{
      at: "2026-03-20T10:00:00.000Z",
      model: "claude-sonnet-4-5",
      usage: { input_tokens: 7, output_tokens: 3 }
    }]).replaceAll("msg_0", "msg_new").replaceAll("req_0", "req_new")
    fs.appendFileSync(file, extra)
    const after = await bigStats()
    expect(after.read).toMatchObject({ cached: 11, appended: 1, folded: 0, bytes: Buffer.byteLength(extra) })
    expect(after.total.tokens).toEqual(expected().tokens)
  })

  it("the fixtures' sessions: the same totals with and without the cache", { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = path.join(root, "fixtures")
    Fixtures.buildClaudeConfigDir(dir)
    const run = async (home: string) => {
      const result = await acx(["stats", "--json"], { env: { CLAUDE_CONFIG_DIR: dir, ACX_HOME: home } })
      return parseJson<StatsJson>(result).total
    }
    const home = path.join(root, "fixtures-home")
    const [cold, warm, other] = [await run(home), await run(home), await run(path.join(root, "fixtures-home-2"))]
    expect(warm).toEqual(cold)
    expect(other).toEqual(cold)
  })
})
