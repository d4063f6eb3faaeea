/**
 * A SQLite store another process holds locked (`BEGIN EXCLUSIVE`, here in the test process) is
 * told as such (issue 32, point 3): `import`, `sessions` and `search` wait out the busy timeout,
 * then fail in one line that says the store is locked, names the file and what to do, where they
 * printed the driver's `Failed to execute statement`; `sessions` meets the lock when the store
 * must derive first, and lists a current store beside it (a read sees the last commit).
 * Spawned: the lock is between processes.
 */
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { importedPlainStore } from "./utils/imported.js"

let root = ""
let db = ""
let env: Record<string, string> = {}
beforeAll(async () => {
  root = tempDir("locked-store")
  ;({ db, env } = await importedPlainStore(root))
}, TEST_TIMEOUT_MS)
afterAll(() => removeDir(root))

describe("a store another process holds locked", () => {
  it("sessions lists a current store beside the lock", { timeout: TEST_TIMEOUT_MS }, async () => {
    const holder = new Database(db)
    holder.exec("BEGIN EXCLUSIVE")
    try {
      const listed = await acx(["sessions", "--from", `sqlite:${db}`, "--json"], { env })
      expect(listed.code, listed.stderr).toBe(0)
      expect((JSON.parse(listed.stdout) as Array<unknown>).length).toBeGreaterThan(0)
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
  })

  it("import, sessions and search say the store is locked, in one line naming it", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    // derived data behind the entries: `sessions` must derive first, which the lock holds off
    const writer = new Database(db)
    writer.exec("UPDATE acx_session_keys SET derived_mtime = 0")
    writer.close()
    const holder = new Database(db)
    holder.exec("BEGIN EXCLUSIVE")
    try {
      const runs = await Promise.all([
        acx(["import", "--to", `sqlite:${db}`], { env }),
        acx(["sessions", "--from", `sqlite:${db}`], { env }),
        acx(["search", "prompt", "--from", `sqlite:${db}`], { env })
      ])
      for (const [i, run] of runs.entries()) {
        const what = ["import", "sessions", "search"][i]
        expect(run.code, `${what}: ${run.stderr}`).toBe(1)
        expect(run.stderr, what).not.toContain("Failed to execute statement")
        expect(run.stderrLines.at(-1), what).toBe(
          `acx: database is locked by another process: ${db} (an import or sync still running, ` +
            "or a program holding a transaction open): try again once it is done"
        )
      }
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
  })
})
