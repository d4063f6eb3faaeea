/**
 * `acx stats --by block` from the built binary: the 5-hour windows and the gaps between them,
 * their figures adding up to `--by day`'s, the quota readings of each from
 * `$ACX_HOME/quota/readings.jsonl` (damaged lines skipped), the same windows `--from` a store; and
 * `--live` as a real child process: a line per refresh while a transcript grows, SIGINT ending it
 * with exit 0, and on a terminal (util-linux `script`) a redraw in place with the cursor shown
 * again at the end.
 */
import { removeTreeWhenIdle } from "@acx/fixtures/treeRemoval"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, parseJson, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { assistantLine } from "./utils/assistantLine.js"

const SESSION = "00000000-0000-4000-8000-000000000001"
const H = 3_600_000
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0)

const assistant = (i: number, ms: number, output = 1000) => `${assistantLine({ sessionId: SESSION, i, ms, output })}\n`

let root: string
let configDir: string
let acxHome: string
const env = () => ({ CLAUDE_CONFIG_DIR: configDir, ACX_HOME: acxHome, TZ: "UTC" })
const transcript = () => path.join(configDir, "projects", "-work-p", `${SESSION}.jsonl`)

interface BlockJson {
  readonly kind: string
  readonly start: string
  readonly end: string
  readonly active: boolean
  readonly messages: number
  readonly costUSD: number
  readonly quota:
    | { readonly firstPercentage: number; readonly lastPercentage: number; readonly peakPercentage: number }
    | null
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-blocks-"))
  configDir = path.join(root, "claude")
  acxHome = path.join(root, "home")
  fs.mkdirSync(path.dirname(transcript()), { recursive: true })
  // window 09:00–14:00 (09:10, 13:59), a message at 14:00 sharp opens the next (14:00–19:00),
  // then a gap to 23:00
  fs.writeFileSync(
    transcript(),
    assistant(1, T0 + 10 * 60_000) + assistant(2, T0 + 5 * H - 60_000) + assistant(3, T0 + 5 * H) +
      "not json\n" + assistant(4, T0 + 14 * H + 30 * 60_000)
  )
  fs.mkdirSync(path.join(acxHome, "quota"), { recursive: true })
  const reading = (at: number, used: number) =>
    JSON.stringify({ at, window: "five_hour", usedPercentage: used, resetsAt: Math.floor((T0 + 5 * H) / 1000) })
  fs.writeFileSync(
    path.join(acxHome, "quota", "readings.jsonl"),
    [
      reading(T0 + 20 * 60_000, 10),
      "{\"at\":1,\"window\":\"five_hour\",\"usedPercentage\":\"<script>\"",
      "x".repeat(100_000),
      reading(T0 + 60 * 60_000, 55),
      JSON.stringify({ at: T0 + 61 * 60_000, window: "seven_day", usedPercentage: 99, resetsAt: 1 }),
      reading(T0 + 2 * H, 40)
    ].join("\n") + "\n"
  )
})

// a failed test leaves no process behind
const children: Array<ReturnType<typeof spawn>> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  return removeTreeWhenIdle(root)
}, 70_000)

describe("acx stats --by block", () => {
  // the config dir's windows as JSON: one run, which the first and the `--from` test both read
  let dirRun: ReturnType<typeof acx> | undefined
  const blocksOfDir = () => (dirRun ??= acx(["stats", "--by", "block", "--json"], { env: env() }))

  it("windows on hours, a message at the end opening the next, gaps, quota readings, figures adding up", async () => {
    const result = await blocksOfDir()
    expect(result.code).toBe(0)
    const json = parseJson<{ rows: ReadonlyArray<BlockJson>; quotaReadings: number }>(result)
    expect(json.rows.map((row) => [row.kind, row.start, row.end, row.messages])).toEqual([
      ["block", "2026-01-05T09:00:00.000Z", "2026-01-05T14:00:00.000Z", 2],
      ["block", "2026-01-05T14:00:00.000Z", "2026-01-05T19:00:00.000Z", 1],
      ["gap", "2026-01-05T19:00:00.000Z", "2026-01-05T23:00:00.000Z", 0],
      ["block", "2026-01-05T23:00:00.000Z", "2026-01-06T04:00:00.000Z", 1]
    ])
    expect(json.rows.every((row) => !row.active)).toBe(true)
    expect(json.quotaReadings).toBe(4)
    expect(json.rows[0]!.quota).toMatchObject({ firstPercentage: 10, lastPercentage: 40, peakPercentage: 55 })
    expect(json.rows[1]!.quota).toBeNull()
    const days = parseJson<{ total: { costUSD: number } }>(
      await acx(["stats", "--by", "day", "--json"], { env: env() })
    )
    expect(json.rows.reduce((sum, row) => sum + row.costUSD, 0)).toBeCloseTo(days.total.costUSD, 9)

    const table = await acx(["stats", "--by", "block"], { env: env() })
    expect(table.code).toBe(0)
    expect(table.stdout).toContain("2026-01-05 09:00  14:00")
    expect(table.stdout).toContain("10%→40% (peak 55%)")
    expect(table.stdout).toContain("gap 4h 00m")
    expect(table.stdout).toContain("no active window (the last ended 2026-01-06 04:00)")
    expect(table.stdout).not.toContain("<script>")
  }, TEST_TIMEOUT_MS)

  it(
    "--since/--until keep the windows starting on those days; --live needs --by block; a FIFO as readings file is no reading",
    async () => {
      const since = await acx(["stats", "--by", "block", "--json", "--since", "2026-01-06"], { env: env() })
      expect(parseJson<{ rows: ReadonlyArray<BlockJson> }>(since).rows).toEqual([])
      const until = await acx(["stats", "--by", "block", "--json", "--until", "2026-01-05"], { env: env() })
      expect(parseJson<{ rows: ReadonlyArray<BlockJson> }>(until).rows).toHaveLength(4)
      const live = await acx(["stats", "--live"], { env: env() })
      expect(live.code).toBe(2)
      expect(live.stderrLines).toEqual([expect.stringContaining("--live: only with --by block")])
      const home = path.join(root, "fifo-home")
      fs.mkdirSync(path.join(home, "quota"), { recursive: true })
      const fifo = path.join(home, "quota", "readings.jsonl")
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
      const result = await acx(["stats", "--by", "block"], { env: { ...env(), ACX_HOME: home }, timeoutMs: 30_000 })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("not a regular file")
    },
    TEST_TIMEOUT_MS
  )

  it("--from a store: the same windows", async () => {
    const file = path.join(root, "store.db")
    const synced = await acx(["sync", "--config-dir", configDir, "--to", `sqlite:${file}`, "--json"], { env: env() })
    expect(synced.code).toBe(0)
    const fromStore = await acx(["stats", "--by", "block", "--json", "--from", `sqlite:${file}`], { env: env() })
    const fromDir = await blocksOfDir()
    const rows = (result: typeof fromDir) =>
      parseJson<{ rows: ReadonlyArray<BlockJson> }>(result).rows.map((row) => [row.start, row.messages, row.costUSD])
    expect(rows(fromStore)).toEqual(rows(fromDir))
    expect(rows(fromDir)).toHaveLength(4)
  }, TEST_TIMEOUT_MS)
})

/** Spawns `command` and collects its output; `waitFor` resolves when the output passes `test`. */
const start = (command: string, args: ReadonlyArray<string>, extraEnv: Record<string, string>) => {
  const child = spawn(command, args, {
    env: { ...process.env, ...extraEnv, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiters: Array<() => void> = []
  const wake = () => waiters.splice(0).forEach((f) => f())
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    wake()
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
    wake()
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  children.push(child)
  const waitFor = async (test: (out: string) => boolean): Promise<void> => {
    const deadline = Date.now() + 40_000
    while (!test(stdout)) {
      if (Date.now() > deadline) throw new Error(`timed out; stdout: ${stdout.slice(-2000)}\nstderr: ${stderr}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 500)
      })
    }
  }
  return { child, exited, waitFor, out: () => stdout, err: () => stderr }
}

describe("acx stats --by block: the active window's rate", () => {
  it("a 1-second burst has no burn rate and no projection (text and JSON)", async () => {
    const dir = path.join(root, "burst")
    const file = path.join(dir, "projects", "-work-burst", `${SESSION}.jsonl`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const now = Date.now()
    // two messages a second apart, $0.10 together: once extrapolated to hundreds of dollars an hour
    fs.writeFileSync(file, assistant(1, now - 61_000, 3_300) + assistant(2, now - 60_000, 3_300))
    const runEnv = { CLAUDE_CONFIG_DIR: dir, ACX_HOME: path.join(root, "burst-home") }
    const text = await acx(["stats", "--by", "block"], { env: runEnv })
    expect(text.code).toBe(0)
    const active = text.stdout.split("\n").find((line) => line.includes("so far"))!
    expect(active).toMatch(/ · \$0\.10 so far · .* · burn rate - · resets in /)
    expect(active).not.toContain("projected")
    const json = parseJson<{ rows: Array<{ active: boolean; burnRate: unknown; projection: unknown }> }>(
      await acx(["stats", "--by", "block", "--json"], { env: runEnv })
    )
    expect(json.rows.find((row) => row.active)).toMatchObject({ burnRate: null, projection: null })
  }, TEST_TIMEOUT_MS)
})

describe("acx stats --by block --live", () => {
  it("not on a terminal: one line per refresh, the cost growing with the transcript; SIGINT exits 0", async () => {
    const dir = path.join(root, "live")
    const file = path.join(dir, "projects", "-work-live", `${SESSION}.jsonl`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const now = Date.now()
    fs.writeFileSync(file, assistant(1, now - 20 * 60_000))
    const home = path.join(root, "live-home")
    const live = start(process.execPath, [BIN, "stats", "--by", "block", "--live", "--interval", "1"], {
      CLAUDE_CONFIG_DIR: dir,
      ACX_HOME: home
    })
    await live.waitFor((out) => out.split("\n").filter((line) => line.includes("so far")).length >= 1)
    const first = live.out().split("\n").find((line) => line.includes("so far"))!
    // a window that ends on the next day names its date (a run from 19:00 on, UTC)
    expect(first).toMatch(
      /window \d\d:00–(\d{4}-\d\d-\d\d )?\d\d:00 · \$0\.02 so far · 1100 tokens · burn rate - · resets in /
    )
    fs.appendFileSync(file, assistant(2, now - 60_000, 50_000))
    await live.waitFor((out) => out.includes("51.2k tokens"))
    const lines = live.out().trim().split("\n")
    // one line per refresh, no escape sequences
    expect(lines.every((line) => / so far · /.test(line))).toBe(true)
    expect(live.out()).not.toContain("\u001b")
    expect(lines.at(-1)).toMatch(/\/h · projected \$[\d.]+ · resets in /)
    live.child.kill("SIGINT")
    expect(await live.exited).toBe(0)
  }, TEST_TIMEOUT_MS)

  // `exec`: `script` runs the command through $SHELL (or /bin/sh) -c, and dash, unlike bash, does
  // not replace itself with a lone command; the Ctrl-C then reaches the shell too, which dies of it
  // (130) whatever acx answers
  const onTerminal = (name: string) => {
    const dir = path.join(root, name)
    const file = path.join(dir, "projects", "-work-tty", `${SESSION}.jsonl`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, assistant(1, Date.now() - 30 * 60_000) + assistant(2, Date.now() - 60_000))
    const command = [process.execPath, BIN, "stats", "--by", "block", "--live", "--interval", "1"]
      .map((word) => `'${word}'`).join(" ")
    return start("script", ["-qefc", `exec ${command}`, "/dev/null"], {
      CLAUDE_CONFIG_DIR: dir,
      ACX_HOME: path.join(root, `${name}-home`),
      TERM: "xterm",
      COLUMNS: "160",
      LINES: "40"
    })
  }
  const cursorShownAtTheEnd = (out: string) => out.lastIndexOf("\u001b[?25h") > out.lastIndexOf("\u001b[?25l")

  it("on a terminal (util-linux script): redrawn in place, Ctrl-C exits 0 with the cursor shown again", async (ctx) => {
    if (spawnSyncOk("script", ["--version"]) === false) return ctx.skip()
    // a Ctrl-C as soon as the cursor is hidden, before the first table: answered too (the
    // listener is installed before the cursor is hidden), beside one after two redraws
    const early = onTerminal("tty-early")
    const tty = onTerminal("tty")
    await early.waitFor((out) => out.includes("\u001b[?25l"))
    early.child.stdin.write("\u0003")
    await tty.waitFor((out) => (out.match(/START\s+END/g) ?? []).length >= 2)
    expect(tty.out()).toContain("\u001b[?25l")
    expect(tty.out()).toContain("\u001b[H\u001b[J")
    expect(tty.out()).toContain("ACTIVE")
    tty.child.stdin.write("\u0003")
    expect(await tty.exited).toBe(0)
    expect(cursorShownAtTheEnd(tty.out())).toBe(true)
    expect(await early.exited, early.out()).toBe(0)
    expect(cursorShownAtTheEnd(early.out())).toBe(true)
  }, TEST_TIMEOUT_MS)
})

const spawnSyncOk = (command: string, args: ReadonlyArray<string>): boolean => {
  try {
    return spawnSync(command, args).status === 0
  } catch {
    return false
  }
}
