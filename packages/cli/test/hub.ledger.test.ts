/**
 * One member's rows may not stop another member's sync, end to end on an embedded Postgres of
 * this file's own (roles are cluster-wide), each sync connecting as its member for real: member
 * B, knowing machine A's ledger source and its files, inserts import records with that source
 * first (a file A has not imported yet, and the ones it has). A's records were keyed by `(source,
 * file)` alone: A's next sync met a row it could neither read nor update (its policies) and failed
 * with `new row violates row-level security policy`. Each member's records now live in a key
 * space of its own (`db_user`, migration 9): A syncs on, stores the new session exactly once and
 * exits 0, and an unchanged sync after it stores nothing. `hub user rotate B A` then keeps A's
 * record of a file both recorded (it stands for what A stored) and drops B's.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { oneSessionConfigDir, query, type RunningHub, startHub } from "./utils/hub.js"
import { acxInProcess } from "./utils/inProcess.js"

const FIXTURE = "d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"

describe("acx hub: another member's import records", () => {
  let dir: string
  let hub: RunningHub
  let alpha: string
  let beta: string
  const count = async (sql: string, role: string) => (await query(hub.admin, sql, [role]))[0]!["n"] as number
  const entriesOf = (role: string) =>
    count(`SELECT count(*)::int AS n FROM claude_session_entries WHERE db_user = $1`, role)
  const sessionsOf = (role: string) =>
    count(`SELECT count(*)::int AS n FROM acx_session_owner WHERE db_user = $1`, role)

  beforeAll(async () => {
    dir = tempDir("hub-ledger")
    hub = await startHub(path.join(dir, "admin"))
    alpha = await hub.addUser("laptop_a", "sync")
    beta = await hub.addUser("laptop_b", "sync")
  }, 4 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await hub?.stop()
    removeDir(dir)
  })

  it(
    "member B's records planted under A's source and files do not stop A's sync: A stores each session once",
    async () => {
      const configDir = oneSessionConfigDir(path.join(dir, "a"), FIXTURE, "-home-dev-app")
      const first = await hub.sync(alpha, configDir, "a")
      expect(first.code, first.stderr).toBe(0)
      const records = await query(hub.admin, `SELECT source, file FROM acx_import_ledger WHERE db_user = 'laptop_a'`)
      expect(records.length).toBeGreaterThan(0)
      const { file, source } = records[0] as { source: string; file: string }
      // a session A has not synced yet, and B's record for it (and for A's imported files) first
      const before = new Set(fs.readdirSync(path.join(configDir, "projects", "-home-dev-app")))
      oneSessionConfigDir(configDir, FIXTURE, "-home-dev-app")
      const added = fs.readdirSync(path.join(configDir, "projects", "-home-dev-app")).find((name) => !before.has(name))!
      const planted = [...records.map((row) => row["file"] as string), file.replace(/[^/\\]+$/, added)]
      expect(planted.at(-1)).not.toBe(file)
      for (const target of planted) {
        await query(
          beta,
          `INSERT INTO acx_import_ledger (source, file, size, mtime_ms, "offset", fingerprint)
            VALUES ($1, $2, 1, 1, 1, 'planted') ON CONFLICT DO NOTHING`,
          [source, target]
        )
      }
      const stored = await entriesOf("laptop_a")

      const second = await hub.sync(alpha, configDir, "a")
      expect(second.code, second.stderr).toBe(0)
      expect(second.stderr).not.toMatch(/row-level security|laptop_b/)
      expect(await sessionsOf("laptop_a")).toBe(2)
      const both = await entriesOf("laptop_a")
      expect(both).toBe(2 * stored)
      // exactly once: an unchanged sync stores nothing more, and B's records are still only B's
      const third = await hub.sync(alpha, configDir, "a")
      expect(third.code, third.stderr).toBe(0)
      expect(await entriesOf("laptop_a")).toBe(both)
      expect(await count(`SELECT count(*)::int AS n FROM acx_import_ledger WHERE db_user = $1`, "laptop_b")).toBe(
        planted.length
      )
    },
    4 * TEST_TIMEOUT_MS
  )

  it(
    "hub user rotate B A, both with a record of one file: A's record stays and A syncs on storing nothing twice",
    async () => {
      const stored = await entriesOf("laptop_a")
      const rotated = await acxInProcess(["hub", "user", "rotate", "laptop_b", "laptop_a", "--hub", hub.admin])
      expect(rotated.code, rotated.stderr).toBe(0)
      expect(await count(`SELECT count(*)::int AS n FROM acx_import_ledger WHERE fingerprint = $1`, "planted")).toBe(
        0
      )
      const again = await hub.sync(alpha, path.join(dir, "a"), "a")
      expect(again.code, again.stderr).toBe(0)
      expect(await entriesOf("laptop_a")).toBe(stored)
    },
    4 * TEST_TIMEOUT_MS
  )
})
