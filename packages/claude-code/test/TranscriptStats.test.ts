/**
 * TranscriptStats against real files: a second run reads nothing, an appended file is read from
 * where the cache stopped (a message's fragments straddling the old end counted once), a
 * rewritten file is read again, a damaged cache is ignored and rewritten, the pricing file is
 * applied or refused with its name. (Worker threads are exercised through the built CLI, whose
 * bundle ships the worker script: packages/cli/test/cli.stats.test.ts.)
 */
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import * as StatsReport from "@acx/convert/StatsReport"
import * as Fixtures from "@acx/fixtures"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

let root: string
let cacheDir: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-transcript-stats-"))
  cacheDir = path.join(root, "cache")
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const fixture = Fixtures.transcriptFiles().find((file) =>
  path.basename(file) === "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
)!

const transcript = (name: string, text: string): TranscriptStats.TranscriptFile => {
  const file = path.join(root, `${name}.jsonl`)
  fs.writeFileSync(file, text)
  return { projectKey: "p", sessionId: name, file, kind: "main" }
}

const run = (files: ReadonlyArray<TranscriptStats.TranscriptFile>, pricing = Pricing.builtinPricing) =>
  Effect.runPromise(
    TranscriptStats.make({ pricing, cacheDir, workers: 0 }).fold(files, { scope: root, complete: true })
  )

const totalOf = (result: TranscriptStats.StatsRun) =>
  StatsReport.report(result.folds, "session", {}, Pricing.builtinPricing).total

describe("TranscriptStats", () => {
  it("a second run reads nothing and gives the same figures", async () => {
    const files = [transcript("a", fs.readFileSync(fixture, "utf8"))]
    const first = await run(files)
    expect(first.files).toEqual({ cached: 0, appended: 0, folded: 1 })
    const second = await run(files)
    expect(second.files).toEqual({ cached: 1, appended: 0, folded: 0 })
    expect(second.bytesRead).toBe(0)
    expect(totalOf(second)).toEqual(totalOf(first))
    expect(totalOf(first).tokens).toMatchObject({ output: 38899, cacheRead: 14771617 })
  })

  it("a last line without its newline counts the same on a warm run as on the cold one", async () => {
    const lines = fs.readFileSync(fixture, "utf8").split("\n").filter((line) => line !== "")
    const assistant = lines.filter((line) => line.includes("\"type\":\"assistant\"") && line.includes("\"usage\"")).at(
      -1
    )!
    // Claude Code mid-write: a torn line (malformed), and a whole line whose newline is not there yet
    const torn = transcript("torn", `${lines.slice(0, 20).join("\n")}\n${assistant.slice(0, 40)}`)
    const whole = transcript("whole", `${lines.slice(0, 20).join("\n")}\n${assistant}`)
    const cold = await run([torn, whole])
    const warm = await run([torn, whole])
    expect(warm.files).toMatchObject({ cached: 2, folded: 0 })
    const malformed = (result: TranscriptStats.StatsRun) => result.folds.reduce((n, f) => n + f.fold.malformed, 0)
    expect(malformed(cold)).toBe(1)
    expect(malformed(warm)).toBe(malformed(cold))
    expect(Object.keys(warm.malformedAt)).toEqual([torn.file])
    expect(warm.malformedAt).toEqual(cold.malformedAt)
    expect(totalOf(warm)).toEqual(totalOf(cold))
    // the whole last line is in the figures: the same file with its newline gives them too
    fs.appendFileSync(whole.file, "\n")
    expect(totalOf(await run([torn, whole]))).toEqual(totalOf(cold))
  })

  it("an appended file is read from the cached offset; fragments straddling the old end count once", async () => {
    const text = fs.readFileSync(fixture, "utf8")
    const lines = text.split("\n").filter((line) => line !== "")
    // cut between two fragments of one message
    const cut = lines.findIndex((line, i) => {
      const next = lines[i + 1]
      if (next === undefined) return false
      const id = (l: string) => (JSON.parse(l) as { message?: { id?: string } }).message?.id
      return id(line) !== undefined && id(line) === id(next)
    })
    expect(cut).toBeGreaterThan(0)
    const head = lines.slice(0, cut + 1).join("\n") + "\n"
    const file = transcript("b", head)
    await run([file])
    // a torn last line (being written) is not consumed: the rest of it arrives with the append
    const rest = lines.slice(cut + 1).join("\n") + "\n"
    fs.appendFileSync(file.file, rest.slice(0, 10))
    const torn = await run([file])
    expect(torn.files.appended).toBe(1)
    fs.appendFileSync(file.file, rest.slice(10))
    const grown = await run([file])
    expect(grown.files).toEqual({ cached: 0, appended: 1, folded: 0 })
    expect(grown.bytesRead).toBe(Buffer.byteLength(rest))
    const whole = await run([transcript("c", text)])
    expect(totalOf(grown).tokens).toEqual(totalOf(whole).tokens)
    expect(totalOf(grown).messages).toEqual(totalOf(whole).messages)
    expect(totalOf(grown).costUSD).toBeCloseTo(totalOf(whole).costUSD, 9)
  })

  it("a rewritten file (same size or not, other bytes before the offset) is read again", async () => {
    const line = (n: number) =>
      JSON.stringify({
        type: "assistant",
        timestamp: "2026-03-01T10:00:00Z",
        message: { id: `m${n}`, model: "claude-haiku-4-5", usage: { input_tokens: n, output_tokens: 1 } }
      }) + "\n"
    const file = transcript("d", line(1) + line(2))
    await run([file])
    fs.writeFileSync(file.file, line(3) + line(4) + line(5))
    const again = await run([file])
    expect(again.files).toEqual({ cached: 0, appended: 0, folded: 1 })
    expect(totalOf(again).tokens.input).toBe(12)
  })

  it("a damaged or foreign cache is ignored and rewritten, never an error", async () => {
    const files = [transcript("e", fs.readFileSync(fixture, "utf8"))]
    const good = totalOf(await run(files))
    const [cacheFile] = fs.readdirSync(cacheDir)
    for (const damage of ["{", "null", JSON.stringify({ version: 1, files: { x: 1 } }), "\u0000\u0001"]) {
      fs.writeFileSync(path.join(cacheDir, cacheFile!), damage)
      const result = await run(files)
      expect(result.files.folded).toBe(1)
      expect(totalOf(result)).toEqual(good)
    }
    // a fold entry that does not hold a fold is refolded too
    const json = JSON.parse(fs.readFileSync(path.join(cacheDir, cacheFile!), "utf8"))
    json.files[files[0]!.file].state = { days: { "2026-01-01": { nonsense: true } } }
    fs.writeFileSync(path.join(cacheDir, cacheFile!), JSON.stringify(json))
    expect(totalOf(await run(files)).tokens).toEqual(good.tokens)
    // another pricing table: folded again (dollars are in the folds)
    const cheaper: Pricing.PricingTable = {
      ...Pricing.builtinPricing,
      models: {
        ...Pricing.builtinPricing.models,
        "claude-opus-4-6": Pricing.builtinPricing.models["claude-haiku-4-5"]!
      }
    }
    expect((await run(files, cheaper)).files.folded).toBe(1)
  })

  it("an unwritable cache directory is a warning, not a failure", async () => {
    fs.writeFileSync(cacheDir, "a file where the directory should be")
    const result = await run([transcript("f", fs.readFileSync(fixture, "utf8"))])
    expect(result.cacheWarning).toContain(cacheDir)
    expect(totalOf(result).tokens.output).toBe(38899)
  })

  it("a directory or a vanished file is skipped and named", async () => {
    fs.mkdirSync(path.join(root, "g.jsonl"))
    const result = await run([
      { projectKey: "p", sessionId: "g", file: path.join(root, "g.jsonl"), kind: "main" },
      { projectKey: "p", sessionId: "h", file: path.join(root, "h.jsonl"), kind: "main" }
    ])
    expect(result.skipped).toEqual([
      { file: path.join(root, "g.jsonl"), reason: "not a regular file" },
      { file: path.join(root, "h.jsonl"), reason: "ENOENT" }
    ])
    expect(result.folds).toEqual([])
  })

  it("loadPricing: no file is the built-in table; a user file is applied; a bad one is refused by name", async () => {
    const file = path.join(root, "pricing.json")
    expect(Effect.runSync(TranscriptStats.loadPricing(file))).toBe(Pricing.builtinPricing)
    fs.writeFileSync(file, JSON.stringify({ models: { "claude-double": { input: 1, output: 2 } } }))
    expect(Pricing.ratesFor(Effect.runSync(TranscriptStats.loadPricing(file)), "claude-double")).toMatchObject({
      input: 1,
      output: 2
    })
    fs.writeFileSync(file, JSON.stringify({ models: { "claude-double": { input: "cheap" } } }))
    const error = Effect.runSync(Effect.flip(TranscriptStats.loadPricing(file)))
    expect(error.reason).toBe("InvalidShape")
    expect(error.message).toContain(file)
  })

  it("long strings skipped on the bytes give what the text path gives (escapes, multi-byte characters)", async () => {
    const noise = (n: number) => `é"\\\\"\\😀\u0000 ${"x".repeat(n)} "}{][`
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        type: i % 2 === 0 ? "assistant" : "user",
        timestamp: `2026-03-01T10:${String(i).padStart(2, "0")}:00.000Z`,
        toolUseResult: { stdout: noise(300 * i), stderr: noise(i) },
        message: {
          id: `m${i}`,
          model: "claude-haiku-4-5",
          content: i % 2 === 0
            ? [{ type: "tool_use", id: `t${i}`, name: `Tool${i % 3}`, input: { text: noise(100 * i) } }]
            : [{ type: "tool_result", tool_use_id: `t${i - 1}`, content: noise(500 * i) }],
          usage: { input_tokens: i, output_tokens: 2 * i }
        }
      }))
    const result = await run([transcript("bytes", lines.join("\n") + "\n")])
    const text = StatsFold.empty()
    const ctx = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" as const }
    for (const line of lines) StatsFold.foldLine(text, line, ctx)
    expect(result.folds[0]!.fold.days).toEqual(text.days)
    expect(result.folds[0]!.fold.malformed).toBe(0)
    expect(Object.values(text.days)[0]!.toolResults).toBe(20)
  })
})
