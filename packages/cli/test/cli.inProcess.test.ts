/**
 * A command's io is all it is given (issue 33, point 1): what it prints goes to the io's stdout
 * and stderr (Effect's console, progress, warnings), the environment it reads is the io's, and a
 * relative path resolves against the io's directory. So two runs in one process, each with its own
 * environment and directory, go at once and each sees only its own io; the process's streams,
 * environment and directory are never touched.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { run } from "../src/Cli.js"
import type { CommandIo } from "../src/CommandIo.js"
import { BIN, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { assistantLine } from "./utils/assistantLine.js"
import { userEntry } from "./utils/hostileDir.js"
import { acxInProcess } from "./utils/inProcess.js"

let root = ""

/** A directory holding a Claude Code config dir `claude/` with one session in `projectKey`. */
const machine = (name: string, projectKey: string) => {
  const dir = path.join(root, name)
  const sessionId = randomUUID()
  const projectDir = path.join(dir, "claude", "projects", projectKey)
  fs.mkdirSync(projectDir, { recursive: true })
  fs.writeFileSync(
    path.join(projectDir, `${sessionId}.jsonl`),
    `${JSON.stringify(userEntry(sessionId, 1, `hello from ${name}`))}\n`
  )
  fs.mkdirSync(path.join(dir, "home"))
  return { dir, sessionId, configDir: path.join(dir, "claude"), home: path.join(dir, "home") }
}

beforeAll(() => {
  root = tempDir("in-process")
})
afterAll(() => removeDir(root))

/**
 * Ios that each hold their first stdout write until the other run has written too: a run that
 * waits for the other to finish before it starts never gets there (the test times out).
 */
const barrierIos = (envs: ReadonlyArray<{ readonly env: CommandIo["env"]; readonly cwd: string }>) => {
  const outs = envs.map(() => [] as Array<string>)
  const errs = envs.map(() => [] as Array<string>)
  const arrived = envs.map(() => {
    let resolve = () => {}
    const promise = new Promise<void>((done) => (resolve = done))
    return { promise, resolve }
  })
  const ios = envs.map(({ cwd, env }, i): CommandIo => ({
    stdout: async (text) => {
      arrived[i]!.resolve()
      await Promise.all(arrived.map((one) => one.promise))
      outs[i]!.push(text)
    },
    stderr: (text) => {
      errs[i]!.push(text)
    },
    env,
    cwd,
    get stdin() {
      return process.stdin
    },
    isTTY: false,
    stderrIsTTY: false,
    argv: [process.execPath, BIN]
  }))
  return { ios, outs, errs }
}

describe("the io reaches all the way down", () => {
  it("two runs at once, each with its own environment and directory, see only their own", async () => {
    const a = machine("a", "-tmp-a")
    const b = machine("b", "-tmp-b")
    const cwdBefore = process.cwd()
    const { errs, ios, outs } = barrierIos([
      // a: the config dir relative to its directory
      { cwd: a.dir, env: { ACX_HOME: "acx-home", HOME: a.home, NO_COLOR: "1" } },
      // b: from its environment, and a home of its own
      { cwd: b.dir, env: { CLAUDE_CONFIG_DIR: b.configDir, HOME: b.home, NO_COLOR: "1" } }
    ])
    const codes = await Promise.all([
      run([process.execPath, BIN, "sessions", "--config-dir", "claude", "--json"], ios[0]!),
      run([process.execPath, BIN, "sessions", "--json"], ios[1]!)
    ])
    expect(errs.map((lines) => lines.join(""))).toEqual(["", ""])
    expect(codes).toEqual([0, 0])
    const listed = outs.map((chunks) =>
      (JSON.parse(chunks.join("")) as Array<{ sessionId: string; projectKey: string }>).map((row) => row.sessionId)
    )
    expect(listed).toEqual([[a.sessionId], [b.sessionId]])
    // each kept its cache under its own acx home: a's relative to its directory, b's in its HOME
    expect(fs.existsSync(path.join(a.dir, "acx-home", "cache"))).toBe(true)
    expect(fs.existsSync(path.join(b.home, ".acx", "cache"))).toBe(true)
    expect(process.cwd()).toBe(cwdBefore)
  }, TEST_TIMEOUT_MS)

  it("acxInProcess gives the io and nothing else: runs with different io go at once", async () => {
    const a = machine("c", "-tmp-c")
    const b = machine("d", "-tmp-d")
    const cwdBefore = process.cwd()
    const envBefore = { ...process.env }
    const runs = Promise.all([
      acxInProcess(["sessions", "--config-dir", "claude"], { cwd: a.dir }),
      acxInProcess(["sessions"], { env: { CLAUDE_CONFIG_DIR: b.configDir } }),
      acxInProcess(["sessions", "--config-dir", "claude"], { cwd: root })
    ])
    // the process as the runs leave it at every turn of the event loop while they go
    const seen = new Set<string>()
    let done = false
    void runs.finally(() => (done = true))
    while (!done) {
      seen.add(`${process.cwd()} ${process.env["CLAUDE_CONFIG_DIR"]} ${process.env["ACX_HOME"]}`)
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect([...seen]).toEqual([`${cwdBefore} ${envBefore["CLAUDE_CONFIG_DIR"]} ${envBefore["ACX_HOME"]}`])
    const [first, second, missing] = await runs
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(a.sessionId.slice(0, 8))
    expect(first.stdout).not.toContain(b.sessionId.slice(0, 8))
    expect(second.code).toBe(0)
    expect(second.stdout).toContain(b.sessionId.slice(0, 8))
    expect(second.stdout).not.toContain(a.sessionId.slice(0, 8))
    // the third one's directory holds no claude/: its own error, in its own stderr
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.stderrLines).toEqual([
      `acx: Claude Code config directory not found: ${path.join(root, "claude")} (from claude)`
    ])
    expect(process.cwd()).toBe(cwdBefore)
    expect(process.env).toEqual(envBefore)
  }, TEST_TIMEOUT_MS)

  it("acx's home is the io's: stats --by block reads the quota readings under the io's ACX_HOME", async () => {
    const { configDir, dir, sessionId } = machine("e", "-tmp-e")
    const at = Date.UTC(2026, 0, 5, 9, 10)
    fs.appendFileSync(
      path.join(configDir, "projects", "-tmp-e", `${sessionId}.jsonl`),
      `${assistantLine({ sessionId, i: 1, ms: at, output: 1000 })}\n`
    )
    fs.mkdirSync(path.join(dir, "acx-home", "quota"), { recursive: true })
    fs.writeFileSync(
      path.join(dir, "acx-home", "quota", "readings.jsonl"),
      `${
        JSON.stringify({ at: at + 60_000, window: "five_hour", usedPercentage: 12, resetsAt: at / 1000 + 5 * 3600 })
      }\n`
    )
    const result = await acxInProcess(["stats", "--by", "block", "--json", "--config-dir", "claude"], {
      cwd: dir,
      env: { ACX_HOME: "acx-home" }
    })
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ quotaReadings: 1 })
  }, TEST_TIMEOUT_MS)
})
