/**
 * `acx memory backfill` as a real process: the fixture sessions of a config directory distilled
 * locally (observations, summaries, prompts in memory.db, dated at the transcripts' times), a
 * second run storing nothing, `--project` and `--since` keeping only their sessions, `--dry-run`
 * storing nothing, a run killed with SIGKILL mid-way then rerun ending equal to one clean run, 300
 * past sessions of `BigConfigDir` giving a memory (the time per session logged), and the official
 * MCP client finding a backfilled observation through `acx memory mcp`.
 */
import { buildClaudeConfigDir } from "@acx/fixtures"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { acx, BIN, parseJson, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { query, removeTreeWhenIdle, waitFor } from "./utils/memory.js"

const roots: Array<string> = []
afterEach(() => Promise.all(roots.splice(0).map((root) => removeTreeWhenIdle(root))), 70_000)

const makeRoot = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-backfill-"))
  roots.push(root)
  const home = path.join(root, "acx")
  fs.mkdirSync(home)
  return { root, home, db: path.join(home, "memory.db") }
}

/** What the memory holds, counted. */
const totals = (db: string) =>
  query(
    db,
    `SELECT (SELECT count(*) FROM memory_events) AS events, (SELECT count(*) FROM memory_observations) AS observations,
     (SELECT count(*) FROM memory_summaries) AS summaries, (SELECT count(*) FROM memory_prompts) AS prompts,
     (SELECT count(*) FROM memory_backfill WHERE state = 'done') AS done,
     (SELECT count(*) FROM memory_events WHERE state != 'done') AS waiting`
  )[0]!

const backfill = (home: string, configDir: string, ...args: Array<string>) =>
  acx(["memory", "backfill", "--config-dir", configDir, ...args], { env: { ACX_HOME: home } })

const SPOTTER = "/home/USER/projects/spotter-worktrees/spotter-gqc"

describe("acx memory backfill", () => {
  it("distils the fixture sessions locally, once: a second run stores nothing", async () => {
    const { db, home, root } = makeRoot()
    const { configDir, sessions } = buildClaudeConfigDir(path.join(root, "claude"))

    const dry = await backfill(home, configDir, "--dry-run", "--json")
    expect(dry.code).toBe(0)
    expect(parseJson(dry)).toMatchObject({ dryRun: true, sessions: sessions.length, backfilled: 0 })
    expect(fs.existsSync(db) ? totals(db).events : 0).toBe(0)

    const first = await backfill(home, configDir, "--json")
    expect(first.code, first.stderr).toBe(0)
    const report = parseJson(first)
    expect(report).toMatchObject({ mode: "local", sessions: sessions.length, live: 0, waiting: 0 })
    expect(report.backfilled + report.empty).toBe(sessions.length)
    expect(report.backfilled).toBeGreaterThanOrEqual(4)
    const after = totals(db)
    expect(after.observations).toBeGreaterThan(10)
    expect(after.summaries).toBeGreaterThanOrEqual(report.backfilled)
    expect(after).toMatchObject({ done: sessions.length, waiting: 0 })
    // the memory is dated at the transcripts' times (2025–2026), not today
    const newest = query(db, "SELECT max(created_at) AS t FROM memory_observations")[0]!.t as number
    expect(newest).toBeLessThan(Date.parse("2026-03-01"))
    // the hooks' project is the cwd the session ran in; the context for it is not empty
    const context = await acx(["memory", "context", "-p", SPOTTER], { env: { ACX_HOME: home } })
    expect(context.stdout).toContain("spotter")
    expect(context.stdout).not.toContain("nothing remembered")

    const second = await backfill(home, configDir, "--json")
    expect(parseJson(second)).toMatchObject({ backfilled: 0, already: sessions.length, events: 0, observations: 0 })
    expect(totals(db)).toEqual(after)

    const text = await backfill(home, configDir)
    expect(text.stdout).toMatch(/^backfilled 0 of \d+ sessions \(local\)/)
  }, TEST_TIMEOUT_MS)

  it("--project and --since keep only their sessions; a bad date is one line (exit 2)", async () => {
    const { db, home, root } = makeRoot()
    const { configDir } = buildClaudeConfigDir(path.join(root, "claude"))
    const only = await backfill(home, configDir, "--project", SPOTTER, "--json")
    expect(only.code, only.stderr).toBe(0)
    expect(parseJson(only)).toMatchObject({ sessions: 1, backfilled: 1 })
    expect(query(db, "SELECT DISTINCT project FROM memory_sessions").map((row) => row.project)).toEqual([SPOTTER])

    const since = await backfill(home, configDir, "--since", "2026-01-01", "--json")
    // two sessions were active in 2026: spotter's (backfilled already) and another spotter checkout's
    expect(parseJson(since)).toMatchObject({ sessions: 2, already: 1, backfilled: 1 })
    expect(query(db, "SELECT DISTINCT project FROM memory_sessions ORDER BY project").map((row) => row.project))
      .toEqual(["/home/USER/projects/spotter-worktrees/spotter-gqc", "/home/marco/projects/spotter"])

    const bad = await backfill(home, configDir, "--since", "last tuesday")
    // a usage error, as every acx command exits on one
    expect(bad.code).toBe(2)
    expect(bad.stderrLines).toHaveLength(1)
    expect(bad.stderr).toContain("is not a date")
  }, TEST_TIMEOUT_MS)

  it("killed with SIGKILL mid-way, a rerun completes it with nothing twice; 300 sessions give a memory", async () => {
    const { db, home, root } = makeRoot()
    const big = generateBigConfigDir({ dir: path.join(root, "big"), sessions: 300, bytes: 12_000_000, seed: 7 })
    const child = spawn(process.execPath, [BIN, "memory", "backfill", "--config-dir", big.configDir, "--json"], {
      env: { ...process.env, ACX_HOME: home },
      stdio: "ignore"
    })
    const exited = new Promise((resolve) => child.on("exit", resolve))
    await waitFor(
      "the backfill to mark some sessions",
      () => fs.existsSync(db) && query(db, "SELECT count(*) AS n FROM memory_backfill")[0]!.n >= 20
    )
    child.kill("SIGKILL")
    await exited
    const killed = totals(db)
    expect(killed.done).toBeLessThan(300)

    const rerun = await backfill(home, big.configDir, "--json")
    expect(rerun.code, rerun.stderr).toBe(0)
    const report = parseJson(rerun)
    expect(report.backfilled + report.already).toBe(300)

    // one clean run in another home stores exactly the same
    const clean = path.join(root, "clean")
    fs.mkdirSync(clean)
    const started = Date.now()
    const cleanRun = parseJson(await backfill(clean, big.configDir, "--json"))
    const elapsed = Date.now() - started
    expect(cleanRun).toMatchObject({ sessions: 300, backfilled: 300 })
    expect(totals(db)).toEqual(totals(path.join(clean, "memory.db")))
    expect(totals(db)).toMatchObject({ done: 300, waiting: 0 })
    // every project of the 300 sessions has a context for its next session
    const projects = query(db, "SELECT DISTINCT project FROM memory_sessions").map((row) => row.project as string)
    expect(projects.length).toBeGreaterThan(1)
    const context = await acx(["memory", "context", "-p", projects[0]!], { env: { ACX_HOME: clean } })
    expect(context.stdout).not.toContain("nothing remembered")
    console.log(
      `backfill: 300 sessions (${
        (big.bytes / 1e6).toFixed(1)
      } MB) in ${cleanRun.elapsedMs} ms inside acx, ${elapsed} ms with the process: ${
        (cleanRun.elapsedMs / 300).toFixed(1)
      } ms per session`
    )
  }, 300_000)

  it("the official MCP client finds a backfilled observation through acx memory mcp", async () => {
    const { home, root } = makeRoot()
    const { configDir } = buildClaudeConfigDir(path.join(root, "claude"))
    expect((await backfill(home, configDir)).code).toBe(0)
    const client = new Client({ name: "acx-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "memory", "mcp"],
        env: { ...process.env, ACX_HOME: home } as Record<string, string>,
        stderr: "pipe"
      })
    )
    try {
      const found = await client.callTool({ name: "search", arguments: { query: "beads", project: SPOTTER } })
      const results = (found.structuredContent as { results: Array<{ id: string; kind: string }> }).results
      expect(results.length).toBeGreaterThan(0)
      const observation = results.find((result) => result.id.startsWith("O"))
      expect(observation).toBeDefined()
      const got = await client.callTool({ name: "get_observations", arguments: { ids: [observation!.id] } })
      expect(JSON.stringify(got.structuredContent)).toContain("beads")
    } finally {
      await client.close()
    }
  }, TEST_TIMEOUT_MS)
})
