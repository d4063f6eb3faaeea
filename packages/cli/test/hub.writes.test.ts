/**
 * A machine whose hub credential is replaced, end to end on an embedded Postgres of this file's
 * own (as superuser: roles are cluster-wide), each sync connecting as its member for real:
 * - a machine given a new sync member (same config directory) used to exit 1 with `new row
 *   violates row-level security policy (USING expression) for table "acx_session_keys"`, storing
 *   nothing: now it stores every session it may (its new ones), skips each session of the old
 *   member with one warning naming it and `acx hub user rotate OLD NEW` (one whose transcript is
 *   empty too: its import record alone is refused, the session being another's), and exits 0;
 * - `acx hub user rotate OLD NEW` hands OLD's sessions, ledger and grants to an existing member or
 *   to one it creates (printing its URL once) and drops OLD: the machine syncs on as NEW, nothing
 *   skipped, nothing stored twice, and OLD can no longer connect;
 * - `ALTER ROLE … PASSWORD` (same role, new password) keeps every session the machine's.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectOneLine, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { asRole, oneSessionConfigDir, printedUrl, query, type RunningHub, startHub } from "./utils/hub.js"
import { acxInProcess } from "./utils/inProcess.js"

const FIXTURE = "d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"

describe("acx hub: a machine's credential replaced", () => {
  let dir: string
  let hub: RunningHub
  let configDir: string
  const addUser = async (name: string) =>
    printedUrl(await acxInProcess(["hub", "user", "add", name, "--role", "sync", "--hub", hub.admin]))
  // the laptop's syncs, as `url`'s member, from one ACX_HOME
  const sync = (url: string) =>
    acxInProcess(["sync", "--to", url, "--config-dir", configDir, "--machine", "laptop"], {
      env: { ACX_HOME: path.join(dir, "home") }
    })
  const rowsOf = async (role: string) =>
    (await query(hub.admin, `SELECT count(*)::int AS n FROM claude_session_entries WHERE db_user = $1`, [role]))[0]![
      "n"
    ] as number
  const sessionsOf = async (role: string) =>
    (await query(hub.admin, `SELECT count(*)::int AS n FROM acx_session_owner WHERE db_user = $1`, [role]))[0]![
      "n"
    ] as number

  beforeAll(async () => {
    dir = tempDir("hub-writes")
    hub = await startHub(path.join(dir, "admin"))
    configDir = path.join(dir, "laptop")
    oneSessionConfigDir(configDir, FIXTURE, "-home-dev-app")
    oneSessionConfigDir(configDir, FIXTURE, "-home-dev-api")
    // a session whose transcript is empty: its import record is all it stores
    fs.writeFileSync(path.join(configDir, "projects", "-home-dev-api", `${randomUUID()}.jsonl`), "")
    const first = await sync(await addUser("laptop_old"))
    expect(first.code, first.stderr).toBe(0)
    expect(await sessionsOf("laptop_old")).toBe(3)
  }, 4 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await hub?.stop()
    removeDir(dir)
  })

  let fresh: string

  it(
    "a new member on the same machine stores its new session and skips the old member's with one warning each",
    async () => {
      fresh = await addUser("laptop_new")
      oneSessionConfigDir(configDir, FIXTURE, "-home-dev-web")
      const result = await sync(fresh)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/^synced 1 session,/)
      const warnings = result.stderr.split("\n").filter((line) => line !== "")
      expect(warnings).toHaveLength(3)
      for (const line of warnings) {
        expect(line).toMatch(
          /^acx: warning: skipped -home-dev-(app|api)\/[0-9a-f-]+\.jsonl: session [0-9a-f-]+ belongs to the hub member laptop_old, not to laptop_new: an admin hands laptop_old's sessions over with `acx hub user rotate laptop_old laptop_new`$/
        )
      }
      expect(await sessionsOf("laptop_new")).toBe(1)
      expect(await rowsOf("laptop_new")).toBeGreaterThan(0)
    },
    TEST_TIMEOUT_MS
  )

  it(
    "hub user rotate OLD NEW hands OLD's sessions to an existing member, and the machine syncs on as NEW",
    async () => {
      const entries = await rowsOf("laptop_old")
      const rotated = await acxInProcess(["hub", "user", "rotate", "laptop_old", "laptop_new", "--hub", hub.admin])
      expect(rotated.code, rotated.stderr).toBe(0)
      expect(rotated.stdout).toBe(
        "laptop_old's 3 sessions and grants now belong to laptop_new; laptop_old was dropped\n"
      )
      expect(await rowsOf("laptop_old")).toBe(0)
      expect(await rowsOf("laptop_new")).toBeGreaterThan(entries)
      const again = await sync(fresh)
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toBe("")
      expect(again.stdout).toMatch(/^synced 4 sessions, 0 subagent transcripts, 0 new entries/)
      // the old credential is gone
      const [{ n }] = await query(
        hub.admin,
        `SELECT count(*)::int AS n FROM pg_roles WHERE rolname = 'laptop_old'`
      ) as [{
        n: number
      }]
      expect(n).toBe(0)
    },
    TEST_TIMEOUT_MS
  )

  it("hub user rotate OLD NEW creates NEW with a new password when it does not exist, printed once", async () => {
    const rotated = await acxInProcess(["hub", "user", "rotate", "laptop_new", "laptop_next", "--hub", hub.admin])
    const next = printedUrl(rotated)
    expect(rotated.stderr).toContain("created laptop_next in the hub's sync group; laptop_new's 4 sessions")
    expect(await sessionsOf("laptop_next")).toBe(4)
    const synced = await sync(next)
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.stderr).toBe("")
    expect(synced.stdout).toContain("0 new entries")
    // the rotated credential no longer connects
    expectOneLine(await sync(fresh), 1, "laptop_new")
  }, TEST_TIMEOUT_MS)

  it("ALTER ROLE … PASSWORD keeps the role's sessions: the machine syncs on with the new password", async () => {
    await query(hub.admin, `ALTER ROLE laptop_next PASSWORD 'a-new-secret-password'`)
    oneSessionConfigDir(configDir, FIXTURE, "-home-dev-docs")
    const synced = await sync(asRole(hub.admin, "laptop_next", "a-new-secret-password"))
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.stderr).toBe("")
    expect(synced.stdout).toMatch(/^synced 5 sessions/)
    expect(await sessionsOf("laptop_next")).toBe(5)
  }, TEST_TIMEOUT_MS)

  it(
    "rotating a viewer moves its grants; rotate refuses a name in another group, a missing NEW and itself",
    async () => {
      await acxInProcess(["hub", "user", "add", "ana", "--role", "viewer", "--hub", hub.admin])
      await query(hub.admin, `INSERT INTO acx_hub_grants (role_name, project, granted_ms) VALUES ('ana', 'p', 1)`)
      const rotated = await acxInProcess(["hub", "user", "rotate", "ana", "ana2", "--hub", hub.admin])
      expect(printedUrl(rotated)).toContain("ana2")
      expect(await query(hub.admin, `SELECT role_name, project FROM acx_hub_grants`)).toEqual([
        { role_name: "ana2", project: "p" }
      ])
      expectOneLine(
        await acxInProcess(["hub", "user", "rotate", "ana2", "laptop_next", "--hub", hub.admin]),
        1,
        "_viewer, ana2's group; nothing was changed"
      )
      expectOneLine(
        await acxInProcess(["hub", "user", "rotate", "ana2", "--hub", hub.admin]),
        2,
        "acx hub user rotate NAME NEW"
      )
      expectOneLine(
        await acxInProcess(["hub", "user", "rotate", "ana2", "ana2", "--hub", hub.admin]),
        1,
        "cannot take its own place"
      )
    },
    TEST_TIMEOUT_MS
  )

  it("a sync member refused for another cause keeps the store's reason, not a word about its role", async () => {
    // the admin takes one privilege back: the member's next sync is refused, and the line must
    // not say it needs a sync member (it is one), but what was refused
    const member = await addUser("laptop_cause")
    await query(hub.admin, `REVOKE INSERT ON acx_session_text FROM ${hub.groups.sync}`)
    try {
      oneSessionConfigDir(configDir, FIXTURE, "-home-dev-cli")
      const refused = await sync(member)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("permission denied")
      expect(refused.stderr).not.toContain("needs a sync member")
    } finally {
      const again = await acxInProcess(["hub", "init", hub.admin])
      expect(again.code, again.stderr).toBe(0)
    }
    const synced = await sync(member)
    expect(synced.code, synced.stderr).toBe(0)
  }, TEST_TIMEOUT_MS)
})
