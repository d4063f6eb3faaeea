/**
 * `acx ui --from postgres://…?schema=S` as a process, over the run's Postgres: `acx sync` fills
 * a schema of its own from the fixture config directory, then the page's routes answer over HTTP
 * (the list, a session with its tool calls and subagents, the costs, the search), the store's
 * password shows in no answer, and entries another writer appends reach an open session stream
 * and the list's events. (The same routes over SQLite, and compared field by field with the
 * config directory's, are `@acx/ui`'s StoreRoutes test; in a browser, `ui.store.browser.test.ts`.)
 */
import * as Fixtures from "@acx/fixtures"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import { dropSchema, showsPassword } from "@acx/fixtures/postgresTools"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "./utils/uiFixture.js"

const PG_URL = process.env["ACX_PG_URL"]

describe.skipIf(PG_URL === undefined)("acx ui --from a Postgres store", () => {
  const schema = `acx_ui_store_${process.pid}_${randomUUID().slice(0, 8)}`
  let dir: string
  let built: Fixtures.BuiltConfigDir
  let ui: RunningUi
  let target: string

  beforeAll(async () => {
    dir = tempDir("ui-store-pg")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    const url = new URL(PG_URL!)
    url.searchParams.set("schema", schema)
    target = url.href
    const home = path.join(dir, "home")
    const synced = await acx(["sync", "--to", target, "--config-dir", built.configDir], { env: { ACX_HOME: home } })
    expect(synced.code, synced.stderr).toBe(0)
    ui = await startUi(["--from", target], { ACX_HOME: home })
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.stop()
    await dropSchema(PG_URL!, schema)
    removeDir(dir)
  })

  const get = (pathAndQuery: string, until?: (body: string) => boolean) =>
    request(ui.port, pathAndQuery, {
      headers: { cookie: `acx_ui_token=${ui.token}` },
      ...(until === undefined ? {} : { until })
    })

  it("lists, shows, prices and searches the stored sessions, naming the store without its password", async () => {
    const list = await get("/api/sessions")
    expect(list.status).toBe(200)
    const body = JSON.parse(list.body) as { configDir: string; sessions: Array<{ sessionId: string }> }
    expect(body.sessions.map((s) => s.sessionId).sort()).toEqual(built.sessions.map((s) => s.sessionId).sort())
    expect(body.configDir).toMatch(/^postgres(ql)?:\/\//)
    expect(showsPassword(list.body, PG_URL!)).toBe(false)

    const session = built.sessions.find((s) => s.subagents.length > 0)!
    const page = await get(`/api/session/${session.sessionId}`)
    expect(page.status).toBe(200)
    expect(page.body).toContain(`"agentId":"a881341"`)
    expect(page.body).toContain(`"name":"Task"`)
    const subagent = await get(`/api/session/${session.sessionId}/subagent/a881341`)
    expect(subagent.body).toContain("What is the output contract for Claude Code hooks")

    const costs = JSON.parse((await get("/api/costs?since=2020-01-01")).body) as {
      sessions: ReadonlyArray<{ sessionId: string }>
    }
    expect(costs.sessions.length).toBeGreaterThan(0)

    const search = await get("/api/search?q=beads&limit=3")
    expect(search.status).toBe(200)
    expect(search.headers["server-timing"]).toMatch(/^search;dur=/)
    const hits = JSON.parse(search.body) as { indexed: boolean; location: string; hits: Array<{ turn: string }> }
    expect(hits.indexed).toBe(true)
    expect(hits.hits.length).toBe(3)
    expect(showsPassword(hits.location, PG_URL!)).toBe(false)
    expect((await get("/api/search?q=-beads")).status).toBe(400)
  }, TEST_TIMEOUT_MS)

  it("sends entries another writer appends to the open session and the list", async () => {
    const sessionId = randomUUID()
    const projectKey = "-home-dev-appended"
    const writer = createPostgresSessionStore({ url: PG_URL!, schema })
    const entry = (uuid: string, text: string) => ({
      type: "user",
      uuid,
      sessionId,
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/home/dev/appended",
      message: { role: "user", content: text }
    })
    try {
      await writer.append({ projectKey, sessionId }, [entry("e1", "the first words")])
      const first = await get(`/api/session/${sessionId}`)
      expect(first.body).toContain(`{"type":"end","bytes":1,"lines":1}`)
      // the session's stream reads on from entry 1, whenever it starts; the list's says what
      // changes once it listens, which the client cannot see: another writer appends until it says so
      let listed: string | undefined
      const list = streamUntil(`/api/sessions/events`, (body) => body.includes(`"changed"`)).then((body) => {
        listed = body
        return body
      })
      const live = streamUntil(`/api/session/${sessionId}/events?from=1`, (body) => body.includes("appended later"))
      await writer.append({ projectKey, sessionId }, [entry("e2", "appended later")])
      let more = 2
      await expect.poll(async () => {
        if (listed === undefined) {
          await writer.append({ projectKey, sessionId }, [entry(`e${++more}`, "appended again")])
        }
        return listed
      }, { timeout: 30_000, interval: 1_000 }).toBeDefined()
      const [, followed] = await Promise.all([list, live])
      expect(listed).toContain(`data: {"type":"changed"}`)
      expect(followed).toContain(`"key":"e2"`)
    } finally {
      await writer.close()
    }
  }, TEST_TIMEOUT_MS)

  // An event stream read until `until` says enough (the connection is then closed).
  const streamUntil = (pathAndQuery: string, until: (body: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const outgoing = http.request({
        host: "127.0.0.1",
        port: ui.port,
        path: pathAndQuery,
        headers: { cookie: `acx_ui_token=${ui.token}` },
        agent: false
      }, (response) => {
        let body = ""
        const timer = setTimeout(() => {
          response.destroy()
          reject(new Error(`${pathAndQuery}: not within 30 s: ${body.slice(0, 500)}`))
        }, 30_000)
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
          if (until(body)) {
            clearTimeout(timer)
            response.destroy()
            resolve(body)
          }
        })
      })
      outgoing.on("error", reject)
      outgoing.end()
    })
})
