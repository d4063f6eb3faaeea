/**
 * `GET /api/sessions?offset=&limit=&…`: the list the server keeps, a page at a time and filtered
 * on the server. A page is the same rows as the whole list's slice; the counts say how many
 * match and how many there are; filters compare what the request is shown (masked unless
 * `mask=0`), so the list's words never find a masked secret; an `offset` or `limit` out of range
 * or not a number is a 400 and a foreign Host a 403, with or without them.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SessionList from "../src/SessionList.js"
import type * as UiApi from "../src/UiApi.js"
import { startServer, type TestServer } from "./utils/server.js"
import { plantSecrets, request, secret } from "./utils/uiFixture.js"

let t: TestServer
let root: string
let planted: ReturnType<typeof plantSecrets>
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-paging-"))
  planted = plantSecrets(root)
  t = await startServer({ configDir: planted.configDir })
})
afterAll(async () => {
  await t.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const list = async (query: string): Promise<UiApi.SessionsResponse> => {
  const response = await t.request(`/api/sessions${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as UiApi.SessionsResponse
}

const ids = (body: UiApi.SessionsResponse) => body.sessions.map((row) => row.sessionId)

describe("GET /api/sessions, paged", () => {
  it("pages are slices of the whole list, with the counts and every project", async () => {
    const whole = await list("")
    const total = whole.sessions.length
    expect(total).toBeGreaterThan(4)
    expect(whole).toMatchObject({ total, matched: total, offset: 0 })
    const first = await list("?offset=0&limit=2")
    const second = await list("?offset=2&limit=2")
    expect(ids(first)).toEqual(ids(whole).slice(0, 2))
    expect(ids(second)).toEqual(ids(whole).slice(2, 4))
    expect(second).toMatchObject({ total, matched: total, offset: 2 })
    expect(first.projects).toEqual(whole.projects)
    expect(first.machines).toEqual(whole.machines)
    // the origins of the page's rows only
    expect(Object.keys(first.origins).sort()).toEqual(
      first.sessions.map((row) => `${row.projectKey}/${row.sessionId}`).sort()
    )
    // past the end: an empty page, the counts as they are
    const past = await list(`?offset=${Number.MAX_SAFE_INTEGER}&limit=${SessionList.MAX_LIMIT}`)
    expect(past).toMatchObject({ total, matched: total, sessions: [] })
  })

  it("filters on the server: words, project, machine", async () => {
    const whole = await list("")
    const byWord = await list("?limit=100&q=RELEASE")
    expect(ids(byWord)).toEqual([planted.sessionId])
    expect(byWord.matched).toBe(1)
    const project = whole.sessions.find((row) => row.sessionId !== planted.sessionId)!.projectKey
    const inProject = await list(`?limit=1&project=${encodeURIComponent(project)}`)
    const expected = whole.sessions.filter((row) => row.projectKey === project)
    expect(inProject.matched).toBe(expected.length)
    expect(ids(inProject)).toEqual([expected[0]!.sessionId])
    const machine = whole.machines[0]!
    expect((await list(`?limit=1&machine=${encodeURIComponent(machine)}`)).matched).toBe(whole.total)
    expect((await list("?limit=1&machine=nowhere")).matched).toBe(0)
    // every word must appear
    expect((await list("?limit=100&q=release%20nosuchwordanywhere")).matched).toBe(0)
  })

  it("the list's words never find a masked secret, and the masked project key is the filter's value", async () => {
    // (the listing itself masks titles and prompts; the branch is the page's to mask)
    const branch = secret("branch")
    expect((await list(`?limit=100&q=${branch}`)).matched).toBe(0)
    expect(ids(await list(`?limit=100&q=${branch}&mask=0`))).toEqual([planted.sessionId])
    const masked = await list("?limit=100&q=release")
    const shownKey = masked.sessions[0]!.projectKey
    expect(shownKey).not.toContain(secret("cwd"))
    expect(ids(await list(`?limit=100&project=${encodeURIComponent(shownKey)}`))).toEqual([planted.sessionId])
    expect((await list(`?limit=100&project=${encodeURIComponent(planted.projectKey)}`)).matched).toBe(0)
    expect(JSON.stringify(masked)).not.toContain(branch)
  })

  it("an offset or a limit out of range or not a number is a 400 that says so", async () => {
    for (
      const query of [
        "limit=0",
        "limit=-1",
        `limit=${SessionList.MAX_LIMIT + 1}`,
        "limit=99999999999999999999",
        "limit=abc",
        "limit=1e3",
        "limit=",
        "limit=%201",
        "offset=-5",
        "offset=1.5",
        "offset=0x10",
        `offset=${"9".repeat(40)}`
      ]
    ) {
      const response = await t.request(`/api/sessions?${query}`)
      expect(response.status, query).toBe(400)
      const body = (await response.json()) as { error: string }
      expect(body.error).toMatch(/^(offset|limit) must be a whole number from \d+ to \d+/)
    }
  })

  it("refuses a foreign Host (403) whatever the page asked", async () => {
    const { status } = await request(t.server.port, "/api/sessions?offset=0&limit=1000&q=a", {
      headers: { host: `attacker.example:${t.server.port}`, cookie: `acx_ui_token=${t.server.token}` }
    })
    expect(status).toBe(403)
  })

  it("pages come from the kept list; a page opening reads the directory again and is told it changed", async () => {
    const before = await list("?limit=100")
    // a session written while the server keeps the list
    const sessionId = "0e5a1d00-0000-4000-8000-00000000f00d"
    const dir = path.join(planted.configDir, "projects", before.sessions[0]!.projectKey)
    const entry = {
      type: "user",
      sessionId,
      uuid: "0e5a1d00-0000-4000-8000-0000000000e1",
      parentUuid: null,
      cwd: "/home/dev/new",
      timestamp: new Date().toISOString(),
      message: { role: "user", content: "a session written while the page was open" }
    }
    fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), JSON.stringify(entry) + "\n")
    // the kept list answers: no reading started since
    expect((await list("?limit=100")).total).toBe(before.total)
    // a page opening starts one, and its event stream says the list changed
    const events = await request(t.server.port, "/api/sessions/events", {
      headers: { cookie: `acx_ui_token=${t.server.token}` },
      until: (body) => body.includes(`"changed"`)
    })
    expect(events.body).toContain(`data: {"type":"changed"}`)
    const after = await list("?limit=100")
    expect(after.total).toBe(before.total + 1)
    expect(after.sessions[0]!.sessionId).toBe(sessionId)
  })
})
