/**
 * The security model of docs/hub.md ("Who may do what"), one test per cell, each connecting as the
 * real role on a real (embedded) Postgres of this file's own. Three hubs share the server: A (the
 * server's database, schema `public`), B (a second database) and C (schema `hub_c` of A's
 * database), each with its own group roles; a member of one reads nothing of the others, through
 * the CLI or SQL. Also: what `hub status` shows each role, the refusals a role meets running a
 * command it may not (one line naming its group and the one needed), `hub grant`'s checks, a hub
 * made with the old cluster-wide groups moved over by `init`, and a `.pgpass` read without the
 * driver's deprecation warning. The write cells (a sync member writing into another's session,
 * the clock, rotation) are tested with that work.
 */
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, expectOneLine, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import {
  asRole,
  groupsOf,
  oneSessionConfigDir,
  printedUrl,
  query,
  refusal,
  type RunningHub,
  startHub
} from "./utils/hub.js"
import { acxInProcess } from "./utils/inProcess.js"

const STUDIO = "/Users/philipp/dev/studio"
const FIXTURE = "d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"

interface Status {
  access: string
  machines: Array<{ machine: string }>
  members: Array<{ role: string; member: string }>
  grants: Array<{ role: string; project: string }>
  projects: Array<{ project: string }>
  storeBytes: number | null
}

describe("hub security: each role, for real", () => {
  let dir: string
  let hub: RunningHub
  const url: Record<string, string> = {}
  const sessionOf: Record<string, string> = {}
  const at = (base: string, options: { database?: string; schema?: string }) => {
    const changed = new URL(base)
    if (options.database !== undefined) changed.pathname = `/${options.database}`
    if (options.schema !== undefined) changed.searchParams.set("schema", options.schema)
    return changed.href
  }
  const env = (name: string) => ({ env: { ACX_HOME: path.join(dir, "home", name) } })
  const sync = (to: string, configDir: string, machine: string) =>
    acxInProcess(["sync", "--to", to, "--config-dir", configDir, "--machine", machine], env(machine))
  const addUser = async (hubUrl: string, name: string, role: "sync" | "viewer") =>
    printedUrl(await acxInProcess(["hub", "user", "add", name, hubUrl, "--role", role]))
  const status = async (as: string) => {
    const result = await acxInProcess(["hub", "status", as, "--json"])
    expect(result.code, result.stderr).toBe(0)
    return parseJson<Status>(result)
  }

  beforeAll(async () => {
    dir = tempDir("hub-security")
    hub = await startHub(path.join(dir, "home"))
    url["A"] = hub.admin
    await query(hub.admin, `CREATE DATABASE second_hub`)
    url["B"] = at(hub.admin, { database: "second_hub" })
    url["C"] = at(hub.admin, { schema: "hub_c" })
    for (const name of ["B", "C"]) {
      const init = await acxInProcess(["hub", "init", url[name]!])
      expect(init.code, init.stderr).toBe(0)
    }
    url["aSync"] = await addUser(url["A"]!, "a_sync", "sync")
    url["aView"] = await addUser(url["A"]!, "a_view", "viewer")
    url["aRestricted"] = await addUser(url["A"]!, "a_restricted", "viewer")
    // a DBA's own member, by the group name docs/hub.md gives
    await query(hub.admin, `CREATE ROLE a_dba_view LOGIN PASSWORD 'a-dba-view-pw' IN ROLE ${hub.groups.viewer}`)
    url["aDbaView"] = asRole(hub.admin, "a_dba_view", "a-dba-view-pw")
    url["bSync"] = await addUser(url["B"]!, "b_sync", "sync")
    url["bView"] = await addUser(url["B"]!, "b_view", "viewer")
    url["cSync"] = await addUser(url["C"]!, "c_sync", "sync")
    url["cView"] = await addUser(url["C"]!, "c_view", "viewer")
    const laptop = Fixtures.buildClaudeConfigDir(path.join(dir, "laptop"))
    for (
      const [to, configDir, machine] of [
        [url["aSync"]!, laptop.configDir, "a_laptop"],
        [url["bSync"]!, oneSessionConfigDir(path.join(dir, "b"), FIXTURE, "-b-secret"), "b_desk"],
        [url["cSync"]!, oneSessionConfigDir(path.join(dir, "c"), FIXTURE, "-c-secret"), "c_desk"]
      ] as const
    ) {
      const result = await sync(to, configDir, machine)
      expect(result.code, result.stderr).toBe(0)
    }
    for (const name of ["B", "C"]) {
      const [row] = await query(
        url[name]!,
        `SELECT session_id FROM ${name === "C" ? "hub_c." : ""}acx_session_keys LIMIT 1`
      )
      sessionOf[name] = row!["session_id"]
    }
    const granted = await acxInProcess(["hub", "grant", url["A"]!, "--project", STUDIO, "--role", "a_restricted"])
    expect(granted.code, granted.stderr).toBe(0)
  }, 6 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await hub?.stop()
    removeDir(dir)
  })

  /** `url` (a hub's) with the credentials of `member` (a member of another hub). */
  const as = (hubUrl: string, member: string) => {
    const credentials = new URL(member)
    return asRole(hubUrl, decodeURIComponent(credentials.username), decodeURIComponent(credentials.password))
  }

  const refusedRead = (result: AcxResult, sessionId: string) => {
    expect(result.code, result.stdout).not.toBe(0)
    expect(result.stdout).not.toContain(sessionId)
    expect(result.stderrLines).toHaveLength(1)
    expect(result.stderr).not.toContain(sessionId)
  }

  it("each hub has group roles of its own: distinct, valid identifiers of at most 63 bytes", () => {
    const names = ["A", "B", "C"].flatMap((name) => Object.values(groupsOf(url[name]!)))
    expect(new Set(names).size).toBe(9)
    for (const name of names) {
      expect(name).toMatch(/^acx_[a-z0-9_]+_(sync|viewer|admin)$/)
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63)
    }
    // stable: the same database and schema give the same names
    expect(groupsOf(url["C"]!)).toEqual(groupsOf(at(hub.admin, { schema: "hub_c" })))
  })

  it(
    "member of another hub: sessions, show, stats, search --from and hub status on another hub are refused",
    async () => {
      for (const member of ["aView", "aSync", "aDbaView"]) {
        for (const other of ["B", "C"]) {
          const target = as(url[other]!, url[member]!)
          const id = sessionOf[other]!
          refusedRead(await acxInProcess(["sessions", "--from", target, "--json"], env(member)), id)
          refusedRead(await acxInProcess(["show", id, "--from", target], env(member)), id)
          refusedRead(await acxInProcess(["stats", "--from", target, "--json"], env(member)), id)
          refusedRead(await acxInProcess(["search", "the", "--from", target], env(member)), id)
          const hubStatus = await acxInProcess(["hub", "status", target, "--json"])
          expect(hubStatus.code, `${member} on ${other}: ${hubStatus.stdout}`).not.toBe(0)
          expect(hubStatus.stdout).not.toContain("b_sync")
          expect(hubStatus.stdout).not.toContain("c_sync")
        }
      }
    },
    4 * TEST_TIMEOUT_MS
  )

  it(
    "member of another hub: SQL can neither connect to another hub's database nor read or write another hub's schema",
    async () => {
      // another database: CONNECT is the hub's groups' only (42501: permission denied for database)
      for (const member of ["aView", "aSync", "aRestricted", "aDbaView", "cView", "cSync"]) {
        expect(await refusal(as(url["B"]!, url[member]!), "SELECT 1"), member).toBe("42501")
      }
      // the same database, another schema: no USAGE, no privileges on its tables
      for (
        const [member, table] of [
          ["aView", "hub_c.claude_session_entries"],
          ["aSync", "hub_c.acx_session_keys"],
          ["cView", "public.claude_session_entries"],
          ["cSync", "public.acx_session_origin"],
          ["aView", "hub_c.acx_hub_grants"]
        ] as const
      ) {
        expect(await refusal(url[member]!, `SELECT count(*) FROM ${table}`), `${member}: ${table}`).toBe("42501")
      }
      // nor write into it: a sync member of C into A's tables, of A into C's
      for (
        const [member, statement] of [
          [
            "cSync",
            `INSERT INTO public.acx_session_origin (project_key, session_id, machine, project) VALUES ('k', 's', 'm', 'p')`
          ],
          [
            "aSync",
            `INSERT INTO hub_c.claude_session_entries (project_key, session_id, entry) VALUES ('k', 's', '{}')`
          ],
          ["cSync", `UPDATE public.acx_clock SET last = last + 1`]
        ] as const
      ) {
        expect(await refusal(url[member]!, statement), `${member}: ${statement}`).toBe("42501")
      }
      // the hub's own members connect and read
      expect(await query(url["bView"]!, "SELECT count(*)::int AS n FROM acx_session_keys")).toEqual([{ n: 1 }])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "viewer: reads every project of its hub (a DBA's member alike), and a sync with its URL is one line naming both roles",
    async () => {
      const listed = (as: string) =>
        acxInProcess(["sessions", "--from", as, "--json"], env("viewer")).then((result) => {
          expect(result.code, result.stderr).toBe(0)
          return new Set(parseJson<Array<{ sessionId: string }>>(result).map((row) => row.sessionId)).size
        })
      const all = (await query(hub.admin, "SELECT count(DISTINCT session_id)::int AS n FROM acx_session_keys"))[0]!["n"]
      expect(await listed(url["aView"]!)).toBe(all)
      expect(await listed(url["aDbaView"]!)).toBe(all)
      const synced = await sync(url["aView"]!, oneSessionConfigDir(path.join(dir, "v"), FIXTURE, "-v"), "viewer_desk")
      expectOneLine(synced, 1, `a_view is a viewer of this hub (${hub.groups.viewer})`)
      expect(synced.stderr).toContain(`acx sync --to needs a sync member (${hub.groups.sync}`)
    },
    TEST_TIMEOUT_MS
  )

  it("restricted viewer: hub status shows its granted projects only, no store size, no other member", async () => {
    const seen = await status(url["aRestricted"]!)
    expect(seen.access).toBe("restricted viewer")
    expect(seen.projects.map((p) => p.project)).toEqual([STUDIO])
    expect(seen.storeBytes).toBeNull()
    expect(seen.members).toEqual([{ role: hub.groups.viewer, member: "a_restricted" }])
    expect(seen.grants).toEqual([{ role: "a_restricted", project: STUDIO }])
    const table = await acxInProcess(["hub", "status", url["aRestricted"]!])
    expect(table.stdout).not.toMatch(/store: /)
    expect(table.stdout).not.toContain("a_view")
    expect(table.stdout).toContain("you see it as restricted viewer")
  }, TEST_TIMEOUT_MS)

  it(
    "viewer: hub status shows every machine and project of its hub, its members and size, no other hub's",
    async () => {
      const seen = await status(url["aView"]!)
      expect(seen.access).toBe("viewer")
      expect(seen.storeBytes).toBeGreaterThan(0)
      const members = seen.members.map((m) => m.member)
      expect(members).toEqual(expect.arrayContaining(["a_sync", "a_view", "a_restricted", "a_dba_view"]))
      expect(members.filter((m) => !m.startsWith("a_"))).toEqual([])
      expect(seen.machines.map((m) => m.machine)).toEqual(["a_laptop"])
    },
    TEST_TIMEOUT_MS
  )

  it("sync member: hub status shows its own machine only, no store size, itself as the only member", async () => {
    const seen = await status(url["aSync"]!)
    expect(seen.access).toBe("sync")
    expect(seen.storeBytes).toBeNull()
    expect(seen.members).toEqual([{ role: hub.groups.sync, member: "a_sync" }])
    expect(seen.machines.map((m) => m.machine)).toEqual(["a_laptop"])
    const mine = (await query(url["aSync"]!, "SELECT DISTINCT db_user FROM claude_session_entries")).map((r) =>
      r["db_user"]
    )
    expect(mine).toEqual(["a_sync"])
  }, TEST_TIMEOUT_MS)

  it("sync member or viewer running an admin's command: one line naming its group and the admin's", async () => {
    for (const [member, part] of [["aView", "a viewer"], ["aSync", "a sync member"]] as const) {
      for (
        const args of [
          ["hub", "init", url[member]!],
          ["hub", "user", "add", "intruder", url[member]!, "--role", "viewer"],
          ["hub", "grant", url[member]!, "--project", "github.com/acme/nowhere", "--role", "a_view"]
        ]
      ) {
        const result = await acxInProcess(args)
        expectOneLine(result, 1, `is ${part} of this hub`)
        expect(result.stderr, args.join(" ")).toContain(`needs the hub's admin`)
        expect(result.stderr).toContain(hub.groups.admin)
        expect(result.stderr).not.toContain("Failed to execute statement")
      }
    }
  }, 2 * TEST_TIMEOUT_MS)

  it("admin: hub status shows every machine, member, project and the store's size; no other hub's member", async () => {
    const seen = await status(hub.admin)
    expect(seen.access).toBe("admin")
    expect(seen.storeBytes).toBeGreaterThan(0)
    const members = seen.members.map((m) => m.member)
    expect(members).toEqual(expect.arrayContaining(["a_sync", "a_view", "a_restricted", "a_dba_view"]))
    for (const other of ["b_sync", "b_view", "c_sync", "c_view"]) expect(members).not.toContain(other)
  }, TEST_TIMEOUT_MS)

  it(
    "admin: a grant of an unknown project fails naming the closest; a sync member's grant is said to limit team memory",
    async () => {
      const known = (await status(hub.admin)).projects.map((p) => p.project)
      const configKey = STUDIO.replace(/\//g, "-")
      for (const project of ["", configKey, `${STUDIO}x`]) {
        const result = await acxInProcess(["hub", "grant", hub.admin, "--project", project, "--role", "a_view"])
        // an empty name is a bad argument (2); an unknown one is not found (1)
        expectOneLine(result, project === "" ? 2 : 1, project === "" ? "empty" : `closest: ${STUDIO}`)
      }
      expect((await status(hub.admin)).grants).toEqual([{ role: "a_restricted", project: STUDIO }])
      // a project still to come
      const later = await acxInProcess([
        "hub",
        "grant",
        hub.admin,
        "--project",
        "github.com/acme/later",
        "--role",
        "a_view",
        "--allow-unknown"
      ])
      expect(later.code, later.stderr).toBe(0)
      const revoked = await acxInProcess([
        "hub",
        "revoke",
        hub.admin,
        "--project",
        "github.com/acme/later",
        "--role",
        "a_view"
      ])
      expect(revoked.stderr).toContain("as a viewer it now sees every project")
      // a sync member: its sessions are its own whatever the grants; the grant limits its team memory
      const toSync = await acxInProcess(["hub", "grant", hub.admin, "--project", known[0]!, "--role", "a_sync"])
      expect(toSync.code, toSync.stderr).toBe(0)
      expect(toSync.stderr).toContain("a_sync is a sync member: a grant limits only the team memory")
      const back = await acxInProcess(["hub", "revoke", hub.admin, "--project", known[0]!, "--role", "a_sync"])
      expect(back.stderr).toContain("its machine's team memory covers every project again")
      expect(back.stderr).not.toContain("viewer")
      // a role of another hub is no member of this one
      expectOneLine(
        await acxInProcess(["hub", "grant", hub.admin, "--project", STUDIO, "--role", "b_view"]),
        1,
        "b_view is no member of this hub"
      )
      // the hub named twice, differently
      expectOneLine(
        await acxInProcess(["hub", "status", hub.admin, "--hub", url["B"]!]),
        2,
        "named twice"
      )
    },
    2 * TEST_TIMEOUT_MS
  )

  it(
    "a hub made with the cluster-wide groups moves over on init: its members keep working, the old groups read nothing",
    async () => {
      await query(hub.admin, `CREATE DATABASE legacy_hub`)
      const legacy = at(hub.admin, { database: "legacy_hub" })
      const init = await acxInProcess(["hub", "init", legacy])
      expect(init.code, init.stderr).toBe(0)
      await makeLegacy(legacy, groupsOf(legacy))
      const oldSync = asRole(legacy, "old_sync", "old-sync-pw")
      const oldView = asRole(legacy, "old_view", "old-view-pw")
      // the old shape works as an older acx left it: a viewer of the old group reads, the member syncs
      const first = await sync(oldSync, oneSessionConfigDir(path.join(dir, "old1"), FIXTURE, "-old"), "old_desk")
      expect(first.code, first.stderr).toBe(0)
      expect(await query(oldView, "SELECT count(*)::int AS n FROM acx_session_keys")).toEqual([{ n: 1 }])

      const moved = await acxInProcess(["hub", "init", legacy])
      expect(moved.code, moved.stderr).toBe(0)
      expect(moved.stderr).toContain("moved off the cluster-wide groups acx_sync, acx_viewer, acx_admin")
      expect(moved.stderr).toMatch(/old_sync \(sync\).*old_view \(viewer\)/)
      const groups = groupsOf(legacy)
      // members keep working, now through the hub's own groups
      const second = await sync(oldSync, oneSessionConfigDir(path.join(dir, "old2"), FIXTURE, "-old2"), "old_desk")
      expect(second.code, second.stderr).toBe(0)
      expect(await query(oldView, "SELECT count(*)::int AS n FROM acx_session_keys")).toEqual([{ n: 2 }])
      const members = (await status(legacy)).members
      expect(members).toEqual(expect.arrayContaining([
        { role: groups.sync, member: "old_sync" },
        { role: groups.viewer, member: "old_view" }
      ]))
      // a member made in an old group now reads nothing, and may not even connect
      await query(hub.admin, `CREATE ROLE late_view LOGIN PASSWORD 'late-view-pw' IN ROLE acx_viewer`)
      expect(await refusal(asRole(legacy, "late_view", "late-view-pw"), "SELECT 1")).toBe("42501")
      const privileges = await query(
        legacy,
        `SELECT count(*)::int AS n FROM information_schema.role_table_grants
        WHERE grantee IN ('acx_sync', 'acx_viewer', 'acx_admin') AND table_schema = 'public'`
      )
      expect(privileges).toEqual([{ n: 0 }])
      await query(legacy, `GRANT CONNECT ON DATABASE legacy_hub TO late_view`)
      expect(await refusal(asRole(legacy, "late_view", "late-view-pw"), "SELECT count(*) FROM acx_session_keys")).toBe(
        "42501"
      )
      const again = await acxInProcess(["hub", "init", legacy])
      expect(again.stdout).toContain("nothing changed")
    },
    3 * TEST_TIMEOUT_MS
  )

  it("a password from .pgpass (libpq's rules, mode 0600) connects with nothing on stderr", async () => {
    await query(hub.admin, `CREATE ROLE pass_view LOGIN PASSWORD 'pass:view\\pw' IN ROLE ${hub.groups.viewer}`)
    const server = new URL(hub.admin)
    const file = path.join(dir, "pgpass")
    fs.writeFileSync(
      file,
      [
        "# a comment, then a line for another user and one with a wildcard port",
        `${server.hostname}:${server.port}:*:someone_else:wrong`,
        `${server.hostname}:*:${server.pathname.slice(1)}:pass_view:pass\\:view\\\\pw`
      ].join("\n") + "\n",
      { mode: 0o600 }
    )
    const bare = new URL(hub.admin)
    bare.username = "pass_view"
    bare.password = ""
    const run = () =>
      acx(["sessions", "--from", bare.href, "--json"], {
        env: { PGPASSFILE: file, PGPASSWORD: undefined, ACX_HOME: path.join(dir, "home", "pass") }
      })
    const result = await run()
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe("")
    expect(parseJson<Array<unknown>>(result).length).toBeGreaterThan(0)
    // a file others may read is ignored, as libpq ignores it, with one warning naming it
    fs.chmodSync(file, 0o644)
    const open = await run()
    expect(open.code).not.toBe(0)
    expect(open.stderr).toContain(`password file ${file} has group or world access`)
    expect(open.stderr).not.toContain("DeprecationWarning")
  }, 2 * TEST_TIMEOUT_MS)
})

/**
 * Turns a hub `init` just set up into what an older acx made: the privileges and policies of its
 * own groups given to the cluster-wide `acx_sync`, `acx_viewer`, `acx_admin` instead, a member in
 * each, its own groups dropped and CONNECT open to every role again.
 */
const makeLegacy = async (legacy: string, groups: { sync: string; viewer: string; admin: string }) => {
  const pairs = [[groups.sync, "acx_sync"], [groups.viewer, "acx_viewer"], [groups.admin, "acx_admin"]] as const
  for (const [, old] of pairs) {
    await query(
      legacy,
      `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${old}') THEN
      CREATE ROLE ${old} NOLOGIN; END IF; END $$`
    )
  }
  for (const [group, old] of pairs) {
    await query(
      legacy,
      `DO $$ DECLARE r record; BEGIN
        FOR r IN SELECT table_name, privilege_type FROM information_schema.role_table_grants
            WHERE grantee = '${group}' AND table_schema = 'public' LOOP
          EXECUTE format('GRANT %s ON public.%I TO ${old}', r.privilege_type, r.table_name);
        END LOOP;
        FOR r IN SELECT table_name, column_name, privilege_type FROM information_schema.column_privileges
            WHERE grantee = '${group}' AND table_schema = 'public' LOOP
          EXECUTE format('GRANT %s (%I) ON public.%I TO ${old}', r.privilege_type, r.column_name, r.table_name);
        END LOOP;
        FOR r IN SELECT tablename, policyname, roles FROM pg_policies WHERE schemaname = 'public' LOOP
          EXECUTE format('ALTER POLICY %I ON public.%I TO %s', r.policyname, r.tablename,
            array_to_string(array_replace(r.roles, '${group}'::name, '${old}'::name), ', '));
        END LOOP;
      END $$`
    )
  }
  await query(legacy, `GRANT USAGE ON SCHEMA public TO acx_sync, acx_viewer, acx_admin`)
  await query(legacy, `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO acx_sync, acx_admin`)
  // the store's write functions (the clock, a session's claim) as the old groups would hold them
  await query(legacy, `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO acx_sync, acx_admin`)
  await query(legacy, `REASSIGN OWNED BY ${groups.admin} TO acx_admin`)
  await query(legacy, `GRANT acx_sync, acx_viewer TO acx_admin WITH ADMIN OPTION`)
  await query(legacy, `CREATE ROLE old_sync LOGIN PASSWORD 'old-sync-pw' IN ROLE acx_sync`)
  await query(legacy, `CREATE ROLE old_view LOGIN PASSWORD 'old-view-pw' IN ROLE acx_viewer`)
  for (const [group] of pairs) {
    await query(legacy, `DROP OWNED BY ${group}`)
    await query(legacy, `REVOKE CONNECT ON DATABASE legacy_hub FROM ${group}`)
    await query(legacy, `DROP ROLE ${group}`)
  }
  await query(legacy, `GRANT CONNECT ON DATABASE legacy_hub TO PUBLIC`)
}
