/**
 * An import that runs while another process writes the transcript: the writer appends entries
 * (each line in two writes, so imports see torn last lines), and now and then rewrites the file
 * in place (truncated to nothing, then written again, as an editor's save does), while imports
 * into SQLite run one after another. When the writer is done, one more import: the store holds
 * every entry of the file exactly once, in order, uuid-less ones included.
 */
import { importClaudeDir } from "@acx/claude-code/ClaudeImport"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-import-concurrent-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const PROJECT = "-home-dev-app"
const SESSION = "5e6f7a8b-1a2b-4c3d-8e9f-0a1b2c3d4e5f"

// The writer: ENTRIES lines, every fifth without a uuid; each line written in two halves; every
// REWRITE lines the whole file truncated and written again in place. Ends by itself.
const WRITER = `
const fs = require("node:fs")
const [file, count, rewrite] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])]
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const line = (i) => JSON.stringify(i % 5 === 4
  ? { type: "file-history-snapshot", messageId: "m" + i, snapshot: { i } }
  : { type: "user", uuid: "00000000-0000-4000-8000-" + String(i).padStart(12, "0"), message: { role: "user", content: "prompt " + i } }) + "\\n"
;(async () => {
  let content = ""
  for (let i = 0; i < count; i++) {
    const text = line(i)
    const half = text.length >> 1
    fs.appendFileSync(file, text.slice(0, half))
    await sleep(1)
    fs.appendFileSync(file, text.slice(half))
    content += text
    if (i % rewrite === rewrite - 1) {
      const fd = fs.openSync(file, "r+")
      fs.ftruncateSync(fd, 0)
      await sleep(3)
      fs.writeSync(fd, content, 0)
      fs.closeSync(fd)
    }
    await sleep(1)
  }
})()
`

describe("importClaudeDir while another process writes the transcript", () => {
  it("ends with every entry exactly once, through appends, torn lines and rewrites in place", async () => {
    const configDir = path.join(root, "claude")
    const dir = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${SESSION}.jsonl`)
    fs.writeFileSync(file, "")
    const writer = spawn(process.execPath, ["-e", WRITER, file, "400", "60"], { stdio: "ignore", timeout: 60_000 })
    const done = new Promise<void>((resolve) => writer.on("exit", () => resolve()))
    let finished = false
    void done.then(() => (finished = true))
    const entries = await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const store = yield* SqliteSessionStore.make({ filename: path.join(root, "store.sqlite") })
        const importOnce = importClaudeDir({ from: { configDir }, to: store, batchSize: 7 }).pipe(
          Effect.provide(NodeContext.layer)
        )
        let imports = 0
        while (!finished) {
          yield* importOnce
          imports++
        }
        yield* Effect.promise(() => done)
        yield* importOnce
        expect(imports).toBeGreaterThan(1)
        return yield* store.load({ projectKey: PROJECT, sessionId: SESSION })
      }))
    )
    const written = fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as unknown
    )
    expect(written).toHaveLength(400)
    expect(entries).toEqual(written)
  }, 120_000)
})
