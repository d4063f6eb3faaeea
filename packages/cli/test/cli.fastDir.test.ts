/**
 * The fast path over a config directory (`src/fastDir.ts`, `dist/fast-dir.cjs`) through the BUILT
 * binary, on a config directory built from the real fixtures: for every command line shape it
 * takes it answers (it says so on stderr under `ACX_FAST_REPORT=1`) and prints byte for byte what
 * the full path (`ACX_NO_FAST=1`, or in this process: `run` below) prints from the same cache
 * state — cold (empty `$ACX_HOME`) and warm. It is never stale: after a line is appended, a file touched, deleted or renamed, it
 * prints what a cold full run prints; a corrupt cache is ignored and rewritten; two cold runs at
 * once agree. On any doubt it hands the command back: a symbolic link in the tree, a pricing
 * file, an option it does not take, no config directory, an empty one, `ACX_NO_FAST=1`, a
 * listing cache that is missing or behind. Its bundle loads no Effect.
 */
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseRequest, statsOutput } from "../src/fastDir.js"
import { acx, type AcxResult, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const FAST = (command: string) => `acx: fast path: ${command} (config directory)\n`

let root = ""
let built: Fixtures.BuiltConfigDir
let homes = 0

/** A fresh `$ACX_HOME` (empty caches). */
const freshHome = () => path.join(root, `home-${homes++}`)

/**
 * `fast`: the binary, whose fast path answers or hands back. Else the reference, the full path,
 * run in this process (`utils/inProcess.ts`: `run` of `src/Cli.ts`, what the binary runs when
 * its fast path hands back), a process start saved per reference; the binary's own full path
 * runs where the fast one hands back (below: a missing directory, a symbolic link, every change
 * of the listing, `ACX_NO_FAST=1`), and its output is compared there too.
 */
const run = (args: ReadonlyArray<string>, home: string, fast: boolean, configDir = built.configDir) =>
  fast
    ? acx([...args, "--config-dir", configDir], { env: { ACX_HOME: home, ACX_FAST_REPORT: "1" } })
    : acxInProcess([...args, "--config-dir", configDir], { env: { ACX_HOME: home } })

const answered = (result: AcxResult, command: string) => {
  expect(result.code, result.stderr).toBe(0)
  expect(result.stderr).toBe(FAST(command))
}
const handedBack = (result: AcxResult, command: string) => expect(result.stderr).not.toContain(FAST(command))

/**
 * What the fast path prints for `stats` `args` over `configDir` with `$ACX_HOME` at `home`,
 * computed in this process by the functions the binary's fast path calls; `undefined` hands the
 * command back. Each case the binary hands back costs it a full-path run; the binary's hand-back
 * itself is proved by the cases that still run it.
 */
const statsInProcess = async (args: ReadonlyArray<string>, home: string, configDir = built.configDir) => {
  const request = parseRequest(["node", "acx", ...args, "--config-dir", configDir])
  if (request === undefined) return undefined
  const saved = process.env["ACX_HOME"]
  process.env["ACX_HOME"] = home
  try {
    return await statsOutput(request)
  } finally {
    if (saved === undefined) delete process.env["ACX_HOME"]
    else process.env["ACX_HOME"] = saved
  }
}

/** The fast path's output and the full path's, each from its own home in the same cache state. */
const compare = async (args: ReadonlyArray<string>, homes: { fast: string; full: string }, configDir?: string) => {
  const fast = await run(args, homes.fast, true, configDir)
  const full = await run(args, homes.full, false, configDir)
  expect(full.code, full.stderr).toBe(0)
  return { fast, full }
}

/** A transcript deleted, another renamed (a new session id): what the caches must not outlive. */
const removals = (deleted: string, renamed: string): ReadonlyArray<readonly [string, () => void]> => [
  ["a deleted file", () => fs.rmSync(deleted)],
  [
    "a renamed file",
    () => fs.renameSync(renamed, path.join(path.dirname(renamed), "0f8a3c1e-5b7d-4e2a-9c6f-1d3b5a7e9c2f.jsonl"))
  ]
]

beforeAll(() => {
  root = tempDir("fastdir")
  built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
})
afterAll(() => removeTreeWhenIdle(root), 70_000)

describe("the fast path over a config directory: acx stats", () => {
  const shapes: ReadonlyArray<ReadonlyArray<string>> = [
    ["stats"],
    ["stats", "--json"],
    ["stats", "--by", "day"],
    ["stats", "--json", "--by", "model"],
    ["stats", "--by", "week"],
    ["stats", "--by", "month", "--since", "2025-01-01", "--until", "20301231"],
    ["stats", "--since", "2030-01-01", "--json"]
  ]

  // One pair of homes for every shape, in order: the first shape folds every transcript (cold),
  // then runs warm; each later one reads the folds cached (warm: the fold does not depend on the
  // shape, its printing does) and keeps its report; the JSON runs again to print its kept report
  // (the output string a warm run kept, printed as it was whatever the shape; its staleness is
  // the kept-report test's)
  let shared: { fast: string; full: string } | undefined
  for (const [i, args] of shapes.entries()) {
    const states = i === 0 ? ["cold", "warm"] : i === 1 ? ["warm", "kept"] : ["warm"]
    it(
      `answers ${args.join(" ")} ${states.join(" and ")} as the full path does`,
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const homes = (shared ??= { fast: freshHome(), full: freshHome() })
        for (const state of states) {
          const { fast, full } = await compare(args, homes)
          answered(fast, "stats")
          expect(fast.stdout, state).toBe(full.stdout)
        }
      }
    )
  }

  it("is never stale: appended, touched, deleted, renamed transcripts", { timeout: TEST_TIMEOUT_MS }, async () => {
    const configDir = path.join(root, "changing")
    const sessions = Fixtures.buildClaudeConfigDir(configDir).sessions
    const home = freshHome()
    // a warm run keeps its report: each change below must also make it stale
    answered(await run(["stats", "--json"], home, true, configDir), "stats")
    const [first, second, third] = sessions
    const lines = fs.readFileSync(first!.file, "utf8").split("\n").filter((line) => line.includes("\"usage\""))
    const changes: ReadonlyArray<readonly [string, () => void]> = [
      ["an appended line", () => fs.appendFileSync(second!.file, `${lines.at(-1)!}\n`)],
      ["a touched file", () => fs.utimesSync(third!.file, new Date(2031, 0, 1), new Date(2031, 0, 1))],
      ...removals(first!.file, second!.file)
    ]
    // after each change, the JSON (every figure; the table is the same figures, which the shapes
    // above compare) against the truth: a cold full run
    for (const [name, change] of changes) {
      change()
      const json = await run(["stats", "--json"], home, true, configDir)
      answered(json, "stats")
      const fullJson = await run(["stats", "--json"], freshHome(), false, configDir)
      const { read: _fast, ...fastJson } = JSON.parse(json.stdout)
      const { read: _full, ...coldJson } = JSON.parse(fullJson.stdout)
      expect(fastJson, name).toEqual(coldJson)
    }
  })

  it("ignores and rewrites a corrupt cache; two cold runs at once agree", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    const expected = (await run(["stats", "--json"], freshHome(), false)).stdout
    answered(await run(["stats", "--json"], home, true), "stats")
    const cacheDir = path.join(home, "cache")
    const cacheFile = fs.readdirSync(cacheDir).find((name) => name.startsWith("stats-"))!
    for (const garbage of ["{not json", "{\"version\":2,\"files\":{\"x\":1}}", ""]) {
      fs.writeFileSync(path.join(cacheDir, cacheFile), garbage)
      const fast = await run(["stats", "--json"], home, true)
      answered(fast, "stats")
      expect(fast.stdout).toBe(expected)
      // rewritten whole, at the cache's version (TranscriptFolds: 3)
      expect(JSON.parse(fs.readFileSync(path.join(cacheDir, cacheFile), "utf8")).version).toBe(3)
    }
    const shared = freshHome()
    const both = await Promise.all([run(["stats", "--json"], shared, true), run(["stats", "--json"], shared, true)])
    // each folds or finds the other's cache (`read` says which): the figures are the same
    const { read: _read, ...figures } = JSON.parse(expected)
    for (const result of both) {
      expect(result.code, result.stderr).toBe(0)
      const { read: _, ...theirs } = JSON.parse(result.stdout)
      expect(theirs).toEqual(figures)
    }
    const warm = await run(["stats", "--json"], shared, true)
    answered(warm, "stats")
    expect(JSON.parse(warm.stdout).read.folded).toBe(0)
  })

  it("prints a warm run's kept report only while nothing it read changed", { timeout: TEST_TIMEOUT_MS }, async () => {
    const configDir = path.join(root, "summary")
    const sessions = Fixtures.buildClaudeConfigDir(configDir).sessions
    const home = freshHome()
    const args = ["stats", "--json", "--by", "day"]
    const truth = async () => (await run(args, freshHome(), false, configDir)).stdout
    const warmFull = async () => (await run(args, home, false, configDir)).stdout
    answered(await run(args, home, true, configDir), "stats")
    // the second run folds nothing and keeps its report; the third prints it
    for (let i = 0; i < 2; i++) {
      const fast = await run(args, home, true, configDir)
      answered(fast, "stats")
      expect(fast.stdout).toBe(await warmFull())
    }
    const summary = () => {
      const dir = path.join(home, "cache")
      return path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith("stats-summary-"))!)
    }
    expect(fs.existsSync(summary())).toBe(true)
    const lines = fs.readFileSync(sessions[0]!.file, "utf8").split("\n").filter((line) => line.includes("\"usage\""))
    fs.appendFileSync(sessions[1]!.file, `${lines.at(-1)!}\n`)
    const appended = await run(args, home, true, configDir)
    const { read: _a, ...appendedJson } = JSON.parse(appended.stdout)
    const { read: _b, ...truthJson } = JSON.parse(await truth())
    expect(appendedJson).toEqual(truthJson)
    expect(JSON.parse(appended.stdout).read.appended).toBe(1)
    // the statistics cache removed: the full path would fold again, so no kept report is printed
    await run(args, home, true, configDir)
    fs.rmSync(
      path.join(
        home,
        "cache",
        fs.readdirSync(path.join(home, "cache")).find((name) => /^stats-[0-9a-f]{8}\.json$/.test(name))!
      )
    )
    const refolded = await run(args, home, true, configDir)
    expect(JSON.parse(refolded.stdout).read.folded).toBeGreaterThan(0)
    // a corrupt kept report is none
    await run(args, home, true, configDir)
    fs.writeFileSync(summary(), "{\"version\":1,\"digest\":")
    const again = await run(args, home, true, configDir)
    answered(again, "stats")
    expect(again.stdout).toBe(await warmFull())
  })

  it("hands back what it is not certain of", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    // an option or grouping it does not take is the parser's refusal (its parts' test below):
    // projects, machines and users are the sessions' origins (git remotes), not the files' folds
    // the same call answers the plain command (a kept report lands in this home: it is not read
    // by the cases below, which are refused before)
    expect(await statsInProcess(["stats"], home)).toMatch(/^tokens .* total/m)
    expect(await statsInProcess(["stats", "--by", "project"], home)).toBeUndefined()
    expect(await statsInProcess(["stats", "--since", "yesterday"], home)).toBeUndefined()
    const empty = path.join(root, "empty")
    fs.mkdirSync(path.join(empty, "projects"), { recursive: true })
    expect(await statsInProcess(["stats"], home, empty)).toBeUndefined()
    // a pricing file: the full path reads it
    const priced = freshHome()
    fs.mkdirSync(priced, { recursive: true })
    fs.writeFileSync(path.join(priced, "pricing.json"), "{}")
    expect(await statsInProcess(["stats"], priced)).toBeUndefined()
    // a valid one is loaded by the full path's own loader (`StatsPricing`): answered, its prices
    const custom = freshHome()
    fs.mkdirSync(custom, { recursive: true })
    const models = { "claude-sonnet-4-5": { input: 1000, output: 2000 } }
    fs.writeFileSync(path.join(custom, "pricing.json"), JSON.stringify({ models }))
    // cold then warm: the warm run is what the fast path prints from the cache the cold one left
    expect((await run(["stats", "--json"], custom, false)).code).toBe(0)
    const fullCustom = await run(["stats", "--json"], custom, false)
    expect(fullCustom.code, fullCustom.stderr).toBe(0)
    expect(fullCustom.stdout).toContain("pricing.json for claude-sonnet-4-5")
    expect(`${await statsInProcess(["stats", "--json"], custom)}\n`).toBe(fullCustom.stdout)
    // through the binary: no config directory is the full path's error
    const missing = await run(["stats"], home, true, path.join(root, "nowhere"))
    handedBack(missing, "stats")
    expect(missing.code).toBe(1)
    // a symbolic link in the tree: the full path decides whether it may be read
    const linked = path.join(root, "linked")
    const sessions = Fixtures.buildClaudeConfigDir(linked).sessions
    const target = path.join(root, "outside.jsonl")
    fs.renameSync(sessions[0]!.file, target)
    fs.symlinkSync(target, sessions[0]!.file)
    const result = await run(["stats"], home, true, linked)
    handedBack(result, "stats")
    expect(result.stderr).toContain("symbolic link")
    // a directory named like a transcript is warned about by the full path
    const fifo = path.join(root, "fifo")
    const fifoSessions = Fixtures.buildClaudeConfigDir(fifo).sessions
    fs.rmSync(fifoSessions[0]!.file)
    fs.mkdirSync(fifoSessions[0]!.file)
    expect(await statsInProcess(["stats"], home, fifo)).toBeUndefined()
  })
})

describe("the fast path over a config directory: acx sessions", () => {
  it("answers from a listing cache that holds every transcript as it is", { timeout: TEST_TIMEOUT_MS }, async () => {
    const homes = { fast: freshHome(), full: freshHome() }
    for (const args of [["sessions"], ["sessions", "--json"]]) {
      // the first listing fills the cache: handed back
      const first = await compare(args, homes)
      expect(first.fast.stdout).toBe(first.full.stdout)
      const warm = await compare(args, homes)
      answered(warm.fast, "sessions")
      expect(warm.fast.stdout).toBe(warm.full.stdout)
    }
  })

  it("is never stale: each change hands back once, then answers again", { timeout: TEST_TIMEOUT_MS }, async () => {
    const configDir = path.join(root, "listing")
    const sessions = Fixtures.buildClaudeConfigDir(configDir).sessions
    const home = freshHome()
    await run(["sessions"], home, true, configDir)
    answered(await run(["sessions"], home, true, configDir), "sessions")
    const [first, second, third] = sessions
    const title = JSON.stringify({
      type: "custom-title",
      customTitle: "renamed by a test",
      sessionId: third!.sessionId
    })
    const cacheFile = () => {
      const dir = path.join(home, "cache")
      return path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith("sessions-"))!)
    }
    const changes: ReadonlyArray<readonly [string, () => void]> = [
      ["an appended title", () => fs.appendFileSync(third!.file, `${title}\n`)],
      ["a touched file", () => fs.utimesSync(second!.file, new Date(2031, 0, 1), new Date(2031, 0, 1))],
      ...removals(first!.file, second!.file),
      ["a corrupt cache", () => fs.writeFileSync(cacheFile(), "{\"version\":2,")]
    ]
    // after each change: handed back (the full path lists, and rewrites the cache), then answered
    // with what the full path printed in the same state; after the last, what a cold full run
    // prints (the state every change built up: a cold run per change proved each again)
    let last = ""
    for (const [name, change] of changes) {
      change()
      const full = await run(["sessions", "--json"], home, true, configDir)
      handedBack(full, "sessions")
      const fast = await run(["sessions", "--json"], home, true, configDir)
      answered(fast, "sessions")
      expect(fast.stdout, name).toBe(full.stdout)
      last = fast.stdout
    }
    expect(last).toBe((await run(["sessions", "--json"], freshHome(), false, configDir)).stdout)
    expect((await run(["sessions"], home, true, configDir)).stdout).toContain("renamed by a test")
  })

  it("hands back options it does not take", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    await run(["sessions"], home, true)
    answered(await run(["sessions"], home, true), "sessions")
    // options it does not take (`-p`, a repeated `--json`) are the parser's refusal (its parts'
    // test below); `ACX_NO_FAST=1` is the binary's
    const noFast = await acx(["sessions", "--config-dir", built.configDir], {
      env: { ACX_HOME: home, ACX_FAST_REPORT: "1", ACX_NO_FAST: "1" }
    })
    handedBack(noFast, "sessions")
    expect(noFast.code).toBe(0)
  })
})

describe("the fast path over a config directory: its parts", () => {
  it("parses only the shapes it takes", () => {
    const argv = (...args: Array<string>) => ["node", "acx", ...args]
    expect(parseRequest(argv("stats", "--by", "day", "--json"))).toMatchObject({
      command: "stats",
      by: "day",
      json: true
    })
    expect(parseRequest(argv("sessions", "--config-dir", "x"))).toMatchObject({ command: "sessions", configDir: "x" })
    expect(parseRequest(argv("sessions", "--by", "day"))).toBeUndefined()
    expect(parseRequest(argv("sessions", "-p", "-work-p"))).toBeUndefined()
    expect(parseRequest(argv("sessions", "--json", "--json"))).toBeUndefined()
    expect(parseRequest(argv("stats", "--by", "hour"))).toBeUndefined()
    for (const by of ["project", "machine", "user", "block"]) {
      expect(parseRequest(argv("stats", "--by", by))).toBeUndefined()
    }
    expect(parseRequest(argv("stats", "--by=day"))).toBeUndefined()
    expect(parseRequest(argv("stats", "--follow-symlinks"))).toBeUndefined()
    expect(parseRequest(argv("stats", "--project", "-work-p"))).toBeUndefined()
    expect(parseRequest(argv("stats", "--config-dir"))).toBeUndefined()
    expect(parseRequest(argv("show", "x"))).toBeUndefined()
  })

  it("its bundle loads no Effect", () => {
    const map = JSON.parse(fs.readFileSync(new URL("../dist/fast-dir.cjs.map", import.meta.url), "utf8")) as {
      readonly sources: ReadonlyArray<string>
    }
    expect(map.sources.some((source) => source.includes("TranscriptFolds"))).toBe(true)
    expect(map.sources.filter((source) => /node_modules\/(effect|@effect)\//.test(source))).toEqual([])
  })
})
