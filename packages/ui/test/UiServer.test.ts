import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as UiApi from "../src/UiApi.js"
import * as UiSecurity from "../src/UiSecurity.js"
import { startServer, type TestServer } from "./utils/server.js"

let t: TestServer
beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t.close())

describe("UiServer", () => {
  it("answers the token's first visit with the cookie and a redirect that drops the token", async () => {
    const response = await fetch(`${t.origin}/?token=${t.server.token}`, { redirect: "manual" })
    expect(response.status).toBe(303)
    expect(response.headers.get("location")).toBe("/")
    expect(response.headers.get("set-cookie")).toBe(
      `acx_ui_token=${t.server.token}; Path=/; HttpOnly; SameSite=Strict`
    )
    expect(response.headers.get("content-security-policy")).toBe(UiSecurity.CONTENT_SECURITY_POLICY)
  })

  it("refuses a request without the token (401) or with a wrong one, with the security headers", async () => {
    for (const init of [{}, { headers: { cookie: "acx_ui_token=wrong" } }]) {
      const response = await fetch(`${t.origin}/api/sessions`, init)
      expect(response.status).toBe(401)
      expect(response.headers.get("content-security-policy")).toBe(UiSecurity.CONTENT_SECURITY_POLICY)
      expect(response.headers.get("access-control-allow-origin")).toBeNull()
    }
    expect((await fetch(`${t.origin}/api/sessions?token=nope`)).status).toBe(401)
  })

  it("refuses a foreign Host (403) even with the token: no DNS rebinding", async () => {
    const { request } = await import("node:http")
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: t.server.port,
        path: "/api/sessions",
        headers: { host: `attacker.example:${t.server.port}`, cookie: `acx_ui_token=${t.server.token}` }
      }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.end()
    })
    expect(status).toBe(403)
  })

  it("lists the fixture sessions, last active first, projects named from their cwd", async () => {
    const response = await t.request("/api/sessions")
    expect(response.status).toBe(200)
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
    const body = (await response.json()) as UiApi.SessionsResponse
    expect(body.sessions.map((s) => s.sessionId).sort()).toEqual(t.built.sessions.map((s) => s.sessionId).sort())
    const active = body.sessions.map((s) => s.lastTime === undefined ? s.mtime : Date.parse(s.lastTime))
    expect(active).toEqual([...active].sort((a, b) => b - a))
    for (const project of body.projects) {
      if (project.cwd !== null) expect(project.cwd.endsWith(project.name)).toBe(true)
    }
  })

  it("serves usage for every session from the stats folds", async () => {
    const body = (await (await t.request("/api/sessions/usage")).json()) as UiApi.UsageResponse
    expect(body.sessions.length).toBe(t.built.sessions.length)
    expect(body.sessions.some((s) => s.costUSD > 0 && s.tokens > 0)).toBe(true)
  })

  it("serves only the built assets, by name (a path in a request names nothing else)", async () => {
    const app = await t.request("/assets/app.js")
    expect(app.status).toBe(200)
    expect(app.headers.get("content-type")).toContain("text/javascript")
    for (const bad of ["/assets/..%2Fpackage.json", "/assets/../../package.json", "/etc/passwd", "/api/nothing"]) {
      expect((await t.request(bad)).status).toBe(404)
    }
  })

  it("refuses a write from another origin (403) even with the token", async () => {
    const response = await t.request("/api/sessions", { method: "POST", headers: { origin: "http://evil.example" } })
    expect(response.status).toBe(403)
  })

  it("puts the search and the list's events behind the same checks: token, Host, Origin", async () => {
    const { request } = await import("node:http")
    const status = (path: string, headers: Record<string, string>, method = "GET") =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: t.server.port, path, method, headers }, (res) => {
          res.destroy()
          resolve(res.statusCode ?? 0)
        })
        req.on("error", reject)
        req.end()
      })
    const cookie = `acx_ui_token=${t.server.token}`
    for (const path of ["/api/search?q=beads", "/api/sessions/events"]) {
      expect(await status(path, {}), path).toBe(401)
      expect(await status(path, { cookie: "acx_ui_token=wrong" }), path).toBe(401)
      expect(await status(path, { cookie, host: `attacker.example:${t.server.port}` }), path).toBe(403)
      expect(await status(path, { cookie, origin: "http://evil.example" }, "POST"), path).toBe(403)
      expect(await status(path, { cookie }), path).toBe(200)
    }
  })
})
