/**
 * The web page finds a session by id the way the CLI does (`SessionIdLookup`): the exact id, or
 * the one id with the prefix (at least 4 characters), in any case (a UUID is hex: a prefix typed
 * or pasted in capitals names the same session). Ambiguous, unknown and malformed ids are 404,
 * and a malformed one never reaches the listing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as SessionView from "../src/SessionView.js"
import { startServer, type TestServer } from "./utils/server.js"

let t: TestServer
beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t.close())

const headerOf = async (response: Response): Promise<string | undefined> => {
  const [first] = (await response.text()).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as SessionView.SessionLine
  )
  return first?.type === "header" ? first.header.sessionId : undefined
}

describe("GET /api/session/:id finds the session by id or prefix, in any case", () => {
  it("the full id and a unique prefix, in capitals too", async () => {
    const session = t.built.sessions[0]!
    for (const id of [session.sessionId.toUpperCase(), session.sessionId.slice(0, 8).toUpperCase()]) {
      const response = await t.request(`/api/session/${id}`)
      expect(response.status, id).toBe(200)
      expect(await headerOf(response)).toBe(session.sessionId)
    }
  })

  it("a prefix two sessions share is 404, as are short and malformed ids", async () => {
    const project = t.built.sessions[0]!.projectKey
    const dir = path.join(t.configDir, "projects", project)
    const twins = ["abcd1234-0000-4000-8000-000000000001", "abcd1234-0000-4000-8000-000000000002"]
    const line = JSON.stringify({ type: "user", uuid: "u-1", message: { role: "user", content: "hi" } })
    for (const id of twins) fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${line}\n`)
    try {
      for (const id of ["ABCD1234", "abc", "session-a", "abcd1234.jsonl"]) {
        expect((await t.request(`/api/session/${id}`)).status, id).toBe(404)
      }
      expect((await t.request(`/api/session/${twins[1]!.toUpperCase()}`)).status).toBe(200)
    } finally {
      for (const id of twins) fs.rmSync(path.join(dir, `${id}.jsonl`), { force: true })
    }
  })
})
