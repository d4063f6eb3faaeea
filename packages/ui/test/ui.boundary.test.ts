/**
 * `acx ui`'s one security boundary, checked on the real process: every route of the server's
 * router (read from the router itself, so a new route is checked without editing this file) and
 * every status it answers — 200, 303, 400, 401, 403, 404, 500, an event stream — carries the
 * security headers; a foreign Host, a foreign Origin on a write and a missing token are refused.
 * And every string a route shows is masked: a secret planted in each field the page or an export
 * shows comes out of no route, while with `mask=0` each one does (the check can fail).
 */
import { acx, BIN, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as UiSecurity from "@acx/ui/UiSecurity"
import * as UiServer from "@acx/ui/UiServer"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  PLANTED_FIELDS,
  type PlantedSession,
  plantSecrets,
  type RawResponse,
  request,
  type RequestOptions,
  secret
} from "./utils/uiFixture.js"

let dir: string
let planted: PlantedSession
let ui: RunningUi
let routes: ReadonlyArray<UiServer.UiRoute>

beforeAll(async () => {
  dir = tempDir("ui-boundary")
  planted = plantSecrets(dir)
  const acxHome = path.join(dir, "home")
  // the router the server serves, read from a server built in this process on the same directory
  routes = await Effect.runPromise(Effect.scoped(Effect.map(
    UiServer.make({
      configDir: planted.configDir,
      acxHome,
      port: 0,
      assetsDirs: [path.join(path.dirname(BIN), "..", "dist", "assets")]
    }),
    (server) => server.routes
  )))
  // the default sync store: the search box's route answers from it, with the planted secrets in it
  // --no-mask: the store holds the secrets as written (a default sync masks them on the way in,
  // cli.sync.mask.test.ts), so what is proved here is the page's own mask over what it reads
  const synced = await acx(["sync", "--no-mask", "--config-dir", planted.configDir], {
    env: { ACX_HOME: acxHome }
  })
  expect(synced.code, synced.stderr).toBe(0)
  ui = await startUi(["--config-dir", planted.configDir], { ACX_HOME: acxHome })
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  await ui?.stop()
  removeDir(dir)
})

const withToken = (headers: Record<string, string> = {}) => ({ cookie: `acx_ui_token=${ui.token}`, ...headers })
const get = (pathAndQuery: string, options: RequestOptions = {}) =>
  request(ui.port, pathAndQuery, { ...options, headers: withToken(options.headers as Record<string, string>) })

// an event stream is read until its first lines came (it stays open otherwise)
const untilEnd = (body: string) => body.includes(`"type":"end"`) || body.includes(`"error"`)

/** The requests that exercise `route` on the planted session (every route must have some). */
const requestsFor = (
  route: UiServer.UiRoute
): ReadonlyArray<{ readonly path: string; readonly options?: RequestOptions }> => {
  const id = planted.sessionId
  const session = `/api/session/${id}`
  const json = { "content-type": "application/json", origin: ui.origin }
  const table: Record<string, ReadonlyArray<{ readonly path: string; readonly options?: RequestOptions }>> = {
    "GET /": [{ path: "/" }],
    "GET /assets/:name": [{ path: "/assets/app.js" }, { path: "/assets/missing.js" }],
    "GET /api/sessions": [{ path: "/api/sessions" }],
    "GET /api/sessions/usage": [{ path: "/api/sessions/usage" }],
    "GET /api/sessions/events": [{
      path: "/api/sessions/events",
      options: { until: (body) => body.includes("retry:") }
    }],
    // a word of each planted text, and queries the engine refuses (400)
    "GET /api/search": ["deploy", "key", "printed", "look", "release", "echo", "-deploy"].map((q) => ({
      path: `/api/search?q=${encodeURIComponent(q)}`
    })).concat([{ path: "/api/search?q=deploy&role=robot" }]),
    "GET /api/costs": [{ path: "/api/costs" }, { path: "/api/costs?since=yesterday-ish" }],
    "GET /api/costs/now": [{ path: "/api/costs/now" }],
    "GET /api/session/:id": [{ path: session }, { path: "/api/session/0000-not-there" }],
    "GET /api/session/:id/subagent/:agentId": [{ path: `${session}/subagent/${planted.agentId}` }],
    "GET /api/session/:id/block": [
      { path: `${session}/block?line=2&block=0` },
      { path: `${session}/block?line=2&block=1` },
      { path: `${session}/block?line=3&block=0` },
      { path: `${session}/block?line=1&block=0&agent=${planted.agentId}` },
      { path: `${session}/block?line=x&block=0` }
    ],
    "GET /api/session/:id/line/:n": [1, 2, 3, 4].map((n) => ({ path: `${session}/line/${n}` })).concat([
      { path: `${session}/line/1?agent=${planted.agentId}` }
    ]),
    "GET /api/session/:id/events": [{ path: `${session}/events?from=0`, options: { until: untilEnd } }],
    "GET /api/session/:id/export": ["markdown", "anthropic", "jsonl"].map((format) => ({
      path: `${session}/export?format=${format}`
    })),
    "GET /api/memory": [{ path: "/api/memory" }],
    "GET /api/memory/observations": [{ path: "/api/memory/observations" }],
    "GET /api/memory/session/:id": [{ path: `/api/memory/session/${id}` }],
    "GET /api/memory/context": [{ path: `/api/memory/context?project=${encodeURIComponent("/home/dev")}` }],
    "GET /api/memory/spend": [{ path: "/api/memory/spend" }],
    "GET /api/memory/events": [{ path: "/api/memory/events", options: { until: () => true } }],
    "POST /api/memory/forget": [{ path: "/api/memory/forget", options: { method: "POST", headers: json, body: "{}" } }],
    "POST /api/memory/restore": [{
      path: "/api/memory/restore",
      options: { method: "POST", headers: json, body: "{}" }
    }]
  }
  return table[`${route.method} ${route.path}`] ?? []
}

const expectSecured = (response: RawResponse, what: string) => {
  for (const [name, value] of Object.entries(UiSecurity.SECURITY_HEADERS)) {
    expect(response.headers[name], `${what} (${response.status}): ${name}`).toBe(value)
  }
  expect(response.headers["access-control-allow-origin"], what).toBeUndefined()
}

const SECRET_PREFIX = "sk-ant-api03-"

describe("acx ui: one boundary", () => {
  it("reads the routes from the router, and this test has requests for each", () => {
    expect(routes.length).toBeGreaterThan(10)
    expect(routes.filter((route) => requestsFor(route).length === 0).map((r) => `${r.method} ${r.path}`)).toEqual([])
  })

  it("puts the security headers on every response of every route, whatever its status", async () => {
    const statuses = new Set<number>()
    for (const route of routes) {
      for (const { options, path: target } of requestsFor(route)) {
        const response = await get(target, options)
        statuses.add(response.status)
        expectSecured(response, `${route.method} ${target}`)
      }
    }
    const refusals: Array<[string, RawResponse]> = [
      ["no token", await request(ui.port, "/api/sessions")],
      ["wrong token", await request(ui.port, "/", { headers: { cookie: "acx_ui_token=wrong" } })],
      ["foreign Host", await get("/api/sessions", { headers: { host: `rebound.example:${ui.port}` } })],
      [
        "foreign Origin",
        await get("/api/memory/forget", { method: "POST", headers: { origin: "http://evil.example" }, body: "{}" })
      ],
      ["first visit", await request(ui.port, `/?token=${ui.token}`)],
      ["no route", await get("/nothing/here")],
      ["no API route", await get("/api/nothing")]
    ]
    expect(refusals.map(([what, response]) => `${what} ${response.status}`)).toEqual([
      "no token 401",
      "wrong token 401",
      "foreign Host 403",
      "foreign Origin 403",
      "first visit 303",
      "no route 404",
      "no API route 404"
    ])
    for (const [what, response] of refusals) {
      expectSecured(response, what)
      statuses.add(response.status)
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 303, 400, 401, 403, 404]))
  }, TEST_TIMEOUT_MS)

  it("refuses a foreign Host on every route (DNS rebinding), and a foreign Origin on every write", async () => {
    const answers: Array<string> = []
    for (const route of routes) {
      for (const { options, path: target } of requestsFor(route).slice(0, 1)) {
        const headers = { ...(options?.headers as Record<string, string> | undefined) }
        const rebound = await get(target, { ...options, headers: { ...headers, host: `rebound.example:${ui.port}` } })
        answers.push(`${route.method} ${route.path} Host ${rebound.status}`)
        if (route.method !== "GET") {
          const foreign = await get(target, { ...options, headers: { ...headers, origin: "http://evil.example" } })
          answers.push(`${route.method} ${route.path} Origin ${foreign.status}`)
        }
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(" 403"))).toEqual([])
    expect(answers.length).toBeGreaterThan(routes.length)
  }, TEST_TIMEOUT_MS)

  it("puts them on the event stream and on a 500", async () => {
    const events = await get(`/api/session/${planted.sessionId}/events?from=0`, { until: untilEnd })
    expect(events.status).toBe(200)
    expect(events.headers["content-type"]).toContain("text/event-stream")
    expectSecured(events, "events")
    // a memory database that is not one: the memory routes fail on the server's side
    const home = path.join(dir, "broken-home")
    fs.mkdirSync(home, { recursive: true })
    fs.writeFileSync(path.join(home, "memory.db"), "this is not a SQLite database ".repeat(200))
    const broken = await startUi(["--config-dir", planted.configDir], { ACX_HOME: home })
    try {
      const failed = await request(broken.port, "/api/memory", { headers: { cookie: `acx_ui_token=${broken.token}` } })
      expect(failed.status).toBe(500)
      expectSecured(failed, "a failing route")
    } finally {
      await broken.stop()
    }
  }, TEST_TIMEOUT_MS)
})

/** What the server answers to raw bytes on a fresh connection (the whole answer, until it closes). */
const raw = (bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = net.connect(ui.port, "127.0.0.1", () => socket.end(bytes))
    let answer = ""
    socket.setEncoding("utf8")
    socket.on("data", (chunk: string) => (answer += chunk))
    socket.on("close", () => resolve(answer))
    socket.on("error", reject)
  })

describe("acx ui: a request Node cannot parse", () => {
  it("is answered 400 with the security headers too", async () => {
    for (const bytes of ["NOT HTTP AT ALL\r\n\r\n", `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n`]) {
      const answer = await raw(bytes)
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      const headers = answer.toLowerCase()
      for (const [name, value] of Object.entries(UiSecurity.SECURITY_HEADERS)) {
        expect(headers, name).toContain(`${name}: ${value.toLowerCase()}`)
      }
    }
  })
})

describe("acx ui: every shown string masked", () => {
  const shown = async (mask: boolean): Promise<Array<{ readonly target: string; readonly response: RawResponse }>> => {
    const out: Array<{ readonly target: string; readonly response: RawResponse }> = []
    for (const route of routes) {
      for (const { options, path: target } of requestsFor(route)) {
        if (options?.method === "POST") continue
        const url = mask ? target : `${target}${target.includes("?") ? "&" : "?"}mask=0`
        out.push({ target: url, response: await get(url, options) })
      }
    }
    return out
  }

  it("shows each planted secret somewhere with mask=0 (so the masked check below can fail)", async () => {
    const all = (await shown(false)).map(({ response }) => response.body).join("\n")
    expect(PLANTED_FIELDS.filter((field) => !all.includes(secret(field)))).toEqual([])
  }, TEST_TIMEOUT_MS)

  it("shows no secret from any route by default", async () => {
    const leaks = (await shown(true)).flatMap(({ response, target }) => {
      const leaked = PLANTED_FIELDS.filter((field) => response.body.includes(secret(field)))
      return leaked.length > 0 || response.body.includes(SECRET_PREFIX) ? [`${target}: ${leaked.join(", ")}`] : []
    })
    expect(leaks).toEqual([])
  }, TEST_TIMEOUT_MS)

  it("searches the sync store: its snippets show a planted secret only with mask=0", async () => {
    for (const [q, field] of [["deploy", "prompt"], ["printed", "result"], ["look", "subtext"]] as const) {
      const open = await get(`/api/search?q=${q}&mask=0`)
      expect(JSON.parse(open.body).indexed, q).toBe(true)
      expect(open.body, q).toContain(secret(field))
      const masked = await get(`/api/search?q=${q}`)
      expect(masked.body, q).not.toContain(SECRET_PREFIX)
      expect(masked.body, q).toContain("[REDACTED:anthropic-key]")
    }
  })

  it("keeps a masked export valid JSON and JSONL", async () => {
    const session = `/api/session/${planted.sessionId}/export`
    const anthropic = await get(`${session}?format=anthropic`)
    expect(() => JSON.parse(anthropic.body)).not.toThrow()
    const jsonl = await get(`${session}?format=jsonl`)
    const lines = jsonl.body.trimEnd().split("\n")
    expect(lines.length).toBe(4)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    expect(jsonl.body).toContain("[REDACTED:anthropic-key]")
  })
})
