/**
 * `acx statusline` as Claude Code runs it (the built bundle, real processes): the line from a
 * subscriber's and an API-key user's input, NO_COLOR, --plain and --format; bad, empty and
 * never-closing stdin (a line within the hooks' deadline, exit 0); the quota readings recorded
 * once each and rotated; the cached totals refreshed in the background; install, uninstall and
 * --wrap in a private config directory (idempotent, backups, the replaced statusline put back).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { acx, BIN, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const roots: Array<string> = []
afterAll(() => Promise.all(roots.splice(0).map((root) => removeTreeWhenIdle(root))), 70_000)
const scratch = (prefix: string) => {
  const dir = tempDir(prefix)
  roots.push(dir)
  return dir
}

// Claude Code sends the same reset time until the window resets
const RESETS_S = Math.floor(Date.now() / 1000)
const input = (configDir: string, rateLimits?: { five: number; seven: number }) =>
  JSON.stringify({
    session_id: "2955e966-cf77-404a-9ab1-338a1fee76c6",
    transcript_path: path.join(configDir, "projects", "-p", "2955e966-cf77-404a-9ab1-338a1fee76c6.jsonl"),
    cwd: "/p",
    model: { id: "claude-opus-5-5", display_name: "Opus 5.5" },
    cost: { total_cost_usd: 1.5, total_duration_ms: 5611 },
    context_window: { context_window_size: 200000, used_percentage: 42, current_usage: null },
    ...(rateLimits === undefined ? {} : {
      rate_limits: {
        five_hour: { used_percentage: rateLimits.five, resets_at: RESETS_S + 7200 + 600 },
        seven_day: { used_percentage: rateLimits.seven, resets_at: RESETS_S + 3 * 86400 + 7200 }
      }
    })
  })

const assistantLine = (ms: number) =>
  JSON.stringify({
    type: "assistant",
    timestamp: new Date(ms).toISOString(),
    sessionId: "2955e966-cf77-404a-9ab1-338a1fee76c6",
    uuid: `u-${ms}`,
    requestId: `req-${ms}`,
    message: {
      id: `msg-${ms}`,
      role: "assistant",
      model: "claude-sonnet-4-5",
      usage: { input_tokens: 100000, output_tokens: 20000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      content: [{ type: "text", text: "ok" }]
    }
  }) + "\n"

describe("acx statusline", () => {
  it("prints the line of a subscriber's input, coloured unless NO_COLOR or --plain", async () => {
    const home = scratch("statusline-home")
    const config = scratch("statusline-config")
    fs.mkdirSync(path.join(config, "projects"))
    const coloured = await acx(["statusline"], {
      input: input(config, { five: 37, seven: 12 }),
      env: { ACX_HOME: home, NO_COLOR: undefined }
    })
    expect(coloured.code).toBe(0)
    expect(coloured.stdout).toContain("\u001b[")
    const line = await acx(["statusline"], { input: input(config, { five: 37, seven: 12 }), env: { ACX_HOME: home } })
    // today's cost once the refresh the first run started has cached it (an empty config dir: $0.00)
    const expected = /^Opus 5\.5 │ ctx 42% │ session \$1\.50( │ today \$0\.00)? │ 5h 37% ↻2h\d\dm │ 7d 12% ↻3d\dh\n$/
    expect(line.stdout).toMatch(expected)
    const plain = await acx(["statusline", "--plain"], {
      input: input(config, { five: 37, seven: 12 }),
      env: { ACX_HOME: home, NO_COLOR: undefined }
    })
    expect(plain.stdout).toMatch(expected)
    const formatted = await acx(["statusline", "--format", "{model} · {seven_day} · {today_cost}"], {
      input: input(config, { five: 37, seven: 12 }),
      env: { ACX_HOME: home }
    })
    expect(formatted.stdout).toMatch(/^Opus 5\.5 · 7d 12% ↻3d\dh( · today \$0\.00)?\n$/)
  }, TEST_TIMEOUT_MS)

  it("prints a minimal line for bad or empty stdin and exits 0; a wrong option exits 2", async () => {
    const home = scratch("statusline-bad")
    const config = scratch("statusline-bad-config")
    for (const text of ["", "not json", "[1,2]", "{\"model\":", "\u0000\u00ff".repeat(10_000)]) {
      const result = await acx(["statusline"], { input: text, env: { ACX_HOME: home, CLAUDE_CONFIG_DIR: config } })
      expect(result.code).toBe(0)
      // what the cache knows (nothing, or today's $0.00 once a refresh ran), and nothing else
      expect(result.stdout).toMatch(/^acx( │ today \$0\.00)?\n$/)
    }
    const wrong = await acx(["statusline", "--colour"], { input: "{}", env: { ACX_HOME: home } })
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/^acx: statusline takes/)
  }, TEST_TIMEOUT_MS)

  it("prints within the stdin deadline when the writer never closes the pipe", async () => {
    const home = scratch("statusline-open")
    // the pipe held open until the process has exited: only the deadline can end this test (a
    // statusline that waited for the end of its input would run into the test's timeout)
    const run = await new Promise<{ code: number | null; stdout: string; exitedWhileOpen: boolean }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "statusline"], {
        env: { ...process.env, ACX_HOME: home, NO_COLOR: "1", CLAUDE_CONFIG_DIR: home },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stdin.on("error", () => {})
      // half an object, then nothing
      child.stdin.write("{\"model\":{\"display_name\":\"Opus")
      child.on("close", (code) => {
        const exitedWhileOpen = !child.stdin.writableEnded
        child.stdin.end()
        resolve({ code, stdout, exitedWhileOpen })
      })
    })
    expect(run.exitedWhileOpen).toBe(true)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^acx( │ today \$0\.00)?\n$/)
  }, TEST_TIMEOUT_MS)

  it("uses a whole input at once while the pipe stays open, and prints a line for `{}`", async () => {
    const home = scratch("statusline-whole")
    // the deadline far beyond the test's timeout: only the "parsed at once" path can end this test
    const run = (text: string) =>
      new Promise<{ code: number | null; stdout: string; exitedWhileOpen: boolean }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "statusline"], {
          env: {
            ...process.env,
            ACX_HOME: home,
            NO_COLOR: "1",
            CLAUDE_CONFIG_DIR: home,
            ACX_STDIN_DEADLINE_MS: "600000"
          },
          stdio: ["pipe", "pipe", "pipe"]
        })
        let stdout = ""
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
        child.stdin.on("error", () => {})
        // a whole document, and the pipe held open until the process has exited
        child.stdin.write(text)
        child.on("close", (code) => {
          const exitedWhileOpen = !child.stdin.writableEnded
          child.stdin.end()
          resolve({ code, stdout, exitedWhileOpen })
        })
      })
    const empty = await run("{}\n")
    expect(empty).toMatchObject({ code: 0, exitedWhileOpen: true })
    expect(empty.stdout).toMatch(/^acx( │ today \$0\.00)?\n$/)
    const model = await run(JSON.stringify({ model: { display_name: "Opus 5.5" } }))
    expect(model).toMatchObject({ code: 0, exitedWhileOpen: true })
    expect(model.stdout).toMatch(/^Opus 5\.5( │ today \$0\.00)?\n$/)
  }, TEST_TIMEOUT_MS)

  it("records each quota reading once, and rotates the file past 1 MiB", async () => {
    const home = scratch("statusline-quota")
    const config = scratch("statusline-quota-config")
    const file = path.join(home, "quota", "readings.jsonl")
    const same = input(config, { five: 37, seven: 12 })
    await acx(["statusline"], { input: same, env: { ACX_HOME: home } })
    await acx(["statusline"], { input: same, env: { ACX_HOME: home } })
    const lines = () => fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
    expect(lines().map((line) => JSON.parse(line).window)).toEqual(["five_hour", "seven_day"])
    await acx(["statusline"], { input: input(config, { five: 38, seven: 12 }), env: { ACX_HOME: home } })
    expect(lines()).toHaveLength(3)
    expect(JSON.parse(lines()[2]!)).toMatchObject({ window: "five_hour", usedPercentage: 38 })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    // API-key input: nothing to record
    await acx(["statusline"], { input: input(config), env: { ACX_HOME: home } })
    expect(lines()).toHaveLength(3)
    // past 1 MiB the file moves to .1 and a new one starts; foreign lines are no reading (the
    // tail read finds none, so both windows are recorded again)
    fs.appendFileSync(file, `${"x".repeat(1023)}\n`.repeat(1100))
    await acx(["statusline"], { input: input(config, { five: 39, seven: 12 }), env: { ACX_HOME: home } })
    expect(fs.existsSync(`${file}.1`)).toBe(true)
    expect(lines().map((line) => JSON.parse(line).usedPercentage)).toEqual([39, 12])
  }, TEST_TIMEOUT_MS)

  it("shows today's cost and the current block once the background refresh has cached them", async () => {
    const home = scratch("statusline-totals")
    const config = scratch("statusline-totals-config")
    fs.mkdirSync(path.join(config, "projects", "-p"), { recursive: true })
    const now = Date.now()
    fs.writeFileSync(
      path.join(config, "projects", "-p", "2955e966-cf77-404a-9ab1-338a1fee76c6.jsonl"),
      assistantLine(now - 20 * 60_000) + assistantLine(now - 60_000)
    )
    const first = await acx(["statusline"], { input: input(config), env: { ACX_HOME: home } })
    // nothing cached yet: the line says what Claude Code sent, and a refresh was started
    expect(first.stdout).toBe("Opus 5.5 │ ctx 42% │ session $1.50\n")
    const summary = fs.readdirSync(path.join(home, "cache")).find((name) => /^statusline-[0-9a-f]{8}\.json/.test(name))
    expect(summary).toBeDefined()
    const file = path.join(home, "cache", summary!.replace(/\.lock$/, ""))
    for (let i = 0; i < 600 && !fs.existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    const second = await acx(["statusline"], { input: input(config), env: { ACX_HOME: home } })
    expect(second.stdout).toMatch(
      /^Opus 5\.5 │ ctx 42% │ session \$1\.50 │ today \$\d+\.\d\d │ block \$\d+\.\d\d \$\d+\.\d\d\/h ↻\d/
    )
  }, TEST_TIMEOUT_MS)
})

describe("the statusline's bundle", () => {
  it("holds no Effect, no CLI framework and no transcript reader (its source map)", () => {
    const map = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), "../dist/statusline.cjs.map"), "utf8")) as {
      sources: Array<string>
    }
    expect(map.sources.some((source) => source.includes("claude-code/src/StatuslineMain.ts"))).toBe(true)
    expect(map.sources.filter((source) => /node_modules\/(effect|@effect)\//.test(source))).toEqual([])
    expect(map.sources.filter((source) => /TranscriptReader|statsFile|lineSplitter/.test(source))).toEqual([])
  })
})

describe("acx statusline --wrap", () => {
  it("bounds the wrapped command: one that hangs is cut off, one that never stops gives its first line", async () => {
    const home = scratch("statusline-wrap")
    const config = scratch("statusline-wrap-config")
    const env = { ACX_HOME: home, CLAUDE_CONFIG_DIR: config }
    const hangs = await acx(["statusline", "--wrap", "sleep 30; echo late", "--format", "{model}"], {
      input: input(config),
      env
    })
    expect(hangs.code).toBe(0)
    expect(hangs.stdout).toBe("Opus 5.5\n")
    const endless = await acx(["statusline", "--wrap", "yes theirs", "--format", "{model}"], {
      input: input(config),
      env
    })
    expect(endless.stdout).toBe("theirs │ Opus 5.5\n")
    const fails = await acx(["statusline", "--wrap", "exit 3", "--format", "{model}"], { input: input(config), env })
    expect(fails.stdout).toBe("Opus 5.5\n")
  }, TEST_TIMEOUT_MS)
})

describe("acx statusline install / uninstall", () => {
  it("keeps the statusline it replaces: --wrap runs it, twice changes nothing, uninstall puts it back", async () => {
    const home = scratch("statusline-install")
    const config = scratch("statusline-install-config")
    const settingsFile = path.join(config, "settings.json")
    const theirs = path.join(config, "theirs.sh")
    fs.writeFileSync(theirs, "#!/bin/sh\nread line\necho \"THEIRS $(printf %s \"$line\" | wc -c)\"\n", { mode: 0o755 })
    const original = { model: "opus", statusLine: { type: "command", command: theirs, padding: 1 } }
    fs.writeFileSync(settingsFile, JSON.stringify(original, null, 2))
    const env = { ACX_HOME: home, CLAUDE_CONFIG_DIR: config }

    const installed = await acx(["statusline", "install", "--wrap"], { env })
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain("statusline installed")
    expect(installed.stdout).toContain("backup:")
    const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"))
    expect(settings.model).toBe("opus")
    expect(settings.statusLine.padding).toBe(1)
    expect(settings.statusLine.command).toContain("statusline.cjs")
    expect(settings.statusLine.command).toContain("--wrap")

    // the command Claude Code would run: the wrapped line first, acx's fields after it
    const ran = spawnSync("/bin/sh", ["-c", settings.statusLine.command], {
      input: input(config, { five: 5, seven: 6 }) + "\n",
      env: { ...process.env, ACX_HOME: home, NO_COLOR: "1" },
      encoding: "utf8"
    })
    expect(ran.stdout).toMatch(/^THEIRS \d+ │ Opus 5\.5 │ ctx 42% │ session \$1\.50 │ 5h 5% /)

    const again = await acx(["statusline", "install", "--wrap"], { env })
    expect(again.stdout).toContain("already installed")
    expect(fs.readdirSync(config).filter((name) => name.includes(".acx-backup-"))).toHaveLength(1)

    // without --wrap: acx's alone, the user's still kept for uninstall
    await acx(["statusline", "install"], { env })
    expect(JSON.parse(fs.readFileSync(settingsFile, "utf8")).statusLine.command).not.toContain("--wrap")

    const removed = await acx(["statusline", "uninstall"], { env })
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(settingsFile, "utf8"))).toEqual(original)
    const nothing = await acx(["statusline", "uninstall"], { env })
    expect(nothing.stdout).toContain("nothing to uninstall")
    expect(JSON.parse(fs.readFileSync(settingsFile, "utf8"))).toEqual(original)
  }, TEST_TIMEOUT_MS)

  it("refuses a settings file that is not JSON, changing nothing", async () => {
    const home = scratch("statusline-install-bad")
    const config = scratch("statusline-install-bad-config")
    fs.writeFileSync(path.join(config, "settings.json"), "{ not json")
    const result = await acx(["statusline", "install"], { env: { ACX_HOME: home, CLAUDE_CONFIG_DIR: config } })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/not valid JSON/)
    expect(fs.readFileSync(path.join(config, "settings.json"), "utf8")).toBe("{ not json")
  }, TEST_TIMEOUT_MS)
})
