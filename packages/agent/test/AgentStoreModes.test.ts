/**
 * An agent store on SQLite holds whole conversations: its file and the -wal and -shm SQLite
 * makes beside it are owner-only (0600), in a directory created 0700, whatever the umask left.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openDatabase } from "../src/internal/database.js"

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

describe("the agent store's files", () => {
  it("are 0600 in a 0700 directory, -wal and -shm included", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-agent-modes-"))
    roots.push(root)
    const file = path.join(root, "home", "agent.db")
    const modes = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function*() {
          yield* openDatabase(`sqlite:${file}`)
          return [file, `${file}-wal`, `${file}-shm`].filter((name) => fs.existsSync(name)).map((name) => [
            path.basename(name),
            (fs.statSync(name).mode & 0o777).toString(8)
          ])
        })
      )
    )
    expect(modes.map(([name]) => name)).toEqual(["agent.db", "agent.db-wal", "agent.db-shm"])
    for (const [name, mode] of modes) expect(mode, name).toBe("600")
    expect((fs.statSync(path.dirname(file)).mode & 0o777).toString(8)).toBe("700")
  })
})
