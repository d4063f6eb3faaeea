/**
 * The team memory as real processes on a real Postgres (a fresh schema per test): two teammates
 * (two `ACX_HOME`s, users and machines; clones of one remote at different paths, spelled ssh and
 * https) run `acx memory install --team`, Claude Code's hooks (`acx hook`), and the workers the
 * hooks start, which share and pull; the second teammate's SessionStart context holds the first
 * one's observation marked with author and machine; `acx memory forget ID` by the first hides it
 * for the second; an unreachable team database leaves memory local, says so without the
 * password, and a later sync catches up once; a sync killed with SIGKILL mid-push and run again
 * stores every entry once.
 *
 * The three tests share nothing (each its own homes and schema) and mostly wait on the workers
 * and Postgres, so they run at once; each cleans up after itself when it finishes.
 */
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { acx, BIN, runWithInput, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { query, removeTreeWhenIdle } from "./utils/memory.js"

const PG_URL = process.env["ACX_PG_URL"] ?? ""

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

// the CLI's tests type no `pg`: the few calls here are typed by hand
const pgQuery = async <R extends Record<string, unknown>>(text: string): Promise<Array<R>> => {
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    return (await client.query(text)).rows as Array<R>
  } finally {
    await client.end()
  }
}

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const teamUrl = (schema: string) => `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`

interface Mate {
  readonly home: string
  readonly project: string
  readonly env: Record<string, string>
  readonly database: string
}

/** A teammate's machine: acx's home, a Claude config dir, and a clone whose origin is `remote`. */
const machine = (root: string, user: string, remote: string): Mate => {
  const home = path.join(root, user, "acx")
  const project = path.join(root, user, "code", "shop")
  const claude = path.join(root, user, "claude")
  fs.mkdirSync(path.join(project, ".git"), { recursive: true })
  fs.mkdirSync(claude, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(
    path.join(project, ".git", "config"),
    `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${remote}\n`
  )
  fs.writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.05 } })
  )
  return { home, project, env: { ACX_HOME: home, CLAUDE_CONFIG_DIR: claude }, database: path.join(home, "memory.db") }
}

/**
 * Two teammates' machines under a fresh directory, and a fresh schema for their team; both are
 * removed when the test finishes (the directory once the workers the hooks started have exited).
 */
const world = (onTestFinished: (fn: () => Promise<void>) => void) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-team-"))
  const schema = `acx_team_t${randomBytes(6).toString("hex")}`
  onTestFinished(async () => {
    await removeTreeWhenIdle(root)
    await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  })
  return {
    root,
    schema,
    ana: machine(root, "ana", "git@github.com:acme/shop.git"),
    bo: machine(root, "bo", "https://github.com/acme/shop")
  }
}

const hook = (mate: Mate, event: string, sessionId: string, extra: Record<string, unknown> = {}) =>
  runWithInput(
    process.execPath,
    [BIN, "hook", event],
    JSON.stringify({ session_id: sessionId, transcript_path: "", cwd: mate.project, hook_event_name: event, ...extra }),
    mate.env
  )

/** A session through the real hooks: a prompt, an edit, a failing test run, the end. */
const work = async (mate: Mate, sessionId: string, prompt: string) => {
  await hook(mate, "SessionStart", sessionId, { source: "startup" })
  await hook(mate, "UserPromptSubmit", sessionId, { prompt })
  await hook(mate, "PostToolUse", sessionId, {
    tool_name: "Edit",
    tool_use_id: `${sessionId}-t1`,
    tool_input: { file_path: path.join(mate.project, "src/cart.ts"), old_string: "a", new_string: "b" },
    tool_response: {}
  })
  await hook(mate, "Stop", sessionId, { stop_hook_active: false })
  await hook(mate, "SessionEnd", sessionId, { reason: "prompt_input_exit" })
}

const install = (mate: Mate, url: string, user: string, host: string) =>
  acx(["memory", "install", "--team", url, "--user", user, "--machine", host], { env: mate.env })

const contextOf = async (mate: Mate, sessionId: string): Promise<string> => {
  const started = await hook(mate, "SessionStart", sessionId, { source: "startup" })
  const output = JSON.parse(started.stdout) as { hookSpecificOutput?: { additionalContext?: string } }
  return output.hookSpecificOutput?.additionalContext ?? ""
}

const remoteRows = (schema: string, where = "true") =>
  pgQuery<{ title: string; author: string }>(
    `SELECT title, author FROM "${schema}".memory_observations WHERE ${where} ORDER BY title`
  )

describe.concurrent("acx memory --team", () => {
  it("two teammates share through their workers; forget by one hides it for the other", async ({ onTestFinished }) => {
    const { ana, bo, schema } = world(onTestFinished)
    const installed = await install(ana, teamUrl(schema), "ana", "ana-laptop")
    expect(installed.code).toBe(0)
    expect(installed.stdout).toMatch(/team memory: .* as ana on ana-laptop/)
    expect(installed.stdout).toContain("shared 0 entries")
    expect(fs.statSync(path.join(ana.home, "memory-team.json")).mode & 0o777).toBe(0o600)
    expect((await install(bo, teamUrl(schema), "bo", "bo-desktop")).code).toBe(0)

    // ana works; the worker her hooks started distils locally and shares
    await work(ana, "s-ana", "Make the cart total round tax once per invoice")
    await until(
      "ana's observations in the team database",
      async () => (await remoteRows(schema)).some((row) => row.title.includes("src/cart.ts"))
    )
    expect(new Set((await remoteRows(schema)).map((row) => row.author))).toEqual(new Set(["ana"]))

    // bo's first session makes the clone known; the worker its hooks start pulls ana's entries
    await hook(bo, "SessionStart", "s-bo-1", { source: "startup" })
    await until("ana's entries pulled into bo's memory", () =>
      fs.existsSync(bo.database) &&
      query(bo.database, "SELECT count(*) AS n FROM memory_observations WHERE author = 'ana'")[0]!["n"] > 0)
    const context = await contextOf(bo, "s-bo-2")
    expect(context).toMatch(/\(by ana on ana-laptop\) .*src\/cart\.ts/)
    // her prompt stayed on her machine: its observation was never shared
    expect(context).not.toContain("round tax once")
    expect((await acx(["memory", "context", "-p", bo.project], { env: bo.env })).stdout).toContain(
      "(by ana on ana-laptop)"
    )

    // ana forgets it (by id, soft); one sync each and bo's context no longer has it
    const [row] = query(ana.database, "SELECT id, title FROM memory_observations WHERE title LIKE '%src/cart.ts%'")
    const line = `(by ana on ana-laptop) ${row!["title"]}`
    expect(context).toContain(line)
    const forgot = await acx(["memory", "forget", `O${row!["id"]}`], { env: ana.env })
    expect(forgot.stdout).toContain(`forgot O${row!["id"]}`)
    // ana's own worker (started by her hooks, syncing every 10 s) may push the forget first: what
    // counts is that after a sync the team's row is forgotten, whoever pushed it
    const pushed = await acx(["memory", "sync"], { env: ana.env })
    expect(pushed.stdout).toMatch(/pushed [01] forgotten states?/)
    expect(
      await remoteRows(schema, `title LIKE '%src/cart.ts%' AND forgotten_at IS NOT NULL`)
    ).toHaveLength(1)
    // a pull takes only what committed before the oldest transaction still running on the
    // server, which the other test files share: bo syncs once those running now have ended
    const [{ now }] = await pgQuery<{ now: string }>("SELECT pg_current_xact_id()::text AS now")
    await until("the server's running transactions to end", async () =>
      (await pgQuery<{ passed: boolean }>(
        `SELECT pg_snapshot_xmin(pg_current_snapshot()) > '${now}'::xid8 AS passed`
      ))[0]!.passed)
    expect((await acx(["memory", "sync", "--json"], { env: bo.env })).code).toBe(0)
    const after = await contextOf(bo, "s-bo-3")
    expect(after).not.toContain(line)
    expect(after).toContain("(by ana on ana-laptop)")
    // stored once each, wherever it went
    const titles = (await remoteRows(schema)).map((entry) => entry.title)
    expect(new Set(titles).size).toBe(titles.length)
  }, TEST_TIMEOUT_MS * 2)

  it("unreachable: memory stays local, the password is never shown, a later sync catches up once", async ({
    onTestFinished
  }) => {
    const { ana, schema } = world(onTestFinished)
    // a URL that is not one: refused in one line, without its password, before anything is installed
    for (const bad of ["postgres://ana:pa/ss-w0rd@db/team", "sqlite:team.db", `${teamUrl(schema)}&schema=two`]) {
      const refused = await install(ana, bad, "ana", "ana-laptop")
      expect(refused.code).not.toBe(0)
      expect(refused.stderrLines).toHaveLength(1)
      expect(refused.stderr).not.toContain("ss-w0rd")
      expect(fs.existsSync(path.join(ana.home, "memory-team.json"))).toBe(false)
      expect(fs.existsSync(path.join(ana.env["CLAUDE_CONFIG_DIR"]!, "settings.json"))).toBe(false)
    }
    const down = await install(ana, "postgres://ana:s3cr3t-pw@127.0.0.1:1/team", "ana", "ana-laptop")
    expect(down.code).toBe(0)
    expect(down.stdout).toMatch(/not reachable now .*127\.0\.0\.1:1: connection refused.*catches up later/)
    expect(down.stdout + down.stderr).not.toContain("s3cr3t")
    expect(fs.readFileSync(path.join(ana.home, "memory-team.json"), "utf8")).toContain("s3cr3t-pw")

    await work(ana, "s-1", "Document the invoice export")
    await until(
      "local observations",
      () =>
        fs.existsSync(ana.database) && query(ana.database, "SELECT count(*) AS n FROM memory_observations")[0]!["n"] > 0
    )
    // the worker's retries, logged once without the password
    const sync = await acx(["memory", "sync"], { env: ana.env })
    expect(sync.code).not.toBe(0)
    expect(sync.stderr).toMatch(/127\.0\.0\.1:1: connection refused/)
    expect(sync.stdout + sync.stderr).not.toContain("s3cr3t")
    expect(await contextOf(ana, "s-2")).toContain("invoice export")
    const status = await acx(["memory", "status"], { env: ana.env })
    expect(status.stdout).toContain(
      "team:     postgres://ana:***@127.0.0.1:1/team (schema acx_team) as ana on ana-laptop"
    )
    expect(status.stdout).not.toContain("s3cr3t")
    const log = path.join(ana.home, "memory-worker.log")
    if (fs.existsSync(log)) expect(fs.readFileSync(log, "utf8")).not.toContain("s3cr3t")

    // the team database comes back (named again): everything is shared, once
    expect((await install(ana, teamUrl(schema), "ana", "ana-laptop")).code).toBe(0)
    // the local observer's observations of her prompts and commands stay on her machine
    const local = query(
      ana.database,
      `SELECT count(*) AS n FROM memory_observations
       WHERE NOT (source = 'local' AND (concepts LIKE '%"prompt"%' OR concepts LIKE '%"command"%'))`
    )[0]!["n"] as number
    await until("all of ana's observations shared", async () => (await remoteRows(schema)).length === local)
    expect((await acx(["memory", "sync", "--json"], { env: ana.env })).stdout).toContain("\"pushed\":0")
    expect((await remoteRows(schema)).length).toBe(local)
    const json = JSON.parse((await acx(["memory", "status", "--json"], { env: ana.env })).stdout)
    const summaries = query(ana.database, "SELECT count(*) AS n FROM memory_summaries")[0]!["n"] as number
    expect(json.team).toMatchObject({ user: "ana", machine: "ana-laptop", shared: local + summaries, waiting: 0 })
  }, TEST_TIMEOUT_MS * 2)

  it("a sync killed with SIGKILL mid-push, then run again, stores every entry once", async ({ onTestFinished }) => {
    const { ana, schema } = world(onTestFinished)
    // a session's hook makes the database, the install makes the team's schema (nothing to share
    // yet); then 6000 observations of the session stored as the worker would
    await hook(ana, "SessionStart", "s-big", { source: "startup" })
    const installed = await install(ana, teamUrl(schema), "ana", "ana-laptop")
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain("shared 0 entries")
    const db = new Database(ana.database)
    const insert = db.prepare(
      `INSERT INTO memory_observations (session_id, project, type, title, narrative, source, created_at)
       VALUES ('s-big', ?, 'discovery', ?, ?, 'local', ?)`
    )
    db.transaction(() => {
      for (let i = 0; i < 6000; i++) insert.run(ana.project, `entry ${i}`, `narrative ${i} ${"x".repeat(400)}`, i)
    })()
    db.close()
    // a sync killed in the middle of its pushing
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, "memory", "sync"], {
      env: { ...process.env, ...ana.env },
      stdio: "ignore"
    })
    await until("a part pushed", async () => (await remoteRows(schema)).length > 0, 30_000)
    child.kill("SIGKILL")
    await new Promise((resolve) => child.once("close", resolve))
    const partial = (await remoteRows(schema)).length
    const rerun = Date.now()
    expect((await acx(["memory", "sync"], { env: ana.env })).code).toBe(0)
    const rerunMs = Date.now() - rerun
    const rows = await pgQuery<{ n: string; titles: string }>(
      `SELECT count(*) AS n, count(DISTINCT title) AS titles FROM "${schema}".memory_observations`
    )
    console.log(
      `[team kill] ${partial} of 6000 pushed before SIGKILL (${rerun - started} ms); ${
        rows[0]!.n
      } after the rerun (${rerunMs} ms)`
    )
    expect(rows[0]).toEqual({ n: "6000", titles: "6000" })
  }, TEST_TIMEOUT_MS * 2)
})
