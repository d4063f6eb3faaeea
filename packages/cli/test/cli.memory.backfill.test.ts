/**
 * `acx memory backfill` as a real process: the fixture sessions of a config directory distilled
 * locally (observations, summaries, prompts in memory.db, dated at the transcripts' times), a
 * second run storing nothing, `--project` and `--since` keeping only their sessions, `--dry-run`
 * storing nothing, two runs at once over 300 past sessions of `BigConfigDir`, one killed with
 * SIGKILL mid-way, then a rerun ending equal to one clean run and giving a memory (the time per
 * session logged), and the official MCP client finding a backfilled observation through `acx
 * memory mcp`; model mode with the observer on the REAL Claude Code CLI against the model double:
 * the estimate shown, `--yes` needed without a terminal, the run stopping at a tiny daily budget
 * with one line, a rerun the same day storing nothing, and with the budget raised a run killed
 * with SIGKILL while the observer works, then a rerun finishing the rest, nothing twice.
 *
 * The local tests share one config directory and one home backfilled once (`local()`): the
 * second run, the terminal's progress bar and the MCP client only read what that run stored.
 */
import { buildClaudeConfigDir } from "@acx/fixtures"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { acx, type AcxResult, BIN, parseJson, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { query, removeTreeWhenIdle, waitFor } from "./utils/memory.js"
import { onTerminal } from "./utils/terminal.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

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

// the fixture config dir, built once: every test only reads it (a backfill reads transcripts)
const shared = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-backfill-shared-"))
afterAll(() => removeTreeWhenIdle(shared), 70_000)
const fixture = buildClaudeConfigDir(path.join(shared, "claude"))

/**
 * The fixture backfilled locally into a home of its own, once for the file, with that first run's
 * output: the tests that only read the memory it made share it (a second run stores nothing, so
 * they may also run the backfill again).
 */
let backfilledOnce: Promise<{ readonly home: string; readonly db: string; readonly first: AcxResult }> | undefined
const local = () =>
  backfilledOnce ??= (async () => {
    const home = path.join(shared, "local")
    fs.mkdirSync(home)
    const first = await backfill(home, fixture.configDir, "--json")
    return { home, db: path.join(home, "memory.db"), first }
  })()

/** A backfill over `BigConfigDir`, which takes longer than most commands on a loaded machine. */
const bigBackfill = (home: string, configDir: string) =>
  acx(["memory", "backfill", "--config-dir", configDir, "--json"], { env: { ACX_HOME: home }, timeoutMs: 240_000 })

describe("acx memory backfill", () => {
  it("distils the fixture sessions locally, once: a second run stores nothing", async () => {
    const sessions = fixture.sessions
    const dryHome = makeRoot()
    const dry = await backfill(dryHome.home, fixture.configDir, "--dry-run", "--json")
    expect(dry.code).toBe(0)
    expect(parseJson(dry)).toMatchObject({ dryRun: true, sessions: sessions.length, backfilled: 0 })
    const dryModel = await backfill(dryHome.home, fixture.configDir, "--dry-run", "--mode", "model")
    expect(dryModel.stdout).toMatch(
      /^estimate: \d+ sessions, [\d.k]+ events, \d+ observer calls, [\d.k]+ tokens, at most \$/
    )
    expect(dryModel.stdout).toContain("nothing stored")
    expect(fs.existsSync(dryHome.db) ? totals(dryHome.db).events : 0).toBe(0)

    const { db, first, home } = await local()
    expect(first.code, first.stderr).toBe(0)
    const report = parseJson(first)
    expect(report).toMatchObject({ mode: "local", sessions: sessions.length, live: 0, waiting: 0 })
    expect(report.backfilled + report.empty).toBe(sessions.length)
    expect(report.backfilled).toBeGreaterThanOrEqual(4)
    const after = totals(db)
    expect(after.observations).toBeGreaterThan(10)
    expect(after.summaries).toBeGreaterThanOrEqual(report.backfilled)
    expect(after).toMatchObject({ done: sessions.length, waiting: 0 })
    expect(report).toMatchObject({ observations: after.observations, summaries: after.summaries, events: after.events })
    // the memory is dated at the transcripts' times (2025–2026), not today
    const newest = query(db, "SELECT max(created_at) AS t FROM memory_observations")[0]!.t as number
    expect(newest).toBeLessThan(Date.parse("2026-03-01"))
    // the hooks' project is the cwd the session ran in; the context for it is not empty
    const context = await acx(["memory", "context", "-p", SPOTTER], { env: { ACX_HOME: home } })
    expect(context.stdout).toContain("spotter")
    expect(context.stdout).not.toContain("nothing remembered")

    const second = await backfill(home, fixture.configDir, "--json")
    expect(parseJson(second)).toMatchObject({ backfilled: 0, already: sessions.length, events: 0, observations: 0 })
    expect(totals(db)).toEqual(after)
  }, TEST_TIMEOUT_MS)

  it("--project and --since keep only their sessions; a bad date is one line (exit 2)", async () => {
    const { db, home } = makeRoot()
    const configDir = fixture.configDir
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

  it(
    "two runs at once, one killed with SIGKILL mid-way: a rerun completes it with nothing twice; 300 sessions give a memory",
    async () => {
      const { db, home, root } = makeRoot()
      const big = generateBigConfigDir({ dir: path.join(root, "big"), sessions: 300, bytes: 12_000_000, seed: 7 })
      // both start on a home without memory.db: they create it and share the sessions; one of them
      // is killed once some are marked, the other goes on
      const killed = spawn(process.execPath, [BIN, "memory", "backfill", "--config-dir", big.configDir, "--json"], {
        env: { ...process.env, ACX_HOME: home },
        stdio: "ignore"
      })
      const exited = new Promise((resolve) => killed.on("exit", resolve))
      const survivor = bigBackfill(home, big.configDir)
      await waitFor(
        "the backfills to mark some sessions",
        () => {
          try {
            return query(db, "SELECT count(*) AS n FROM memory_backfill")[0]!.n >= 20
          } catch {
            // no file yet, or its migrations not applied yet
            return false
          }
        }
      )
      killed.kill("SIGKILL")
      await exited
      expect(totals(db).done).toBeLessThan(300)
      const other = await survivor
      expect(other.code, other.stderr).toBe(0)
      expect(parseJson(other).sessions).toBe(300)

      const rerun = await bigBackfill(home, big.configDir)
      expect(rerun.code, rerun.stderr).toBe(0)
      const report = parseJson(rerun)
      expect(report.backfilled + report.already).toBe(300)

      // one clean run in another home stores exactly the same
      const clean = path.join(root, "clean")
      fs.mkdirSync(clean)
      const started = Date.now()
      const cleanRun = parseJson(await bigBackfill(clean, big.configDir))
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
    },
    300_000
  )

  it("on a terminal: a progress bar, and model mode asks before spending (no: nothing spent or stored)", async () => {
    const { db, home, root } = makeRoot()
    const { configDir, sessions } = fixture
    const env = { ...process.env, ACX_HOME: home, NO_COLOR: "1" }
    const asked = onTerminal([
      process.execPath,
      BIN,
      "memory",
      "backfill",
      "--config-dir",
      configDir,
      "--mode",
      "model"
    ], {
      cwd: root,
      env
    })
    try {
      await asked.waitFor("Go on? [y/N]")
      expect(asked.output()).toMatch(
        /estimate: \d+ sessions, .* at most \$[\d.]+ with claude-haiku-4-5; daily budget \$1\.00/
      )
      asked.type("n\r")
      expect(await asked.exited).toBe(0)
      expect(asked.output()).toContain("nothing spent: the estimate was declined")
    } finally {
      asked.child.kill("SIGKILL")
    }
    expect(fs.existsSync(db) ? totals(db) : { events: 0, done: 0 }).toMatchObject({ events: 0, done: 0 })

    // the bar counts every session, those backfilled before included; then the one line
    const backfilled = await local()
    const again = onTerminal([process.execPath, BIN, "memory", "backfill", "--config-dir", configDir], {
      cwd: root,
      env: { ...env, ACX_HOME: backfilled.home }
    })
    try {
      expect(await again.exited).toBe(0)
      expect(again.output()).toMatch(new RegExp(`backfill [█░]+ 100% ${sessions.length}/${sessions.length} sessions`))
      expect(again.output()).toMatch(
        new RegExp(`backfilled 0 of ${sessions.length} sessions \\(local\\): 0 observations, 0 summaries from 0 events`)
      )
    } finally {
      again.child.kill("SIGKILL")
    }
  }, TEST_TIMEOUT_MS)

  it("hostile transcripts: a FIFO, lines too deep or not JSON, bad UTF-8, 5 MB outputs, deep inputs", async () => {
    const { db, home, root } = makeRoot()
    const configDir = path.join(root, "claude")
    const dir = path.join(configDir, "projects", "-work-app")
    fs.mkdirSync(dir, { recursive: true })
    const sessionId = "11111111-2222-4333-8444-555555555555"
    const cwd = "/work/app"
    let deep: unknown = { a: 1 }
    for (let level = 0; level < 400; level++) deep = { x: deep }
    const huge = "Z".repeat(5_000_000)
    const lines = [
      JSON.stringify({
        type: "user",
        uuid: "u1",
        cwd,
        timestamp: "2026-01-02T00:00:00Z",
        message: { role: "user", content: "hello there" }
      }),
      "[".repeat(20_000) + "]".repeat(20_000),
      "not json at all",
      JSON.stringify({
        type: "assistant",
        uuid: "a1",
        cwd,
        timestamp: "2026-01-02T00:00:01Z",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "cat big", deep } }]
        }
      }),
      JSON.stringify({
        type: "user",
        uuid: "r1",
        cwd,
        timestamp: "2026-01-02T00:00:02Z",
        toolUseResult: { stdout: huge },
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: huge }] }
      })
    ]
    fs.writeFileSync(
      path.join(dir, `${sessionId}.jsonl`),
      Buffer.concat([
        Buffer.from(lines.join("\n") + "\n"),
        Buffer.from(
          `{"type":"user","uuid":"u2","cwd":"/work/app","timestamp":"2026-01-02T00:00:03Z","message":{"role":"user","content":"bad `
        ),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(` bytes"}}\n`)
      ])
    )
    spawnSync("mkfifo", [path.join(dir, "99999999-2222-4333-8444-555555555555.jsonl")])

    const result = await backfill(home, configDir, "--json")
    expect(result.code, result.stderr).toBe(0)
    expect(parseJson(result)).toMatchObject({ sessions: 1, backfilled: 1 })
    expect(result.stderr).toContain("not a regular file (FIFO)")
    expect(result.stderr).toMatch(/2 malformed lines skipped in 1 file/)
    expect(query(db, "SELECT text FROM memory_prompts ORDER BY id").map((row) => row.text)).toEqual([
      "hello there",
      "bad \ufffd\ufffd bytes"
    ])
    const [tool] = query(db, "SELECT payload FROM memory_events WHERE kind = 'tool'")
    // cut at maxToolOutputChars, with the marker saying how much went
    expect(tool!.payload.length).toBeLessThan(20_000)
    expect(tool!.payload).toContain("more characters]")
  }, TEST_TIMEOUT_MS)

  it("the official MCP client finds a backfilled observation through acx memory mcp", async () => {
    const { first, home } = await local()
    expect(first.code, first.stderr).toBe(0)
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

describe.skipIf(!claude.available)("acx memory backfill --mode model", () => {
  const isObserver = ModelDouble.systemMentions("acx's memory observer")
  /**
   * The fixture without its largest session (spotter-gqc's 2.7 MB, 195 events): alone it is half
   * the observer's calls, and each call is a turn of a real Claude Code. The five others (42
   * events, about 18 calls) tell the same story: a session the budget stops after, sessions left
   * to kill a run among, a rerun that finishes them.
   */
  const modelConfigDir = path.join(shared, "claude-model")
  const SPOTTER_SESSION = "258c7280-ae70-4798-800f-63464d01a85d"
  const modelSessions = fixture.sessions.filter((session) => session.sessionId !== SPOTTER_SESSION)

  /**
   * The fixture config dir, a home whose config.json has `memory`, and the model double answering
   * the observer's `call`-th request with `answer` (other requests get a title): the CLI's
   * environment points the real Claude Code at it.
   */
  const modelWorld = async (
    memory: Record<string, unknown>,
    answer: (call: number, request: ModelDouble.ModelRequest) => ModelDouble.ModelAnswer
  ) => {
    const { db, home, root } = makeRoot()
    const userHome = path.join(root, "home")
    fs.mkdirSync(path.join(userHome, ".claude"), { recursive: true })
    const settings = (more: Record<string, unknown>) =>
      fs.writeFileSync(
        path.join(home, "config.json"),
        JSON.stringify({ memory: { mode: "model", ...memory, ...more } })
      )
    settings({})
    let calls = 0
    const double = await ModelDouble.startModelDouble({
      script: (request) =>
        isObserver(request)
          ? answer(++calls, request)
          : { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
    })
    const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : "" })
    const env = { ...real.env(userHome), ACX_HOME: home, ACX_CLAUDE_PATH: claude.available ? claude.path : "" }
    if (!fs.existsSync(modelConfigDir)) {
      fs.cpSync(fixture.configDir, modelConfigDir, { recursive: true })
      for (const session of fixture.sessions.filter((session) => session.sessionId === SPOTTER_SESSION)) {
        const file = path.join(modelConfigDir, path.relative(fixture.configDir, session.file))
        fs.rmSync(file)
        fs.rmSync(file.slice(0, -".jsonl".length), { recursive: true, force: true })
      }
    }
    return { db, home, configDir: modelConfigDir, env, double, settings, calls: () => calls }
  }

  const MODEL_STORY_MS = 300_000
  // One world for the whole story (each observer session is a real Claude Code start, ≈1 CPU-s):
  // the budget stops the first run after the first session, and the sessions it left are the ones
  // the run with the budget raised is killed among, then finished by the rerun.
  it(
    "shows the estimate, stops at the daily budget with one line; with the budget raised, killed with SIGKILL while the observer works, a rerun finishes: every event in one batch, nothing twice",
    async () => {
      // every observer call costs haiku's price of 20 000 input and 500 output tokens (about 2.3 cents)
      const usage = { inputTokens: 20_000, outputTokens: 500 }
      const { calls, configDir, db, double, env, settings } = await modelWorld(
        { batchSize: 20, dailyBudgetUsd: 0.02 },
        (call, request) =>
          (ModelDouble.lastUserText(request) ?? "").includes("SESSION CHECKPOINT")
            ? {
              content: `<summary><request>Model summary ${call}</request><completed>work</completed></summary>`,
              usage
            }
            : {
              content:
                `<observation><type>discovery</type><title>Model observation ${call}</title><narrative>Seen by the model.</narrative></observation>`,
              usage
            }
      )
      try {
        const args = ["memory", "backfill", "--config-dir", configDir, "--mode", "model"]
        // each run bounded by the test's own bound, not the default spawn bound: a run with real
        // observers took over a minute on a loaded CI machine and was killed with every check to come
        const run = (...more: Array<string>) => acx([...args, ...more], { env, timeoutMs: MODEL_STORY_MS })

        // no terminal to ask on: the estimate, and --yes to spend it
        const unasked = await run()
        expect(unasked.code).toBe(2)
        expect(unasked.stderrLines).toHaveLength(1)
        expect(unasked.stderr).toMatch(
          /estimate: \d+ sessions, .* observer calls, .* tokens, at most \$[\d.]+ with claude-haiku-4-5: pass --yes/
        )
        expect(calls()).toBe(0)

        const first = await run("--yes")
        expect(first.code, first.stderr).toBe(0)
        expect(first.stderr).toMatch(/^estimate: /)
        const lines = first.stdout.trim().split("\n")
        expect(lines.at(-1)).toMatch(
          /^stopped: the daily budget of \$0\.02 is spent \(\$[\d.]+ on \d{4}-\d{2}-\d{2}\); \d+ of \d+ sessions backfilled, \d+ left for a later run/
        )
        expect(lines[0]).toMatch(/^backfilled [1-9]\d* of \d+ sessions \(model\): [1-9]\d* observations/)
        const model = () =>
          query(db, "SELECT count(*) AS n FROM memory_observations WHERE source = 'model'")[0]!.n as number
        expect(model()).toBeGreaterThan(0)
        const afterFirst = totals(db)
        expect(afterFirst.done).toBeGreaterThan(0)
        expect(afterFirst.waiting).toBe(0)
        const callsAfterFirst = calls()

        // the same day: nothing more is spent or stored
        const second = parseJson(await run("--yes", "--json"))
        expect(second.stopped).toMatch(/daily budget/)
        expect(second.backfilled).toBe(0)
        expect(calls()).toBe(callsAfterFirst)
        expect(totals(db)).toEqual(afterFirst)

        // no budget: a run killed with SIGKILL while the observer works, in its own process group
        // (the observer's Claude Code goes with it)
        settings({ dailyBudgetUsd: null })
        const child = spawn(process.execPath, [BIN, ...args, "--yes", "--json"], {
          env: { ...process.env, ...env },
          stdio: "ignore",
          detached: true
        })
        const exited = new Promise((resolve) => child.on("exit", resolve))
        await waitFor("the observer's third call of this run", () => calls() >= callsAfterFirst + 3, 120_000)
        process.kill(-child.pid!, "SIGKILL")
        await exited
        const killed = totals(db)
        expect(killed.done).toBeGreaterThanOrEqual(afterFirst.done)
        expect(killed.done).toBeLessThan(modelSessions.length)

        // the rerun distils the rest; what was done stays once
        const third = await run("--yes", "--json")
        expect(third.code, third.stderr).toBe(0)
        const report = parseJson(third)
        expect(report.stopped).toBeUndefined()
        expect(report.waiting).toBe(0)
        expect(report.backfilled).toBeGreaterThan(0)
        expect(report.already).toBeGreaterThanOrEqual(afterFirst.done)
        expect(report.backfilled + report.already + report.empty).toBe(report.sessions)
        expect(totals(db)).toMatchObject({ done: report.sessions, waiting: 0 })
        const titles = query(db, "SELECT title FROM memory_observations").map((row) => row.title as string)
        expect(new Set(titles).size).toBe(titles.length)
        // a batch's observations share its event ids; no event is in two batches
        const batches = new Set(
          query(db, "SELECT event_ids FROM memory_observations").map((row) => row.event_ids as string)
        )
        const seen = new Set<number>()
        for (const batch of batches) {
          for (const id of JSON.parse(batch) as Array<number>) {
            expect(seen.has(id)).toBe(false)
            seen.add(id)
          }
        }
        console.log(`backfill --mode model: ${calls()} observer calls, ${callsAfterFirst} before the budget stopped`)
      } finally {
        await double.close()
      }
    },
    MODEL_STORY_MS
  )
})
