/**
 * The web page finds a session by id the way the CLI does (`SessionIdLookup`): the exact id, or
 * the one id with the prefix (at least 4 characters), in any case (a UUID is hex: a prefix typed
 * or pasted in capitals names the same session). Ambiguous, unknown and malformed ids are 404,
 * and a malformed one never reaches the listing. Over a config directory and over a store alike.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as SessionView from "../src/SessionView.js"
import { startServer, type StoreKind, type TestServer } from "./utils/server.js"

const headerOf = async (response: Response): Promise<string | undefined> => {
  const [first] = (await response.text()).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as SessionView.SessionLine
  )
  return first?.type === "header" ? first.header.sessionId : undefined
}

for (const store of [undefined, "sqlite"] as ReadonlyArray<StoreKind | undefined>) {
  describe(`GET /api/session/:id finds the session by id or prefix, in any case (${store ?? "files"})`, () => {
    let t: TestServer
    beforeAll(async () => {
      t = await startServer(store === undefined ? {} : { store })
    }, 60_000)
    afterAll(() => t.close())

    // two sessions whose ids share a prefix, written where the page reads
    const plantTwins = async (twins: ReadonlyArray<string>) => {
      const project = t.built.sessions[0]!.projectKey
      const entry = { type: "user", uuid: "u-1", message: { role: "user", content: "hi" } }
      if (t.store !== undefined) {
        for (const id of twins) await Effect.runPromise(t.store.append({ projectKey: project, sessionId: id }, [entry]))
        return () =>
          Promise.all(twins.map((id) => Effect.runPromise(t.store!.delete({ projectKey: project, sessionId: id }))))
      }
      const dir = path.join(t.configDir, "projects", project)
      for (const id of twins) fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${JSON.stringify(entry)}\n`)
      return async () => {
        for (const id of twins) fs.rmSync(path.join(dir, `${id}.jsonl`), { force: true })
      }
    }

    it("the full id and a unique prefix, in capitals too", async () => {
      const session = t.built.sessions[0]!
      for (const id of [session.sessionId.toUpperCase(), session.sessionId.slice(0, 8).toUpperCase()]) {
        const response = await t.request(`/api/session/${id}`)
        expect(response.status, id).toBe(200)
        expect(await headerOf(response)).toBe(session.sessionId)
      }
    })

    it("a prefix two sessions share is 404, as are short and malformed ids", async () => {
      const twins = ["abcd1234-0000-4000-8000-000000000001", "abcd1234-0000-4000-8000-000000000002"]
      const remove = await plantTwins(twins)
      try {
        for (const id of ["ABCD1234", "abc", "session-a", "abcd1234.jsonl"]) {
          expect((await t.request(`/api/session/${id}`)).status, id).toBe(404)
        }
        expect((await t.request(`/api/session/${twins[1]!.toUpperCase()}`)).status).toBe(200)
      } finally {
        await remove()
      }
    })
  })
}
