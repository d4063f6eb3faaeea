/**
 * The first step of `acx sync` (`src/internal/unchangedSync.ts`) on a real SQLite store that the
 * sync (in process) wrote from the fixtures: an unchanged directory is answered with the sync's
 * summary and nothing is written; the step says "the sync must run" (`undefined`) whatever
 * changed — a line appended, a file touched, a subagent's metadata rewritten, a new session, an
 * origin missing, a symbolic link, another machine's name — and after the sync stored it, the
 * directory is unchanged again. It never claims while the sync's lock is held, a breaker's marker
 * or an `again` mark waits, no sync ran here before, the store has entries not derived, is of
 * another schema or is no store at all (then the sync words it); and a sync paused mid-write by a
 * barrier (another process, killed there) is neither answered for nor lost: the next sync stores
 * every entry once.
 */
import type * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as UnchangedSync from "@acx/claude-code/UnchangedSync"
import * as Fixtures from "@acx/fixtures"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SyncOptions } from "../src/commands/args/sync.js"
import { unchangedSummary } from "../src/internal/unchangedSync.js"
import { type AcxResult, BIN, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

/** What `acx sync --json` prints: the import's result, its passes and target. */
type SyncJson = ClaudeImport.ImportResult & { readonly passes: number; readonly target: string }

const timeless = (stdout: string) =>
  stdout.replace(/ in \d+(?:\.\d+)?s \(/, " in Ns (").replace(/"seconds":[\d.e-]+/, "\"seconds\":N")

const ok = (result: AcxResult) => {
  expect(result.code, result.stderr).toBe(0)
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

describe("the first step of acx sync: an unchanged directory", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir
  let home = ""
  let file = ""
  let spec = ""

  const options = (overrides: Partial<SyncOptions> = {}): SyncOptions => ({
    to: spec,
    configDir: built.configDir,
    json: false,
    watch: false,
    background: false,
    machine: undefined,
    user: undefined,
    noMask: false,
    ...overrides
  })
  const io = () => ({ env: { ACX_HOME: home }, cwd: root })
  const step = (overrides: Partial<SyncOptions> = {}) => unchangedSummary(options(overrides), io())
  const sync = (args: ReadonlyArray<string>) =>
    acxInProcess(["sync", "--config-dir", built.configDir, "--to", spec, ...args], { env: { ACX_HOME: home } })
  const lockDir = () =>
    path.join(home, "sync", UnchangedSync.lockName(spec, fs.realpathSync(path.join(built.configDir, "projects"))))
  const withStore = <A>(use: (db: Database.Database) => A): A => {
    const db = new Database(file)
    try {
      return use(db)
    } finally {
      db.close()
    }
  }
  /** What the step says with `entry` in the lock's directory (removed after). */
  const withEntry = (entry: string) => {
    const target = path.join(lockDir(), entry)
    fs.writeFileSync(target, "")
    try {
      return step()
    } finally {
      fs.rmSync(target)
    }
  }
  const ledgerFiles = () =>
    withStore((db) =>
      (db.prepare("SELECT file FROM acx_session_import_ledger").all() as Array<{ file: string }>).map((row) => row.file)
    )
  const storedLines = (session: Fixtures.BuiltConfigDir["sessions"][number]) =>
    withStore((db) =>
      (db.prepare(
        `SELECT count(*) AS n FROM acx_session_entries e JOIN acx_session_keys k ON k.id = e.key_id
          WHERE k.project_key = ? AND k.session_id = ? AND k.subpath = ''`
      ).get(session.projectKey, session.sessionId) as { n: number }).n
    )
  const fileLines = (transcript: string) =>
    fs.readFileSync(transcript, "utf8").split("\n").filter((line) => line.trim() !== "").length

  beforeAll(async () => {
    root = tempDir("unchanged-sync")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    home = path.join(root, "home")
    file = path.join(root, "store.db")
    spec = `sqlite:${file}`
    // the first sync has everything to do
    expect(step()).toBeUndefined()
    const first = parseJson<SyncJson>(ok(await sync(["--json"])))
    expect(first.entries).toBeGreaterThan(0)
  }, TEST_TIMEOUT_MS)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it("prints the sync's summary for every shape (--json, --background), writing nothing", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const before = fs.readFileSync(file)
    const mtime = fs.statSync(file).mtimeMs
    for (const shape of [[], ["--json"], ["--background"], ["--json", "--background"]]) {
      const result = ok(await sync(shape))
      expect(result.stderr, shape.join(" ")).toBe("")
      const json = shape.includes("--json")
      // what the step says is what the command printed, the time aside
      expect(timeless(result.stdout)).toBe(timeless(`${step({ json })!}\n`))
      if (!json) {
        expect(result.stdout).toMatch(
          new RegExp(
            `^synced ${built.sessions.length} sessions, .* 0 new entries into ${spec} in [\\d.]+s \\(0 files read`
          )
        )
        continue
      }
      expect(parseJson<SyncJson>(result)).toMatchObject({
        sessions: built.sessions.length,
        entries: 0,
        filesRead: 0,
        bytesRead: 0,
        filesUnchanged: ledgerFiles().length,
        passes: 1,
        target: spec
      })
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true)
    expect(fs.statSync(file).mtimeMs).toBe(mtime)
    expect(fs.readdirSync(lockDir())).toEqual([])
  })

  it("checks exactly the files the sync keeps ledger records of", () => {
    const listing = PlainListing.importFiles(built.configDir)!
    expect(listing.files.map((f) => f.name).sort()).toEqual(ledgerFiles().sort())
    expect(listing.sessions).toHaveLength(built.sessions.length)
    expect(listing.files.some((f) => f.name.endsWith(".meta.json"))).toBe(true)
  })

  it("answers for the default store, $ACX_HOME/sessions.db", { timeout: TEST_TIMEOUT_MS }, async () => {
    const own = path.join(root, "home-default")
    const env = { ACX_HOME: own, CLAUDE_CONFIG_DIR: built.configDir }
    const first = { to: undefined, configDir: undefined, json: true }
    expect(unchangedSummary(options(first), { env, cwd: root })).toBeUndefined()
    ok(await acxInProcess(["sync"], { env }))
    const answer = unchangedSummary(options(first), { env, cwd: root })
    expect(JSON.parse(answer!)).toMatchObject({ entries: 0, target: `sqlite:${path.join(own, "sessions.db")}` })
    const printed = parseJson<SyncJson>(ok(await acxInProcess(["sync", "--json"], { env })))
    expect(printed).toMatchObject({ entries: 0, target: `sqlite:${path.join(own, "sessions.db")}` })
  })

  it("reads a relative --to and --config-dir against the io's directory, not the process's", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const relative = { to: "store.db", configDir: path.relative(root, built.configDir), json: true }
    expect(process.cwd()).not.toBe(root)
    expect(JSON.parse(unchangedSummary(options(relative), io())!)).toMatchObject({ entries: 0, target: spec })
    const printed = await acxInProcess(["sync", "--to", "store.db", "--config-dir", relative.configDir, "--json"], {
      env: { ACX_HOME: home },
      cwd: root
    })
    expect(parseJson<SyncJson>(ok(printed))).toMatchObject({ entries: 0, target: spec })
    // a Postgres target is the sync's: the step reads SQLite stores only
    expect(step({ to: "postgres://acx@127.0.0.1:1/acx" })).toBeUndefined()
  })

  it("says the sync must run whatever changed; the sync stores it, then it is unchanged again", {
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
      expect(step(), name).toBeUndefined()
      const json = parseJson<SyncJson>(ok(await sync(["--json"])))
      if (entries >= 0) expect(json.entries, name).toBe(entries)
      else expect(json.entries, name).toBeGreaterThan(0)
      expect(JSON.parse(step({ json: true })!), name).toMatchObject({ entries: 0, filesRead: 0 })
    }
    const origin = withStore((db) =>
      db.prepare("SELECT machine FROM acx_session_origin WHERE project_key = ? AND session_id = ?").get(
        session.projectKey,
        session.sessionId
      )
    )
    expect(origin).toBeDefined()
  })

  it("says the sync must run for a tree with a symbolic link where a transcript is listed", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions[0]!
    const link = path.join(path.dirname(session.file), `${crypto.randomUUID()}.jsonl`)
    fs.symlinkSync(session.file, link)
    try {
      // the sync resolves it (inside the config directory: a session) and syncs it, every time
      expect(step()).toBeUndefined()
      ok(await sync([]))
      expect(step()).toBeUndefined()
    } finally {
      fs.rmSync(link)
    }
    expect(step()).toBeTypeOf("string")
  })

  it("says the sync must run while the lock is held, a breaker's marker or an again mark waits", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expect(step()).toBeTypeOf("string")
    expect(withEntry(".acx-lock.breaking-1-2-3")).toBeUndefined()
    expect(withEntry(UnchangedSync.AGAIN)).toBeUndefined()
    // a live holder (this process): the hook's sync marks it to run again and exits
    const lock = path.join(lockDir(), ".acx-lock")
    fs.writeFileSync(lock, `${process.pid}:${os.hostname()}:held-by-the-test`)
    expect(step()).toBeUndefined()
    const deferred = ok(await sync(["--background", "--json"]))
    expect(JSON.parse(deferred.stdout)).toEqual({ deferred: true, target: spec })
    expect(fs.existsSync(path.join(lockDir(), UnchangedSync.AGAIN))).toBe(true)
    fs.rmSync(lock)
    expect(step()).toBeUndefined()
    // the mark left for the holder: the next sync runs the pass it asked for, and clears it
    expect(parseJson<SyncJson>(ok(await sync(["--json"])))).toMatchObject({ entries: 0, filesRead: 0, passes: 1 })
    expect(fs.readdirSync(lockDir())).toEqual([])
    expect(step()).toBeTypeOf("string")
  })

  it("says the sync must run where no sync ran before (no lock directory)", () => {
    const saved = `${lockDir()}.moved`
    fs.renameSync(lockDir(), saved)
    try {
      expect(step()).toBeUndefined()
    } finally {
      fs.renameSync(saved, lockDir())
    }
    expect(step()).toBeTypeOf("string")
  })

  it("says the sync must run while the store has entries not derived, or is of another schema", () => {
    const keyId = withStore((db) => (db.prepare("SELECT id FROM acx_session_keys LIMIT 1").get() as { id: number }).id)
    const derived = withStore((db) =>
      (db.prepare("SELECT derived_mtime FROM acx_session_keys WHERE id = ?").get(keyId) as { derived_mtime: number })
        .derived_mtime
    )
    withStore((db) => db.prepare("UPDATE acx_session_keys SET derived_mtime = mtime - 1 WHERE id = ?").run(keyId))
    expect(withStore((db) => db.prepare(StoreCatalogSql.READINESS).get())).toMatchObject({ behind: 1 })
    expect(step()).toBeUndefined()
    withStore((db) => db.prepare("UPDATE acx_session_keys SET derived_mtime = ? WHERE id = ?").run(derived, keyId))
    expect(step()).toBeTypeOf("string")
    withStore((db) =>
      db.prepare("INSERT INTO acx_session_store_migrations (migration_id, name) VALUES (9999, 'newer')").run()
    )
    try {
      expect(step()).toBeUndefined()
    } finally {
      withStore((db) => db.prepare("DELETE FROM acx_session_store_migrations WHERE migration_id = 9999").run())
    }
    expect(step()).toBeTypeOf("string")
  })

  it("says the sync must run for a source the store has no record of, --watch, or a bad --machine", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expect(step()).toBeTypeOf("string")
    expect(step({ machine: "another-machine" })).toBeUndefined()
    expect(step({ watch: true })).toBeUndefined()
    expect(step({ machine: "not a name" })).toBeUndefined()
    // the sync's one line, nothing stored
    const bad = await sync(["--machine", "not a name"])
    expect(bad.code).not.toBe(0)
    expect(bad.stderrLines).toEqual([expect.stringMatching(/^acx: --machine: "not a name" is not a machine name/)])
    expect(bad.stdout).toBe("")
  })

  it("leaves a damaged store to the sync: not SQLite, no ledger, a newer schema", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const garbage = path.join(root, "garbage.db")
    fs.writeFileSync(garbage, "not a database at all, just text ".repeat(200))
    expect(step({ to: `sqlite:${garbage}` })).toBeUndefined()
    const notSqlite = await acxInProcess(["sync", "--config-dir", built.configDir, "--to", `sqlite:${garbage}`], {
      env: { ACX_HOME: home }
    })
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
      expect(step({ to: `sqlite:${damaged}` }), damaged).toBeUndefined()
      const result = await acxInProcess(["sync", "--config-dir", built.configDir, "--to", `sqlite:${damaged}`], {
        env: { ACX_HOME: home }
      })
      // the sync's: its sync, or one line
      if (result.code !== 0) {
        expect(result.stderrLines).toHaveLength(1)
        expect(result.stderrLines[0]).toMatch(/^acx: /)
      }
    }
  })

  it("never answers for a sync paused mid-write (a barrier), and the next sync stores every entry once", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions[built.sessions.length - 1]!
    for (let i = 0; i < 2000; i++) appendLine(session.file, `racing prompt ${i} ${"x".repeat(200)}`)
    // a sync with work, paused for good right after its first batch and ledger record committed
    const gate = path.join(root, "gate-ledger")
    const child = spawn(process.execPath, [BIN, "sync", "--config-dir", built.configDir, "--to", spec, "--json"], {
      env: { ...process.env, ACX_HOME: home, ACX_PAUSE_AT: "ledger:1", ACX_PAUSE_GATE: gate },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const closed = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("close", (_code, signal) => resolve(signal))
    )
    let exited = false
    void closed.then(() => (exited = true))
    await expect.poll(() => fs.existsSync(gate) || exited, { timeout: TEST_TIMEOUT_MS, interval: 20 }).toBe(true)
    expect(fs.existsSync(gate), `the sync ended before its first batch: ${stderr}`).toBe(true)
    try {
      // it holds the lock with part of its work stored: nothing is claimed, the hook's sync defers
      expect(step()).toBeUndefined()
      const deferred = ok(await sync(["--background", "--json"]))
      expect(JSON.parse(deferred.stdout)).toEqual({ deferred: true, target: spec })
    } finally {
      child.kill("SIGKILL")
    }
    expect(await closed).toBe("SIGKILL")
    // the dead holder's lock is still there: the step leaves it to the sync, which breaks it
    expect(step()).toBeUndefined()
    expect(parseJson<SyncJson>(ok(await sync(["--json"]))).entries).toBeGreaterThan(0)
    expect(storedLines(session)).toBe(fileLines(session.file))
    expect(JSON.parse(step({ json: true })!)).toMatchObject({ entries: 0 })
    expect(parseJson<SyncJson>(ok(await sync(["--json"]))).entries).toBe(0)
  })
})
