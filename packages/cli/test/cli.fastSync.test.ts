/**
 * The fast path of an unchanged `acx sync` (`src/fastSync.ts`, `dist/fast-sync.cjs`) through the
 * BUILT binary on the real fixtures: for every command line shape it takes it answers (it says so
 * on stderr under `ACX_FAST_REPORT=1`) and prints what the full path (`ACX_NO_FAST=1`) prints,
 * the time aside; the files it checks are exactly those the full sync keeps ledger records of. It
 * hands the command back whenever the sync has work to do — a line appended, a file touched, a
 * subagent's metadata rewritten, a new session, an origin missing, a symbolic link it would resolve —
 * and the full path does it, after which it answers again. It never answers while a sync holds
 * the lock or an `again` mark waits, and syncs racing it (one with work, several without) store
 * every entry once. A damaged store (not SQLite, no ledger, a newer schema) is handed back: the
 * full path's one line, or its sync.
 */
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as UnchangedSync from "@acx/claude-code/UnchangedSync"
import * as Fixtures from "@acx/fixtures"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseSync } from "../src/fastSync.js"
import { acx, type AcxResult, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const FAST = "acx: fast path: sync\n"

interface SyncJson {
  readonly entries: number
  readonly filesRead: number
  readonly filesUnchanged: number
  readonly passes: number
}

/** The output with the time it states taken out (the one thing the two paths may differ in). */
const timeless = (stdout: string) =>
  stdout.replace(/ in \d+(?:\.\d+)?s \(/, " in Ns (").replace(/"seconds":[\d.e-]+/, "\"seconds\":N")

const answered = (result: AcxResult) => {
  expect(result.stderr).toBe(FAST)
  expect(result.code).toBe(0)
  return result
}

const handedBack = (result: AcxResult) => {
  expect(result.stderr).not.toMatch(/acx: fast path: /)
  return result
}

const appendLine = (file: string, text: string) =>
  fs.appendFileSync(
    file,
    `${
      JSON.stringify({
        type: "user",
        uuid: crypto.randomUUID(),
        timestamp: "2030-01-01T00:00:00.000Z",
        message: { role: "user", content: text }
      })
    }\n`
  )

describe("parseSync", () => {
  it("takes exactly the shapes of a plain sync, and nothing else", () => {
    expect(parseSync([])).toEqual({ to: undefined, configDir: undefined, json: false, machine: undefined })
    expect(parseSync(["--json", "--to", "x.db", "--background", "--config-dir", "c", "--user", "u", "--machine", "m1"]))
      .toEqual({ to: "x.db", configDir: "c", json: true, machine: "m1" })
    for (
      const args of [
        ["--watch"],
        ["--to=x.db"],
        ["--json", "--json"],
        ["install"],
        ["--to"],
        ["--to", "--json"],
        ["--machine", "not a name"],
        ["--verbose"]
      ]
    ) expect(parseSync(args), args.join(" ")).toBeUndefined()
  })
})

describe("the fast path of an unchanged acx sync", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir
  let home = ""
  let file = ""
  let spec = ""

  const sync = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    acx(["sync", "--config-dir", built.configDir, "--to", spec, ...args], {
      env: { ACX_HOME: home, ACX_FAST_REPORT: "1", ...env }
    })
  const full = (args: ReadonlyArray<string>) => sync(args, { ACX_NO_FAST: "1" })
  const lockDir = () =>
    path.join(
      home,
      "sync",
      UnchangedSync.lockName(spec, fs.realpathSync(path.join(built.configDir, "projects")))
    )
  const withStore = <A>(use: (db: Database.Database) => A): A => {
    const db = new Database(file)
    try {
      return use(db)
    } finally {
      db.close()
    }
  }

  beforeAll(async () => {
    root = tempDir("fastsync")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    home = path.join(root, "home")
    file = path.join(root, "store.db")
    spec = `sqlite:${file}`
    // the first sync has everything to do: handed back
    const first = handedBack(await sync(["--json"]))
    expect(first.code, first.stderr).toBe(0)
  }, TEST_TIMEOUT_MS)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  const shapes: ReadonlyArray<ReadonlyArray<string>> = [[], ["--json"], ["--background"], ["--json", "--background"]]
  for (const shape of shapes) {
    it(`answers sync ${shape.join(" ")} as the full path does`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const fast = answered(await sync(shape))
      const reference = await full(shape)
      expect(reference.code, reference.stderr).toBe(0)
      expect(reference.stderr).toBe("")
      expect(timeless(fast.stdout)).toBe(timeless(reference.stdout))
      expect(fast.stdout).toMatch(/0 new entries|"entries":0/)
    })
  }

  it("checks exactly the files the full sync keeps ledger records of", () => {
    const listing = PlainListing.importFiles(built.configDir)!
    const recorded = withStore((db) =>
      (db.prepare("SELECT file FROM acx_session_import_ledger").all() as Array<{ file: string }>).map((row) => row.file)
    )
    expect(listing.files.map((f) => f.name).sort()).toEqual(recorded.sort())
    expect(listing.sessions).toHaveLength(built.sessions.length)
    expect(listing.files.some((f) => f.name.endsWith(".meta.json"))).toBe(true)
  })

  it("answers for the default store, $ACX_HOME/sessions.db", { timeout: TEST_TIMEOUT_MS }, async () => {
    const own = path.join(root, "home-default")
    const env = { ACX_HOME: own, CLAUDE_CONFIG_DIR: built.configDir, ACX_FAST_REPORT: "1" }
    expect(handedBack(await acx(["sync"], { env })).code).toBe(0)
    const fast = answered(await acx(["sync", "--json"], { env }))
    const reference = await acx(["sync", "--json"], { env: { ...env, ACX_NO_FAST: "1" } })
    expect(timeless(fast.stdout)).toBe(timeless(reference.stdout))
    expect(fast.stdout).toContain(`"target":"sqlite:${path.join(own, "sessions.db")}"`)
  })

  it("hands back whatever changed; the full path syncs it, then the fast path answers again", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions.find((s) => s.subagents.length > 0)!
    const agent = session.subagents[0]!
    const meta = agent.file.slice(0, -".jsonl".length) + ".meta.json"
    const changes: ReadonlyArray<{ readonly name: string; readonly change: () => void; readonly entries: number }> = [
      { name: "a line appended", change: () => appendLine(session.file, "one more prompt"), entries: 1 },
      {
        name: "a subagent transcript touched",
        change: () => fs.utimesSync(agent.file, new Date(), new Date(Date.now() + 5000)),
        entries: 0
      },
      {
        name: "a subagent's metadata rewritten",
        change: () => fs.writeFileSync(meta, JSON.stringify({ agentType: "rewritten", description: "changed" })),
        entries: 1
      },
      {
        name: "a new session",
        change: () =>
          fs.copyFileSync(
            built.sessions[0]!.file,
            path.join(path.dirname(built.sessions[0]!.file), `${crypto.randomUUID()}.jsonl`)
          ),
        entries: -1
      },
      {
        name: "an origin missing",
        change: () =>
          withStore((db) =>
            db.prepare("DELETE FROM acx_session_origin WHERE project_key = ? AND session_id = ?").run(
              session.projectKey,
              session.sessionId
            )
          ),
        entries: 0
      }
    ]
    for (const { change, entries, name } of changes) {
      change()
      const back = handedBack(await sync(["--json"]))
      expect(back.code, `${name}: ${back.stderr}`).toBe(0)
      const json = parseJson<SyncJson>(back)
      if (entries >= 0) expect(json.entries, name).toBe(entries)
      else expect(json.entries, name).toBeGreaterThan(0)
      expect(parseJson<SyncJson>(answered(await sync(["--json"]))).entries, name).toBe(0)
    }
    const origin = withStore((db) =>
      db.prepare("SELECT machine FROM acx_session_origin WHERE project_key = ? AND session_id = ?").get(
        session.projectKey,
        session.sessionId
      )
    )
    expect(origin).toBeDefined()
  })

  it("hands back a tree with a symbolic link where a transcript is listed", { timeout: TEST_TIMEOUT_MS }, async () => {
    const session = built.sessions[0]!
    const link = path.join(path.dirname(session.file), `${crypto.randomUUID()}.jsonl`)
    fs.symlinkSync(session.file, link)
    try {
      // the full path resolves it (inside the config directory: a session) and syncs it
      expect(handedBack(await sync([])).code).toBe(0)
      expect(handedBack(await sync([])).code).toBe(0)
    } finally {
      fs.rmSync(link)
    }
    answered(await sync([]))
  })

  it("never answers while a sync holds the lock or an again mark waits", { timeout: TEST_TIMEOUT_MS }, async () => {
    const lock = path.join(lockDir(), ".acx-lock")
    answered(await sync([]))
    // a live holder (this process): the hook's sync marks it to run again and exits
    fs.writeFileSync(lock, `${process.pid}:${os.hostname()}:held-by-the-test`)
    const deferred = handedBack(await sync(["--background", "--json"]))
    expect(deferred.code, deferred.stderr).toBe(0)
    expect(JSON.parse(deferred.stdout)).toEqual({ deferred: true, target: spec })
    expect(fs.existsSync(path.join(lockDir(), UnchangedSync.AGAIN))).toBe(true)
    fs.rmSync(lock)
    // the mark left for the holder: the next sync runs the pass it asked for, and clears it
    const marked = handedBack(await sync(["--json"]))
    expect(parseJson<SyncJson>(marked)).toMatchObject({ entries: 0, filesRead: 0, passes: 1 })
    expect(fs.readdirSync(lockDir())).toEqual([])
    answered(await sync([]))
  })

  it("stores every entry once when syncs race, one with work and several without", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions[built.sessions.length - 1]!
    for (let i = 0; i < 200; i++) appendLine(session.file, `racing prompt ${i} ${"x".repeat(2000)}`)
    const results = await Promise.all([full(["--json"]), sync(["--json"]), sync(["--json"]), sync(["--json"])])
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0)
      // an answer of the fast path claims nothing was left; any other run is the full path's
      if (result.stderr === FAST) expect(parseJson<SyncJson>(result).entries).toBe(0)
    }
    const lines = fs.readFileSync(session.file, "utf8").split("\n").filter((line) => line.trim() !== "").length
    const stored = withStore((db) =>
      (db.prepare(
        `SELECT count(*) AS n FROM acx_session_entries e JOIN acx_session_keys k ON k.id = e.key_id
          WHERE k.project_key = ? AND k.session_id = ? AND k.subpath = ''`
      ).get(session.projectKey, session.sessionId) as { n: number }).n
    )
    expect(stored).toBe(lines)
    expect(parseJson<SyncJson>(answered(await sync(["--json"]))).entries).toBe(0)
  })

  it("hands back a damaged store: not SQLite, no ledger, a newer schema", { timeout: TEST_TIMEOUT_MS }, async () => {
    const garbage = path.join(root, "garbage.db")
    fs.writeFileSync(garbage, "not a database at all, just text ".repeat(200))
    const notSqlite = handedBack(
      await acx(["sync", "--config-dir", built.configDir, "--to", `sqlite:${garbage}`], {
        env: { ACX_HOME: home, ACX_FAST_REPORT: "1" }
      })
    )
    expect(notSqlite.code).toBe(1)
    expect(notSqlite.stderrLines).toHaveLength(1)
    expect(notSqlite.stderrLines[0]).toMatch(/^acx: /)

    const copyOf = (name: string, damage: (db: Database.Database) => void) => {
      const target = path.join(root, name)
      fs.copyFileSync(file, target)
      const db = new Database(target)
      try {
        damage(db)
      } finally {
        db.close()
      }
      return target
    }
    const noLedger = copyOf("no-ledger.db", (db) => db.exec("DROP TABLE acx_session_import_ledger"))
    const newer = copyOf(
      "newer.db",
      (db) => db.exec("INSERT INTO acx_session_store_migrations (migration_id, name) VALUES (99, 'z_future')")
    )
    for (const damaged of [noLedger, newer]) {
      const result = handedBack(
        await acx(["sync", "--config-dir", built.configDir, "--to", `sqlite:${damaged}`], {
          env: { ACX_HOME: home, ACX_FAST_REPORT: "1" }
        })
      )
      // the full path's: its sync, or one line
      if (result.code !== 0) {
        expect(result.stderrLines).toHaveLength(1)
        expect(result.stderrLines[0]).toMatch(/^acx: /)
      }
    }
  })
})
