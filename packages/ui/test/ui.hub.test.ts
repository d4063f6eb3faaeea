/**
 * `acx ui --from postgres://VIEWER@…` over a hub, as a viewer limited by `acx hub grant` to one
 * project, on an embedded Postgres of this file's own (see `@acx/fixtures/hub`): every route of the page
 * that reads the store answers with the granted project's sessions only. The list, the usage, the
 * costs and the search name no other session; a session of another project, its subagents, its
 * blocks, its lines, its export and its event stream are "not found", as a session that does not
 * exist; the granted project's are served. The running page follows `hub grant` and `hub revoke`
 * at the next request: the list it keeps (under a fingerprint read as the viewer) never serves the
 * rows of before. (The memory routes read the machine's own memory database, not the store.)
 */
import * as Fixtures from "@acx/fixtures"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import { asRole, hubOf, query, type RunningHub, startHub } from "@acx/fixtures/hub"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "./utils/uiFixture.js"

const STUDIO = "/Users/philipp/dev/studio"

describe("acx ui --from a hub, as a viewer limited to one project", () => {
  let dir: string
  let hub: RunningHub
  let ui: RunningUi
  let built: Fixtures.BuiltConfigDir
  let granted: Array<string>
  let others: Array<string>

  beforeAll(async () => {
    dir = tempDir("ui-hub")
    hub = await startHub(path.join(dir, "home"))
    const laptop = await hub.addUser("laptop1", "sync")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "laptop"))
    const synced = await hub.sync(laptop, built.configDir, "laptop1")
    expect(synced.code, synced.stderr).toBe(0)
    const { database, schema } = hubOf(hub.admin)
    const viewers = PostgresHub.groupRoles(database, schema).viewer
    await query(hub.admin, `CREATE ROLE carol LOGIN PASSWORD 'carol-secret-pw' IN ROLE ${viewers}`)
    const grant = await acx(["hub", "grant", "--project", STUDIO, "--role", "carol", "--hub", hub.admin])
    expect(grant.code, grant.stderr).toBe(0)
    granted = (await query(hub.admin, `SELECT session_id FROM acx_session_origin WHERE project = $1`, [STUDIO]))
      .map((row) => row["session_id"] as string).sort()
    others = built.sessions.map((s) => s.sessionId).filter((id) => !granted.includes(id))
    expect(granted.length).toBeGreaterThan(0)
    expect(others.length).toBeGreaterThan(0)
    ui = await startUi(["--from", asRole(hub.admin, "carol", "carol-secret-pw")], { ACX_HOME: path.join(dir, "ui") })
  }, 3 * TEST_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.stop()
    await hub?.stop()
    removeDir(dir)
  })

  const get = (pathAndQuery: string, until?: (body: string) => boolean) =>
    request(ui.port, pathAndQuery, {
      headers: { cookie: `acx_ui_token=${ui.token}` },
      ...(until === undefined ? {} : { until })
    })

  /** Whether `body` names any session the viewer may not see. */
  const leaks = (body: string) => others.filter((id) => body.includes(id))

  it("the list, usage, costs and search hold the granted project's sessions and no other", async () => {
    const list = await get("/api/sessions")
    expect(list.status).toBe(200)
    const sessions = (JSON.parse(list.body) as { sessions: Array<{ sessionId: string }> }).sessions
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(granted)

    for (const route of ["/api/sessions/usage", "/api/costs?since=2020-01-01", "/api/search?q=the&limit=200"]) {
      const answer = await get(route)
      expect(answer.status, route).toBe(200)
      expect(leaks(answer.body), route).toEqual([])
      expect(granted.some((id) => answer.body.includes(id)), route).toBe(true)
    }
  }, TEST_TIMEOUT_MS)

  it("another project's session is not found on every session route; the granted one is served", async () => {
    const withSubagent = built.sessions.find((s) => !granted.includes(s.sessionId) && s.subagents.length > 0)!
    const agent = withSubagent.subagents[0]!.agentId
    const routes = (id: string) => [
      `/api/session/${id}`,
      `/api/session/${id}/subagent/${agent}`,
      `/api/session/${id}/block?line=1&block=0`,
      `/api/session/${id}/line/1`,
      `/api/session/${id}/export?format=jsonl`,
      `/api/session/${id}/export?format=markdown`,
      `/api/session/${id}/events?from=0`
    ]
    for (const id of others) {
      for (const route of routes(id)) {
        const answer = await get(route, (body) => body.length > 0)
        expect(answer.status, route).toBe(404)
        // the answer may quote the id asked for, and nothing else
        expect(leaks(answer.body).filter((other) => other !== id), route).toEqual([])
        expect(answer.body.length, route).toBeLessThan(300)
      }
    }
    const mine = granted[0]!
    for (
      const route of [`/api/session/${mine}`, `/api/session/${mine}/export?format=jsonl`, `/api/session/${mine}/line/1`]
    ) {
      const answer = await get(route)
      expect(answer.status, route).toBe(200)
      expect(leaks(answer.body), route).toEqual([])
    }
    const events = await get(`/api/session/${mine}/events?from=0`, (body) => body.includes("data:"))
    expect(events.status).toBe(200)
    const listEvents = await get("/api/sessions/events", (body) => body.includes("retry:"))
    expect(listEvents.status).toBe(200)
  }, 2 * TEST_TIMEOUT_MS)

  it("the running page follows a grant and a revoke at the next request: list, costs and search", async () => {
    const [second] = await query(
      hub.admin,
      `SELECT project, array_agg(session_id ORDER BY session_id) AS sessions FROM acx_session_origin
       WHERE project <> $1 GROUP BY project ORDER BY count(*) DESC, project LIMIT 1`,
      [STUDIO]
    )
    const added = second!["sessions"] as Array<string>
    expect(added.length).toBeGreaterThan(0)
    const listed = async () =>
      (JSON.parse((await get("/api/sessions")).body) as { sessions: Array<{ sessionId: string }> }).sessions
        .map((s) => s.sessionId).sort()
    const names = async (route: string, ids: ReadonlyArray<string>) => {
      const answer = await get(route)
      expect(answer.status, route).toBe(200)
      return ids.filter((id) => answer.body.includes(id))
    }
    const routes = ["/api/costs?since=2020-01-01", "/api/search?q=the&limit=200"]
    // warm: the page has read (and kept) the granted list
    expect(await listed()).toEqual(granted)
    for (const route of routes) expect(await names(route, added), route).toEqual([])

    const hubCommand = async (verb: "grant" | "revoke") => {
      const result = await acx([
        "hub",
        verb,
        "--project",
        second!["project"] as string,
        "--role",
        "carol",
        "--hub",
        hub.admin
      ])
      expect(result.code, result.stderr).toBe(0)
    }
    await hubCommand("grant")
    expect(await listed()).toEqual([...granted, ...added].sort())
    for (const route of routes) expect((await names(route, added)).length, route).toBeGreaterThan(0)

    await hubCommand("revoke")
    expect(await listed()).toEqual(granted)
    for (const route of routes) expect(await names(route, added), route).toEqual([])
  }, 2 * TEST_TIMEOUT_MS)
})
