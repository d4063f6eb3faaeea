/**
 * `MemoryAdmin.forget` deletes the observer's transcripts under the project key Claude Code
 * itself used for them: with `CLAUDE_CODE_PROJECT_DIR_NAME` set (and the observer's own
 * `CLAUDE_CONFIG_DIR`), that is the override's name, not the encoded working directory.
 */
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as MemoryAdmin from "../src/MemoryAdmin.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryStore from "../src/MemoryStore.js"
import { hooksOf, provideDatabase } from "./utils/world.js"

const homes: Array<string> = []
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})

const transcript = [{
  type: "user",
  uuid: "u1",
  timestamp: "2026-01-01T12:00:00.000Z",
  message: { role: "user", content: "observe this" }
}]

describe("MemoryAdmin.forget", () => {
  it.each([
    ["the override's name", { CLAUDE_CODE_PROJECT_DIR_NAME: "observer-notes" }, "observer-notes"],
    ["the encoded working directory", {}, undefined]
  ])("deletes the observer's transcript kept under %s", async (_, env, overridden) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-admin-"))
    homes.push(home)
    const paths = MemoryConfig.paths(home)
    const hook = hooksOf(home, "/work/app", "session-1")
    hook("UserPromptSubmit", { prompt: "fix the cart total" })
    const key = {
      projectKey: overridden ?? MemoryAdmin.observerProjectKey(paths, {}),
      sessionId: "observer-1"
    }
    const left = await Effect.runPromise(provideDatabase(
      home,
      Effect.gen(function*() {
        yield* MemoryStore.saveObserver("session-1", { sessionId: "observer-1", usage: {} })
        const store = yield* SqliteSessionStore.makeWithClient()
        yield* store.append(key, transcript)
        const forgotten = yield* MemoryAdmin.forget(paths, { session: "session-1", env })
        expect(forgotten.observerTranscripts).toBe(1)
        return yield* store.load(key)
      })
    ))
    expect(left).toBeNull()
  })
})
