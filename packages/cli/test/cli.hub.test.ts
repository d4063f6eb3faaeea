/**
 * `acx hub` end to end, on an embedded Postgres of this file's own (run as superuser: roles are
 * cluster-wide and the run's role may not create them), connecting as each role for real:
 * `hub init` twice changes nothing; a sync member (made by `hub user add`, or by a DBA's own
 * `CREATE ROLE … IN ROLE ${hub.groups.sync}`) syncs a config directory and reads only its own rows, and can
 * neither update nor delete entries; a viewer reads through `sessions`, `search` and `stats --from`
 * and writes nothing; a viewer limited by `hub grant` sees exactly the granted project in each, and
 * every project again after `revoke`; `stats --from` prints a report kept by an earlier run (the
 * fast read path) exactly as the full path prints it, and only while the list it was made from (and
 * the origins, grouped by machine) is the one the asking role sees (never another login's, never after a grant, revoke or change);
 * `hub status` names machines, sizes and the lagging one; no
 * connection string's password is printed on any failure (wrong password, closed port, sslmode).
 *
 * Each promise goes through the BUILT binary once; the further reads and refusals of the same
 * promise run `run` of `src/Cli.ts` in this process (`acxInProcess`, connecting as the same roles
 * for real), a process start each saved.
 */
import * as Fixtures from "@acx/fixtures"
import * as TeamHub from "@acx/memory/TeamHub"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
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
import { closedPort } from "./utils/postgres.js"

const STUDIO = "/Users/philipp/dev/studio"

describe("acx hub", () => {
  let dir: string
  let hub: RunningHub
  let laptop: string
  let desk: string
  let alice: string
  let bob: string
  let built: Fixtures.BuiltConfigDir
  const env = () => ({ env: { ACX_HOME: path.join(dir, "reader") } })

  beforeAll(async () => {
    dir = tempDir("hub")
    hub = await startHub(path.join(dir, "home"))
    // `hub.addUser`, in process
    const addUser = async (name: string, role: "sync" | "viewer") =>
      printedUrl(await acxInProcess(["hub", "user", "add", name, "--role", role, "--hub", hub.admin]))
    laptop = await addUser("laptop1", "sync")
    alice = await addUser("alice", "viewer")
    // a DBA's own roles, the same way
    await query(hub.admin, `CREATE ROLE desk2 LOGIN PASSWORD 'desk2-secret-pw' IN ROLE ${hub.groups.sync}`)
    await query(hub.admin, `CREATE ROLE bob LOGIN PASSWORD 'bob-secret-pw' IN ROLE ${hub.groups.viewer}`)
    desk = asRole(hub.admin, "desk2", "desk2-secret-pw")
    bob = asRole(hub.admin, "bob", "bob-secret-pw")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "laptop"))
    const laptopSync = await hub.sync(laptop, built.configDir, "laptop1")
    expect(laptopSync.code, laptopSync.stderr).toBe(0)
    const deskDir = oneSessionConfigDir(
      path.join(dir, "desk"),
      "d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
      "-path-to-Demo"
    )
    const deskSync = await hub.sync(desk, deskDir, "desk2")
    expect(deskSync.code, deskSync.stderr).toBe(0)
  }, 4 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await hub?.stop()
    removeDir(dir)
  })

  const catalogState = () =>
    query(
      hub.admin,
      `SELECT json_build_object(
        'policies', (SELECT json_agg(p ORDER BY tablename, policyname) FROM pg_policies p WHERE schemaname = 'public'),
        'grants', (SELECT json_agg(g ORDER BY grantee, table_name, privilege_type)
          FROM information_schema.role_table_grants g WHERE grantee LIKE 'acx\\_%'),
        'members', (SELECT json_agg(json_build_object('role', r.rolname, 'member', m.rolname, 'admin', a.admin_option)
          ORDER BY r.rolname, m.rolname) FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid
          JOIN pg_roles m ON m.oid = a.member WHERE r.rolname LIKE 'acx\\_%'),
        'security', (SELECT json_agg(c.relname || ':' || c.relrowsecurity ORDER BY c.relname) FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r')
      ) AS state`
    ).then(([row]) => JSON.stringify(row!["state"]))

  it("hub init a second time changes nothing, and says so", async () => {
    const before = await catalogState()
    expect(before).toContain("acx_viewer_read")
    const again = await acx(["hub", "init", hub.admin])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain("nothing changed")
    expect(await catalogState()).toBe(before)
  }, TEST_TIMEOUT_MS)

  it("a member meeting a schema older than its acx is told to have hub init run again, which fixes it", async () => {
    // the newest migration undone (an older acx set the schema up)
    await query(
      hub.admin,
      `DELETE FROM acx_session_store_migrations WHERE migration_id = (SELECT max(migration_id) FROM acx_session_store_migrations)`
    )
    expectOneLine(await acx(["sessions", "--from", alice], env()), 1, "acx hub init")
    const init = await acxInProcess(["hub", "init", hub.admin])
    expect(init.code, init.stderr).toBe(0)
    expect(init.stdout).toContain("hub ready")
    const sessions = await acxInProcess(["sessions", "--from", alice], env())
    expect(sessions.code, sessions.stderr).toBe(0)
  }, TEST_TIMEOUT_MS)

  it("a sync member stores and reads its own rows, and can neither update nor delete entries", async () => {
    const [own] = await query(
      hub.admin,
      `SELECT count(*)::int AS n FROM claude_session_entries WHERE db_user = 'laptop1'`
    )
    expect(own!["n"]).toBeGreaterThan(1000)
    expect((await query(laptop, `SELECT count(*)::int AS n FROM claude_session_entries`))[0]!["n"]).toBe(own!["n"])
    // the other machine's member sees its one session, not the laptop's
    expect((await query(desk, `SELECT count(*)::int AS n FROM acx_session_meta`))[0]!["n"]).toBe(1)
    expect((await query(desk, `SELECT DISTINCT machine FROM acx_session_origin`)).map((r) => r["machine"])).toEqual([
      "desk2"
    ])
    for (
      const statement of [
        `UPDATE claude_session_entries SET entry = '{}'`,
        `DELETE FROM claude_session_entries`,
        `TRUNCATE claude_session_entries`,
        `DELETE FROM acx_session_meta`,
        `INSERT INTO acx_hub_grants VALUES ('laptop1', 'x', 0)`
      ]
    ) {
      expect(await refusal(laptop, statement), statement).toBe("42501")
    }
    // a row written as someone else is refused by the policy
    expect(
      await refusal(
        laptop,
        `INSERT INTO claude_session_entries (project_key, session_id, entry, db_user) VALUES ('p', 's', '{"type":"x"}', 'desk2')`
      )
    ).toBe("42501")
    // a second sync, nothing new: still fine with these rights
    const again = await hub.sync(laptop, built.configDir, "laptop1")
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain("0 new entries")
  }, TEST_TIMEOUT_MS)

  it("a viewer reads through sessions, search and stats --from, and writes nothing", async () => {
    const sessions = parseJson<Array<{ sessionId: string }>>(await acx(["sessions", "--from", alice, "--json"], env()))
    expect(sessions).toHaveLength(built.sessions.length + 1)
    const search = parseJson<{ hits: Array<unknown> }>(
      await acxInProcess(["search", "the", "--from", alice, "--json"], env())
    )
    expect(search.hits.length).toBeGreaterThan(0)
    const stats = parseJson<{ rows: Array<unknown> }>(await acxInProcess(["stats", "--from", alice, "--json"], env()))
    expect(stats.rows.length).toBeGreaterThan(0)
    for (
      const statement of [
        `INSERT INTO claude_session_entries (project_key, session_id, entry) VALUES ('p', 's', '{"type":"x"}')`,
        `UPDATE acx_session_meta SET entries = 0`,
        `DELETE FROM acx_session_keys`,
        `UPDATE acx_clock SET last = last`,
        `SELECT * FROM acx_import_ledger`
      ]
    ) {
      expect(await refusal(alice, statement), statement).toBe("42501")
    }
  }, TEST_TIMEOUT_MS)

  it("a viewer limited by hub grant sees exactly the granted project in sessions, show, stats and search", async () => {
    const granted = (await query(hub.admin, `SELECT session_id FROM acx_session_origin WHERE project = $1`, [STUDIO]))
      .map((row) => row["session_id"] as string).sort()
    expect(granted.length).toBe(2)
    const grant = await acx(["hub", "grant", "--project", STUDIO, "--role", "bob", "--hub", hub.admin])
    expect(grant.code, grant.stderr).toBe(0)
    expect(grant.stdout).toContain("2 sessions")

    // through the binary: the listing; the other reads in process
    const sessions = parseJson<Array<{ sessionId: string }>>(await acx(["sessions", "--from", bob, "--json"], env()))
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(granted)
    const other = built.sessions.find((s) => !granted.includes(s.sessionId))!
    expectOneLine(await acxInProcess(["show", other.sessionId, "--from", bob], env()), 1, "no session")
    const shown = await acxInProcess(["show", granted[0]!, "--from", bob], env())
    expect(shown.code, shown.stderr).toBe(0)
    const stats = parseJson<{ rows: Array<{ sessionId: string }> }>(
      await acxInProcess(["stats", "--from", bob, "--json"], env())
    )
    expect(stats.rows.map((row) => row.sessionId).sort()).toEqual(granted)
    // the origins a store's groupings read are limited the same way: one project, one machine
    const byProject = parseJson<{ rows: Array<{ key: string }> }>(
      await acx(["stats", "--by", "project", "--from", bob, "--json"], env())
    )
    expect(byProject.rows.map((row) => row.key)).toEqual([STUDIO])
    const byMachine = parseJson<{ rows: Array<{ key: string }> }>(
      await acx(["stats", "--by", "machine", "--from", bob, "--json"], env())
    )
    expect(byMachine.rows.map((row) => row.key)).toEqual(["laptop1"])
    const search = parseJson<{ hits: Array<{ sessionId: string }> }>(
      await acxInProcess(["search", "the", "--from", bob, "--json", "--limit", "200"], env())
    )
    expect(search.hits.length).toBeGreaterThan(0)
    expect(new Set(search.hits.map((hit) => hit.sessionId))).toEqual(
      new Set(search.hits.map((hit) => hit.sessionId).filter((id) => granted.includes(id)))
    )
    // the unrestricted viewer still sees everything
    const all = parseJson<Array<unknown>>(await acxInProcess(["sessions", "--from", alice, "--json"], env()))
    expect(all).toHaveLength(built.sessions.length + 1)

    const revoked = await acx(["hub", "revoke", "--project", STUDIO, "--role", "bob", "--hub", hub.admin])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stderr).toContain("sees every project")
    const after = parseJson<Array<unknown>>(await acxInProcess(["sessions", "--from", bob, "--json"], env()))
    expect(after).toHaveLength(built.sessions.length + 1)
    expectOneLine(
      await acxInProcess(["hub", "revoke", "--project", STUDIO, "--role", "bob", "--hub", hub.admin]),
      1,
      "no grant"
    )
    expectOneLine(
      await acxInProcess(["hub", "grant", "--project", STUDIO, "--role", "nobody_here", "--hub", hub.admin]),
      1,
      "no role"
    )
  }, 2 * TEST_TIMEOUT_MS)

  it(
    "stats --from prints a kept report only to its login, and only while that role's list is the one it was made from",
    async () => {
      const home = path.join(dir, "kept")
      const cacheDir = path.join(home, "cache")
      // the kept reports' files (a report computed is kept again: a new file, renamed in place)
      const reportFiles = () =>
        fs.existsSync(cacheDir)
          ? fs.readdirSync(cacheDir).filter((name) => name.startsWith("store-report-")).map((name) => {
            const stat = fs.statSync(path.join(cacheDir, name))
            return `${name}:${stat.ino}:${stat.mtimeMs}`
          }).sort().join("\n")
          : ""
      // a run, and whether it printed a kept report: it computed nothing, so it kept nothing anew
      const stats = async (url: string, args: ReadonlyArray<string>) => {
        const before = reportFiles()
        const result = await acx(["stats", "--from", url, ...args], { env: { ACX_HOME: home } })
        return Object.assign(result, { kept: result.code === 0 && reportFiles() === before })
      }
      const kept = (result: { readonly kept: boolean }) => result.kept
      // the report computed again, as `run/stats.ts` prints it: in a copy of the home without the
      // kept reports (its statistics cache as warm as this home's)
      const computed = async (url: string, args: ReadonlyArray<string>) => {
        const copy = `${home}-computed`
        fs.rmSync(copy, { recursive: true, force: true })
        fs.cpSync(home, copy, { recursive: true })
        for (
          const name of fs.readdirSync(path.join(copy, "cache")).filter((name) => name.startsWith("store-report-"))
        ) {
          fs.rmSync(path.join(copy, "cache", name))
        }
        const result = await acx(["stats", "--from", url, ...args], { env: { ACX_HOME: copy } })
        expect(result.code, result.stderr).toBe(0)
        // it kept what it computed: no report was there to print
        expect(fs.readdirSync(path.join(copy, "cache")).some((name) => name.startsWith("store-report-"))).toBe(true)
        return result
      }
      const sessionsOf = (result: AcxResult) =>
        parseJson<{ rows: Array<{ sessionId: string }> }>(result).rows.map((row) => row.sessionId).sort()
      const granted = (await query(hub.admin, `SELECT session_id FROM acx_session_origin WHERE project = $1`, [STUDIO]))
        .map((row) => row["session_id"] as string).sort()
      const grant = await acx(["hub", "grant", "--project", STUDIO, "--role", "bob", "--hub", hub.admin])
      expect(grant.code, grant.stderr).toBe(0)
      try {
        // the first run computes and keeps; the next prints it, byte for byte the full path's output
        for (const args of [["--json"], ["--by", "day"]]) {
          const first = await stats(bob, args)
          expect(first.code, first.stderr).toBe(0)
          expect(kept(first)).toBe(false)
          const again = await stats(bob, args)
          expect(kept(again), args.join(" ")).toBe(true)
          expect(again.stdout).toBe((await computed(bob, args)).stdout)
        }
        expect(sessionsOf(await stats(bob, ["--json"]))).toEqual(granted)

        // grouped by an origin: kept under the origins' digest too (recorded after the entries, an
        // origin can change where no session did)
        const byMachine = ["--by", "machine", "--json"]
        const machinesOf = (result: AcxResult) =>
          parseJson<{ rows: Array<{ key: string }> }>(result).rows.map((r) => r.key)
        expect(kept(await stats(bob, byMachine))).toBe(false)
        const machines = await stats(bob, byMachine)
        expect(kept(machines)).toBe(true)
        expect(machines.stdout).toBe((await computed(bob, byMachine)).stdout)
        expect(machinesOf(machines)).toEqual(["laptop1"])
        const rename = (machine: string) =>
          query(hub.admin, `UPDATE acx_session_origin SET machine = $1 WHERE session_id = $2`, [machine, granted[0]])
        await rename("laptop9")
        try {
          const renamed = await stats(bob, byMachine)
          expect(kept(renamed)).toBe(false)
          expect(machinesOf(renamed).sort()).toEqual(["laptop1", "laptop9"])
        } finally {
          await rename("laptop1")
        }

        // another login, same home: its own report, every project
        const all = built.sessions.length + 1
        expect(kept(await stats(alice, ["--json"]))).toBe(false)
        const alices = await stats(alice, ["--json"])
        expect(kept(alices)).toBe(true)
        expect(sessionsOf(alices)).toHaveLength(all)

        // alice's kept report filed as bob's: the list bob sees is not the one it was made of
        const reports = fs.readdirSync(path.join(home, "cache")).filter((name) => name.startsWith("store-report-"))
          .map((name) => path.join(home, "cache", name))
        const headerOf = (file: string) =>
          JSON.parse(fs.readFileSync(file, "utf8").split("\n")[0]!) as { identity: string; request: string }
        const jsonOf = (login: string) =>
          reports.find((file) =>
            headerOf(file).identity.includes(`"${login}"`) && headerOf(file).request.includes("\"session\",true")
          )!
        const alicesFile = fs.readFileSync(jsonOf("alice"), "utf8")
        const [aliceHeader, ...body] = alicesFile.split("\n")
        fs.writeFileSync(
          jsonOf("bob"),
          [JSON.stringify({ ...JSON.parse(aliceHeader!), identity: headerOf(jsonOf("bob")).identity }), ...body].join(
            "\n"
          )
        )
        const forged = await stats(bob, ["--json"])
        expect(kept(forged)).toBe(false)
        expect(sessionsOf(forged)).toEqual(granted)
        expect(kept(await stats(bob, ["--json"]))).toBe(true)

        // no kept file holds a password; a wrong one is refused as without a kept report, unprinted
        for (const file of reports) {
          const text = fs.readFileSync(file, "utf8")
          expect(text).not.toContain("bob-secret-pw")
          expect(text).not.toContain(new URL(alice).password)
        }
        const wrong = asRole(hub.admin, "bob", "Wrong-Secret-Pw-2")
        const refused = await stats(wrong, ["--json"])
        expectOneLine(refused, 1, "password authentication failed")
        expect(refused.stderr).not.toContain("Wrong-Secret-Pw-2")

        // a changed session (its mtime moved, as an append derived moves it): computed again
        await query(hub.admin, `UPDATE acx_session_meta SET mtime = mtime + 1 WHERE session_id = $1`, [granted[0]])
        expect(kept(await stats(bob, ["--json"]))).toBe(false)
        expect(kept(await stats(bob, ["--json"]))).toBe(true)
      } finally {
        const revoked = await acx(["hub", "revoke", "--project", STUDIO, "--role", "bob", "--hub", hub.admin])
        expect(revoked.code, revoked.stderr).toBe(0)
      }
      // revoked: bob sees every project, and is not answered from the granted list's report
      const after = await stats(bob, ["--json"])
      expect(kept(after)).toBe(false)
      expect(sessionsOf(after)).toHaveLength(built.sessions.length + 1)
    },
    2 * TEST_TIMEOUT_MS
  )

  it("hub status names each machine's sessions, entries, size and last sync, and the lagging one", async () => {
    // the desk's last write two days ago
    await query(
      hub.admin,
      `UPDATE acx_session_keys SET mtime = mtime - 172800000 WHERE db_user = 'desk2'`
    )
    const result = await acx(["hub", "status", "--hub", hub.admin, "--json", "--lag-hours", "24"])
    const status = parseJson<{
      machines: Array<{ machine: string; sessions: number; entries: number; entryBytes: number; lagging: boolean }>
      members: Array<{ role: string; member: string }>
      projects: Array<{ project: string; sessions: number }>
      storeBytes: number
    }>(result)
    const byName = new Map(status.machines.map((m) => [m.machine, m]))
    expect(byName.get("laptop1")).toMatchObject({ sessions: built.sessions.length, lagging: false })
    expect(byName.get("desk2")).toMatchObject({ sessions: 1, lagging: true })
    expect(byName.get("laptop1")!.entryBytes).toBeGreaterThan(0)
    expect(status.storeBytes).toBeGreaterThan(byName.get("laptop1")!.entryBytes)
    expect(status.members).toContainEqual({ role: hub.groups.viewer, member: "bob" })
    expect(status.projects).toContainEqual({ project: STUDIO, sessions: 2 })
    const table = await acxInProcess(["hub", "status", "--hub", hub.admin])
    expect(table.stdout).toMatch(/desk2 .*LAGGING/)
    expect(table.stdout).not.toMatch(/laptop1 .*LAGGING/)
  }, TEST_TIMEOUT_MS)

  it("never prints a connection string's password: wrong password, closed port, sslmode=require", async () => {
    const wrong = asRole(hub.admin, "laptop1", "Wrong-Secret-Pw-1")
    for (const [i, args] of [["sessions", "--from", wrong], ["hub", "status", "--hub", wrong]].entries()) {
      const result = await (i === 0 ? acx : acxInProcess)(args, env())
      expectOneLine(result, 1, "password authentication failed")
      expect(result.stderr).not.toContain("Wrong-Secret-Pw-1")
    }
    const closed = new URL(hub.admin)
    closed.port = String(await closedPort())
    const refused = await acx(["hub", "status", "--hub", closed.href])
    expectOneLine(refused, 1, "connection refused")
    expect(refused.stderr).not.toContain(closed.password)
    const ssl = new URL(hub.admin)
    ssl.searchParams.set("sslmode", "require")
    for (const args of [["hub", "init", ssl.href], ["sessions", "--from", ssl.href]]) {
      const result = await acxInProcess(args, env())
      expectOneLine(result, 1, "SSL")
      expect(result.stderr).not.toContain(ssl.password)
    }
  }, TEST_TIMEOUT_MS)

  it(
    "hub init --team: the team memory's tables, where the hub's roles and grants decide who reads and writes which project",
    async () => {
      // a plain hub init (startHub's) set the team memory up already, in acx_team
      const first = await acx(["hub", "init", hub.admin, "--team", "acx_team"])
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toMatch(/^hub at .* and the team memory \(schema acx_team\) was already set up/)
      const again = await acx(["hub", "init", hub.admin, "--team", "acx_team"])
      expect(again.stdout).toContain("nothing changed")
      expectOneLine(await acx(["hub", "init", hub.admin, "--team", "acx-team;drop"]), 2, "--team")

      const table = "acx_team.memory_observations"
      const insert = (uid: string, project: string) =>
        `INSERT INTO ${table} (uid, project, author, machine, session_id, source, created_at, type, title, narrative)
       VALUES ('${uid}', '${project}', 'ana', 'laptop1', 's1', 'hook', 1, 'discovery', 'a title', 'a narrative')`
      const projects = async (url: string) =>
        (await query(url, `SELECT project FROM ${table} ORDER BY project`)).map((row) => row["project"] as string)
      const APP = "github.com/acme/app"
      const WEB = "github.com/acme/web"
      await query(laptop, insert("o1", APP))
      await query(laptop, insert("o2", WEB))
      // nobody limited: every member reads both projects
      for (const url of [laptop, desk, bob]) expect(await projects(url)).toEqual([APP, WEB])
      // a sync member forgets an entry for the team; it changes nothing else and deletes nothing
      await query(
        desk,
        `UPDATE ${table} SET forgotten_at = 5, forgotten_by = 'desk2', txid = pg_current_xact_id() WHERE uid = 'o1'`
      )
      for (
        const [url, statement] of [
          [desk, `UPDATE ${table} SET narrative = 'rewritten'`],
          [desk, `DELETE FROM ${table}`],
          [desk, `TRUNCATE ${table}`],
          [bob, insert("o3", APP)],
          [bob, `UPDATE ${table} SET forgotten_at = NULL`]
        ] as const
      ) {
        expect(await refusal(url, statement), statement).toBe("42501")
      }
      // grants limit the team memory as they limit sessions: reading, and a sync member's writing
      for (const [project, role] of [[APP, "desk2"], [WEB, "bob"]]) {
        // team-memory projects no session of the hub names yet
        const granted = await acx([
          "hub",
          "grant",
          "--project",
          project,
          "--role",
          role,
          "--hub",
          hub.admin,
          "--allow-unknown"
        ])
        expect(granted.code, granted.stderr).toBe(0)
      }
      expect(await projects(desk)).toEqual([APP])
      expect(await projects(bob)).toEqual([WEB])
      expect(await projects(laptop)).toEqual([APP, WEB])
      expect(await refusal(desk, insert("o4", WEB))).toBe("42501")
      expect(await query(desk, `UPDATE ${table} SET forgotten_at = 6 WHERE uid = 'o2' RETURNING uid`)).toEqual([])
      for (const [project, role] of [[APP, "desk2"], [WEB, "bob"]]) {
        expect((await acx(["hub", "revoke", "--project", project, "--role", role, "--hub", hub.admin])).code).toBe(0)
      }
      expect(await projects(bob)).toEqual([APP, WEB])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "hub init --team takes over a team schema a member created first: its admin group owns it, the member is held by the policies",
    async () => {
      // a sync member that may create schemas installs the team memory before the admin set it up
      const database = new URL(hub.admin).pathname.slice(1)
      await query(hub.admin, `GRANT CREATE ON DATABASE "${database}" TO desk2`)
      const early = new URL(desk)
      early.searchParams.set("schema", "acx_early")
      const home = path.join(dir, "early")
      const install = await acx(["memory", "install", "--team", early.href, "--user", "dee", "--machine", "desk2"], {
        env: { ACX_HOME: path.join(home, "acx"), CLAUDE_CONFIG_DIR: path.join(home, "claude"), HOME: home }
      })
      await query(hub.admin, `REVOKE CREATE ON DATABASE "${database}" FROM desk2`)
      expect(install.code, install.stderr).toBe(0)
      const owners = () =>
        query(
          hub.admin,
          `SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'acx_early'
         UNION ALL SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace = 'acx_early'::regnamespace
           AND relkind = 'r'`
        ).then((rows) => [...new Set(rows.map((row) => row["owner"]))])
      expect(await owners()).toEqual(["desk2"])

      // an admin that may not give the member's objects away: one line saying who must, nothing applied
      await query(hub.admin, `CREATE ROLE weak_admin LOGIN PASSWORD 'weak-admin-pw' IN ROLE ${hub.groups.admin}`)
      const weak = asRole(hub.admin, "weak_admin", "weak-admin-pw")
      const refused = await Effect.runPromise(Effect.flip(
        TeamHub.setUp({ url: Redacted.make(weak), teamSchema: "acx_early", hubSchema: "public" })
      ))
      expect(refused.description).toMatch(/created by desk2, a hub member.*as a superuser.*nothing was changed/)
      expect(refused.description).not.toContain("weak-admin-pw")
      expect(refused.description.split("\n")).toHaveLength(1)
      expect(await owners()).toEqual(["desk2"])
      const applied = await query(
        hub.admin,
        `SELECT (SELECT count(*)::int FROM pg_policies WHERE schemaname = 'acx_early') AS policies,
        (SELECT count(*)::int FROM pg_class WHERE relnamespace = 'acx_early'::regnamespace AND relrowsecurity) AS rls`
      )
      expect(applied).toEqual([{ policies: 0, rls: 0 }])

      // a policy the owner added for itself is dropped with the take-over (permissive policies are OR-ed)
      await query(desk, `CREATE POLICY planted ON acx_early.memory_observations FOR ALL TO PUBLIC USING (true)`)
      const init = await acx(["hub", "init", hub.admin, "--team", "acx_early"])
      expect(init.code, init.stderr).toBe(0)
      expect(await owners()).toEqual([hub.groups.admin])
      const table = "acx_early.memory_observations"
      const insert = (uid: string, project: string) =>
        `INSERT INTO ${table} (uid, project, author, machine, session_id, source, created_at, type, title, narrative)
       VALUES ('${uid}', '${project}', 'dee', 'desk2', 's1', 'hook', 1, 'discovery', 'a title', 'a narrative')`
      await query(desk, insert("e1", "github.com/acme/app"))
      await query(desk, insert("e2", "github.com/acme/web"))
      // the member that created the tables is a member like any other now
      for (
        const statement of [
          `UPDATE ${table} SET narrative = 'rewritten'`,
          `DELETE FROM ${table}`,
          `DROP TABLE ${table}`
        ]
      ) {
        expect(await refusal(desk, statement), statement).toBe("42501")
      }
      const granted = await acx([
        "hub",
        "grant",
        "--project",
        "github.com/acme/app",
        "--role",
        "desk2",
        "--hub",
        hub.admin,
        "--allow-unknown"
      ])
      expect(granted.code, granted.stderr).toBe(0)
      try {
        expect((await query(desk, `SELECT uid FROM ${table} ORDER BY uid`)).map((row) => row["uid"])).toEqual(["e1"])
        expect(await refusal(desk, insert("e3", "github.com/acme/web"))).toBe("42501")
      } finally {
        await acx(["hub", "revoke", "--project", "github.com/acme/app", "--role", "desk2", "--hub", hub.admin])
      }
      const again = await acx(["hub", "init", hub.admin, "--team", "acx_early"])
      expect(again.stdout).toContain("nothing changed")
    },
    2 * TEST_TIMEOUT_MS
  )

  it(
    "hub init takes over a store schema a member synced into first: its admin group owns it, the member is held by the policies",
    async () => {
      // a sync member that may create schemas syncs into a schema before the admin made it a hub
      const schema = "acx_early_store"
      const at = (url: string) => {
        const changed = new URL(url)
        changed.searchParams.set("schema", schema)
        return changed.href
      }
      const database = new URL(hub.admin).pathname.slice(1)
      const fixture = "d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
      await query(hub.admin, `GRANT CREATE ON DATABASE "${database}" TO desk2`)
      const early = await hub.sync(at(desk), oneSessionConfigDir(path.join(dir, "early-desk"), fixture, "-a"), "desk2")
      await query(hub.admin, `REVOKE CREATE ON DATABASE "${database}" FROM desk2`)
      expect(early.code, early.stderr).toBe(0)
      const owners = () =>
        query(
          hub.admin,
          `SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = $1
         UNION ALL SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace = $1::regnamespace
           AND relkind IN ('r', 'S')
         UNION ALL SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE pronamespace = $1::regnamespace`,
          [schema]
        ).then((rows) => [...new Set(rows.map((row) => row["owner"]))])
      expect(await owners()).toEqual(["desk2"])

      // an admin that may not give the member's objects away: one line saying who must, nothing applied
      await query(
        hub.admin,
        `CREATE ROLE weak_store_admin LOGIN CREATEROLE PASSWORD 'weak-store-pw' IN ROLE ${hub.groups.admin}`
      )
      const refused = await acxInProcess(["hub", "init", at(asRole(hub.admin, "weak_store_admin", "weak-store-pw"))])
      expectOneLine(refused, 1, "created by desk2, a hub member")
      expect(refused.stderr).toMatch(/as a superuser.*nothing was changed/)
      expect(refused.stderr).not.toContain("weak-store-pw")
      expect(await owners()).toEqual(["desk2"])
      const applied = await query(
        hub.admin,
        `SELECT (SELECT count(*)::int FROM pg_policies WHERE schemaname = $1) AS policies,
        (SELECT count(*)::int FROM pg_class WHERE relnamespace = $1::regnamespace AND relrowsecurity) AS rls`,
        [schema]
      )
      expect(applied).toEqual([{ policies: 0, rls: 0 }])

      // what the owner may leave behind: a policy letting it read and write every row, privileges
      // for everyone, its own trigger and function body running as whoever writes
      const entries = `${schema}.claude_session_entries`
      for (
        const statement of [
          `CREATE POLICY planted ON ${entries} FOR ALL TO PUBLIC USING (true) WITH CHECK (true)`,
          `GRANT ALL ON ${entries} TO PUBLIC`,
          `CREATE OR REPLACE FUNCTION ${schema}.acx_clock_notify() RETURNS trigger LANGUAGE plpgsql
            AS 'BEGIN RETURN NULL; END'`,
          `CREATE TRIGGER planted AFTER INSERT ON ${entries} FOR EACH ROW EXECUTE FUNCTION ${schema}.acx_clock_notify()`
        ]
      ) {
        await query(desk, statement)
      }
      const init = await acx(["hub", "init", at(hub.admin)])
      expect(init.code, init.stderr).toBe(0)
      const left = await query(
        hub.admin,
        `SELECT (SELECT array_agg(tgname::text ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal
            AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = $1::text::regnamespace)) AS triggers,
          (SELECT count(*)::int FROM pg_policies WHERE schemaname = $1::text AND policyname = 'planted') AS planted,
          (SELECT prosrc LIKE '%pg_notify%' FROM pg_proc WHERE pronamespace = $1::text::regnamespace
            AND proname = 'acx_clock_notify') AS notifies`,
        [schema]
      )
      expect(left).toEqual([{ triggers: ["acx_clock_notify"], planted: 0, notifies: true }])
      // the grants table init adds is the admin's own, as on any hub
      const storeGroups = groupsOf(at(hub.admin))
      expect(await owners()).toEqual([storeGroups.admin, new URL(hub.admin).username])
      // members of the public hub: this hub's too, by its own group
      await query(hub.admin, `GRANT ${storeGroups.sync} TO desk2, laptop1`)
      const other = await hub.sync(
        at(laptop),
        oneSessionConfigDir(path.join(dir, "early-laptop"), fixture, "-b"),
        "laptop1"
      )
      expect(other.code, other.stderr).toBe(0)
      const writers = (url: string) =>
        query(url, `SELECT DISTINCT db_user FROM ${entries} ORDER BY 1`).then((rows) =>
          rows.map((row) => row["db_user"])
        )
      expect(await writers(hub.admin)).toEqual(["desk2", "laptop1"])
      // the member that created the tables is a member like any other now: its own rows only, no
      // rewriting, deleting or dropping, no switching the policies off
      expect(await writers(at(desk))).toEqual(["desk2"])
      for (
        const statement of [
          `UPDATE ${entries} SET entry = '{}'`,
          `DELETE FROM ${entries}`,
          `TRUNCATE ${entries}`,
          `DROP TABLE ${entries}`,
          `ALTER TABLE ${entries} DISABLE ROW LEVEL SECURITY`,
          `DROP POLICY acx_sync_own ON ${entries}`,
          `CREATE OR REPLACE FUNCTION ${schema}.acx_clock_notify() RETURNS trigger LANGUAGE sql AS 'SELECT NULL'`,
          `DROP SCHEMA ${schema} CASCADE`
        ]
      ) {
        expect(await refusal(desk, statement), statement).toBe("42501")
      }
      const again = await acx(["hub", "init", at(hub.admin)])
      expect(again.stdout).toContain("nothing changed")
    },
    2 * TEST_TIMEOUT_MS
  )

  it("user add refuses a bad or taken name; user remove drops a member, who can no longer connect", async () => {
    expectOneLine(
      await acx(["hub", "user", "add", "Bad-Name", "--role", "viewer", "--hub", hub.admin]),
      1,
      "invalid role name"
    )
    expectOneLine(
      await acxInProcess(["hub", "user", "add", "alice", "--role", "viewer", "--hub", hub.admin]),
      1,
      "exists already"
    )
    expectOneLine(await acxInProcess(["hub", "user", "remove", "postgres", "--hub", hub.admin]), 1, "no member")
    expectOneLine(await acxInProcess(["hub", "init", "sqlite:/tmp/x.db"]), 2, "Postgres")
    const removed = await acxInProcess(["hub", "user", "remove", "alice", "--hub", hub.admin])
    expect(removed.code, removed.stderr).toBe(0)
    const gone = await acx(["sessions", "--from", alice], env())
    expectOneLine(gone, 1, "password authentication failed")
    expect(gone.stderr).not.toContain(new URL(alice).password)
  }, TEST_TIMEOUT_MS)
})
