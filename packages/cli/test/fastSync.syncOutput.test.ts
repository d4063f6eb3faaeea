/**
 * `fastSync.syncOutput` in process, on a real SQLite store the full sync (in process too) wrote
 * from the fixtures: it answers an unchanged sync with the full path's output (the time aside),
 * and answers nothing (`undefined`: the full sync runs) while the sync's lock is held, a breaker's
 * marker or an `again` mark is in the lock's directory, no sync ran here before (no lock
 * directory), the store has entries its catalog has not derived or another schema, or it has no
 * record of this source (another machine's name), or anything changed.
 */
import * as UnchangedSync from "@acx/claude-code/UnchangedSync"
import * as Fixtures from "@acx/fixtures"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syncOutput, type SyncRequest } from "../src/fastSync.js"
import { tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

const timeless = (stdout: string) =>
  stdout.replace(/ in \d+(?:\.\d+)?s \(/, " in Ns (").replace(/"seconds":[\d.e-]+/, "\"seconds\":N")

describe("fastSync.syncOutput", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir
  let home = ""
  let file = ""
  let spec = ""
  let savedHome: string | undefined

  const request = (overrides: Partial<SyncRequest> = {}): SyncRequest => ({
    to: spec,
    configDir: built.configDir,
    json: false,
    machine: undefined,
    ...overrides
  })
  const full = (args: ReadonlyArray<string>) =>
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
  /** What `syncOutput` says with `entry` in the lock's directory (removed after). */
  const withEntry = (entry: string) => {
    const target = path.join(lockDir(), entry)
    fs.writeFileSync(target, "")
    try {
      return syncOutput(request())
    } finally {
      fs.rmSync(target)
    }
  }

  beforeAll(async () => {
    root = tempDir("sync-output")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    home = path.join(root, "home")
    file = path.join(root, "store.db")
    spec = `sqlite:${file}`
    savedHome = process.env["ACX_HOME"]
    // syncOutput reads $ACX_HOME as the CLI does
    process.env["ACX_HOME"] = home
    const first = await full(["--json"])
    expect(first.code, first.stderr).toBe(0)
  }, TEST_TIMEOUT_MS)
  afterAll(() => {
    if (savedHome === undefined) delete process.env["ACX_HOME"]
    else process.env["ACX_HOME"] = savedHome
    fs.rmSync(root, { recursive: true, force: true })
  })

  it(
    "answers an unchanged sync as the full sync prints it, text and --json",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      for (const json of [false, true]) {
        const answer = syncOutput(request({ json }))
        expect(answer).toBeTypeOf("string")
        const expected = await full(json ? ["--json"] : [])
        expect(expected.code, expected.stderr).toBe(0)
        expect(timeless(`${answer!}\n`)).toBe(timeless(expected.stdout))
      }
    }
  )

  it("answers nothing while the lock is held, a breaker's marker or an again mark waits", () => {
    expect(syncOutput(request())).toBeTypeOf("string")
    expect(withEntry(".acx-lock")).toBeUndefined()
    expect(withEntry(".acx-lock.breaking-1-2-3")).toBeUndefined()
    expect(withEntry(UnchangedSync.AGAIN)).toBeUndefined()
    expect(syncOutput(request())).toBeTypeOf("string")
  })

  it("answers nothing where no sync ran before (no lock directory)", () => {
    const saved = `${lockDir()}.moved`
    fs.renameSync(lockDir(), saved)
    try {
      expect(syncOutput(request())).toBeUndefined()
    } finally {
      fs.renameSync(saved, lockDir())
    }
    expect(syncOutput(request())).toBeTypeOf("string")
  })

  it("answers nothing while the store has entries not derived, or is of another schema", () => {
    const keyId = withStore((db) => (db.prepare("SELECT id FROM acx_session_keys LIMIT 1").get() as { id: number }).id)
    const derived = withStore((db) =>
      (db.prepare("SELECT derived_mtime FROM acx_session_keys WHERE id = ?").get(keyId) as { derived_mtime: number })
        .derived_mtime
    )
    withStore((db) => db.prepare("UPDATE acx_session_keys SET derived_mtime = mtime - 1 WHERE id = ?").run(keyId))
    expect(withStore((db) => db.prepare(StoreCatalogSql.READINESS).get())).toMatchObject({ behind: 1 })
    expect(syncOutput(request())).toBeUndefined()
    withStore((db) => db.prepare("UPDATE acx_session_keys SET derived_mtime = ? WHERE id = ?").run(derived, keyId))
    expect(syncOutput(request())).toBeTypeOf("string")
    withStore((db) =>
      db.prepare("INSERT INTO acx_session_store_migrations (migration_id, name) VALUES (9999, 'newer')").run()
    )
    try {
      expect(syncOutput(request())).toBeUndefined()
    } finally {
      withStore((db) => db.prepare("DELETE FROM acx_session_store_migrations WHERE migration_id = 9999").run())
    }
    expect(syncOutput(request())).toBeTypeOf("string")
  })

  it("answers nothing for a source the store has no record of, or a transcript that changed", () => {
    expect(syncOutput(request({ machine: "another-machine" }))).toBeUndefined()
    fs.appendFileSync(built.sessions[0]!.file, `${JSON.stringify({ type: "user", uuid: crypto.randomUUID() })}\n`)
    expect(syncOutput(request())).toBeUndefined()
  })
})
