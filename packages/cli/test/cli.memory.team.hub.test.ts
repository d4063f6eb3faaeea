/**
 * The team memory on a hub, on an embedded Postgres of this file's own (roles are cluster-wide),
 * connecting as each role for real:
 * - a plain `acx hub init` sets the team memory up: a sync member's `memory install --team`
 *   shares at once;
 * - what a local (model-free) backfill and `acx memory sync` send holds no prompt and no tool
 *   input of the transcript, nor any run of 20 characters of one, in any text of the team's
 *   tables (the observations made of prompts and commands stay on the machine, quoted runs are
 *   withheld);
 * - a URL whose team tables are missing, or a viewer's, is told what is wrong and which command
 *   fixes it (never "catches up later"), and that command does fix it;
 * - `acx memory status` shows the last `acx memory sync`, its time and counts.
 *
 * The hub is started through the built binary (`startHub`); the memory commands run in process.
 */
import { leaks, stringsOf } from "@acx/testing/VerbatimLeaks"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AcxResult, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { printedUrl, query, type RunningHub, startHub } from "./utils/hub.js"
import { acxInProcess } from "./utils/inProcess.js"
import { query as memoryQuery } from "./utils/memory.js"

const REMOTE = "git@github.com:acme/cart.git"

/** What the user typed and the commands run, in the transcript: none may reach the hub. */
const PROMPTS = [
  "The cart total is always 0. Find out why and fix it.",
  "Now make the discount code SPRING-SALE-42 apply before tax, not after"
]
const COMMANDS = [
  "sed -i 's/ \\* 0$//' src/cart.mjs && node --test test/cart.test.mjs",
  "grep -rn 'applyDiscount' src/ | sort | uniq -c | head -n 40"
]

interface Mate {
  readonly home: string
  readonly project: string
  readonly claude: string
  readonly env: Record<string, string>
}

/** A machine: acx's home (memory in local mode), a Claude config dir, a clone of {@link REMOTE}. */
const machine = (root: string): Mate => {
  const home = path.join(root, "acx")
  const project = path.join(root, "code", "cart")
  const claude = path.join(root, "claude")
  for (const dir of [home, claude, path.join(project, ".git")]) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(project, ".git", "config"), `[remote "origin"]\n\turl = ${REMOTE}\n`)
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ memory: { mode: "local" } }))
  return { home, project, claude, env: { ACX_HOME: home, CLAUDE_CONFIG_DIR: claude, HOME: root } }
}

/** A transcript of one session in `mate`'s project: the prompts, each followed by a command and an edit. */
const transcript = (mate: Mate): string => {
  const sessionId = randomUUID()
  const lines: Array<unknown> = []
  let at = Date.UTC(2026, 10, 3, 9, 0, 0)
  const entry = (fields: Record<string, unknown>) =>
    lines.push({
      sessionId,
      cwd: mate.project,
      uuid: randomUUID(),
      timestamp: new Date(at += 1000).toISOString(),
      ...fields
    })
  PROMPTS.forEach((prompt, i) => {
    entry({ type: "user", message: { role: "user", content: prompt } })
    const calls = [
      { id: `bash-${i}`, name: "Bash", input: { command: COMMANDS[i]!, description: "Run it" }, error: i === 0 },
      {
        id: `edit-${i}`,
        name: "Edit",
        input: { file_path: path.join(mate.project, "src/cart.mjs"), old_string: "total * 0", new_string: "total" },
        error: false
      }
    ]
    for (const call of calls) {
      entry({
        type: "assistant",
        message: { role: "assistant", content: [{ type: "tool_use", id: call.id, name: call.name, input: call.input }] }
      })
      entry({
        type: "user",
        message: {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: call.id,
            // an error that echoes the command: the failure's observation quotes its first line
            content: call.error ? `sh: 1: ${COMMANDS[i]}: not found` : "ok",
            is_error: call.error
          }]
        }
      })
    }
    entry({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } })
  })
  const dir = path.join(mate.claude, "projects", mate.project.replace(/[^A-Za-z0-9]/g, "-"))
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
  return sessionId
}

/** Every string in the team's tables, as Postgres holds it: each text column, each item of each jsonb list. */
const sharedStrings = async (admin: string, schema: string): Promise<Array<string>> => {
  const strings: Array<string> = []
  for (const table of ["memory_observations", "memory_summaries"]) {
    const rows = await query(admin, `SELECT to_jsonb(t) - 'search' AS row FROM "${schema}".${table} t`)
    for (const row of rows) stringsOf(row["row"], strings)
  }
  return strings
}

const oneLine = (result: AcxResult) => result.stderr.split("\n").filter((line) => line !== "")

describe("acx memory --team on a hub", () => {
  let dir: string
  let hub: RunningHub
  let member: string
  let viewer: string

  beforeAll(async () => {
    dir = tempDir("team-hub")
    hub = await startHub(path.join(dir, "home"))
    member = printedUrl(await acxInProcess(["hub", "user", "add", "cartmachine", "--role", "sync", "--hub", hub.admin]))
    viewer = printedUrl(await acxInProcess(["hub", "user", "add", "vera", "--role", "viewer", "--hub", hub.admin]))
  }, 4 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await hub?.stop()
    removeDir(dir)
  })

  const install = (mate: Mate, url: string) =>
    acxInProcess(["memory", "install", "--team", url, "--user", "ana", "--machine", "ana-laptop"], { env: mate.env })

  it("plain hub init sets the team memory up: a sync member's install shares at once", async () => {
    const [tables] = await query(
      hub.admin,
      `SELECT count(*)::int AS n, bool_and(c.relrowsecurity) AS rls FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'acx_team' AND c.relkind = 'r'`
    )
    expect(tables).toEqual({ n: 2, rls: true })
    const mate = machine(path.join(dir, "first"))
    const installed = await install(mate, member)
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain("team memory: shared 0 entries")
    expect(installed.stdout + installed.stderr).not.toMatch(/not reachable|permission denied/)
  }, TEST_TIMEOUT_MS)

  it("a local backfill then memory sync sends no prompt and no command, nor 20 characters of one", async () => {
    const mate = machine(path.join(dir, "privacy"))
    expect((await install(mate, member)).code).toBe(0)
    transcript(mate)
    const backfilled = await acxInProcess(["memory", "backfill", "--config-dir", mate.claude], { env: mate.env })
    expect(backfilled.code, backfilled.stderr).toBe(0)
    const database = path.join(mate.home, "memory.db")
    // the memory on this machine has them, as before
    const local = memoryQuery(database, "SELECT title FROM memory_observations ORDER BY id").map((row) => row["title"])
    expect(local).toContain(`User asked: ${PROMPTS[0]}`)

    const synced = await acxInProcess(["memory", "sync", "--json"], { env: mate.env })
    expect(synced.code, synced.stderr).toBe(0)
    const report = JSON.parse(synced.stdout) as { pushed: number; kept: number; withheld: number }
    expect(report.pushed).toBeGreaterThan(0)
    expect(report.kept).toBeGreaterThan(0)

    const shared = await sharedStrings(hub.admin, "acx_team")
    // what is shared is there: the edit, named from the repository's root, under the remote
    expect(shared).toContain("src/cart.mjs")
    expect(shared).toContain("github.com/acme/cart")
    for (const text of [...PROMPTS, ...COMMANDS]) expect(leaks(text, shared), text).toEqual([])
    // the failure is shared, the command its error echoed withheld
    expect(shared.some((text) => /failed: Bash: sh: 1: \[withheld\]/.test(text)), shared.join("\n")).toBe(true)
    // and the bytes of the team's schema, as one text, hold none either
    const [dump] = await query(
      hub.admin,
      `SELECT (SELECT string_agg(to_jsonb(o)::text, ' ') FROM acx_team.memory_observations o) ||
        (SELECT string_agg(to_jsonb(s)::text, ' ') FROM acx_team.memory_summaries s) AS text`
    )
    for (const text of [...PROMPTS, ...COMMANDS]) {
      expect(leaks(JSON.stringify(text).slice(1, -1), [String(dump!["text"])]), text).toEqual([])
    }
  }, TEST_TIMEOUT_MS)

  it("missing team tables: install and sync name the admin's command, which fixes them", async () => {
    const mate = machine(path.join(dir, "missing"))
    const url = new URL(member)
    url.searchParams.set("schema", "acx_team_b")
    const installed = await install(mate, url.href)
    expect(installed.code, installed.stderr).toBe(0)
    const port = new URL(hub.admin).port
    const fix = `acx hub init postgres://ADMIN@127.0.0.1:${port}${new URL(hub.admin).pathname} --team acx_team_b`
    expect(oneLine(installed)).toHaveLength(1)
    expect(installed.stderr).toContain("the team memory's tables are not in schema acx_team_b")
    expect(installed.stderr).toContain(fix)
    expect(installed.stdout + installed.stderr).not.toMatch(/catches up|not reachable/)
    const sync = await acxInProcess(["memory", "sync"], { env: mate.env })
    expect(sync.code).toBe(1)
    expect(oneLine(sync)).toHaveLength(1)
    expect(sync.stderr).toContain(fix)
    expect(sync.stderr).not.toContain(url.password)

    const init = await acxInProcess(["hub", "init", hub.admin, "--team", "acx_team_b"])
    expect(init.code, init.stderr).toBe(0)
    const again = await acxInProcess(["memory", "sync"], { env: mate.env })
    expect(again.code, again.stderr).toBe(0)
  }, TEST_TIMEOUT_MS)

  it("a viewer's URL: install and sync say the role may not write, and what to use", async () => {
    const mate = machine(path.join(dir, "viewer"))
    const installed = await install(mate, viewer)
    expect(installed.code, installed.stderr).toBe(0)
    expect(oneLine(installed)).toHaveLength(1)
    expect(installed.stderr).toMatch(/vera may not use the team memory's tables in schema acx_team .*INSERT/)
    expect(installed.stderr).toContain("acx hub user add NAME --role sync")
    expect(installed.stdout + installed.stderr).not.toMatch(/catches up|not reachable/)
    const sync = await acxInProcess(["memory", "sync"], { env: mate.env })
    expect(sync.code).toBe(1)
    expect(sync.stderr).toContain("--role sync")
  }, TEST_TIMEOUT_MS)

  it("memory status shows the last memory sync: when, and what it did", async () => {
    const mate = machine(path.join(dir, "status"))
    expect((await install(mate, member)).code).toBe(0)
    transcript(mate)
    expect((await acxInProcess(["memory", "backfill", "--config-dir", mate.claude], { env: mate.env })).code).toBe(0)
    const synced = await acxInProcess(["memory", "sync", "--json"], { env: mate.env })
    expect(synced.code, synced.stderr).toBe(0)
    const report = JSON.parse(synced.stdout) as { pushed: number }
    expect(report.pushed).toBeGreaterThan(0)
    const status = await acxInProcess(["memory", "status"], { env: mate.env })
    expect(status.stdout).toMatch(/team:\s+postgres:\/\/cartmachine:\*\*\*@.* last synced /)
    expect(status.stdout).toMatch(new RegExp(`team manual sync: \\S.*: shared ${report.pushed} entries`))
    const json = JSON.parse((await acxInProcess(["memory", "status", "--json"], { env: mate.env })).stdout)
    expect(json.team.lastManual).toMatchObject({ pushed: report.pushed })
    expect(json.team.lastManual.at).toBeGreaterThan(Date.now() - 10 * 60_000)
    // a failed one is shown as failed
    fs.writeFileSync(
      path.join(mate.home, "memory-team.json"),
      fs.readFileSync(path.join(mate.home, "memory-team.json"), "utf8").replace(
        /schema":\s*"acx_team"/,
        "schema\":\"acx_none\""
      )
    )
    expect((await acxInProcess(["memory", "sync"], { env: mate.env })).code).toBe(1)
    expect((await acxInProcess(["memory", "status"], { env: mate.env })).stdout).toMatch(
      /team manual sync: \S.*: failed: the team memory's tables are not in schema acx_none/
    )
  }, TEST_TIMEOUT_MS)
})
