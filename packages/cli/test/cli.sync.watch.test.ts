/**
 * `acx sync --watch` through the BUILT binary: it syncs at start, syncs again when a transcript
 * is written (a new session, then lines appended to it), and exits 0 on SIGINT and on SIGTERM,
 * its lock released (the next sync runs at once) and every entry stored once.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, parseJson, tempDir, TEST_ACX_HOME } from "./utils/acx.js"
import { waitFor } from "./utils/memory.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const TIMEOUT = 120_000
const PROJECT = "-home-dev-watched"

const entry = (sessionId: string, text: string) => ({
  type: "user",
  uuid: randomUUID(),
  sessionId,
  message: { role: "user", content: text }
})

interface Watching {
  readonly child: ChildProcess
  /** The JSON lines printed so far (one per sync). */
  readonly lines: () => Array<Record<string, unknown>>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
}

const watch = (configDir: string, file: string): Watching => {
  const child = spawn(
    process.execPath,
    [BIN, "sync", "--watch", "--json", "--to", `sqlite:${file}`, "--config-dir", configDir],
    { env: { ...process.env, ACX_HOME: TEST_ACX_HOME }, stdio: ["ignore", "pipe", "pipe"] }
  )
  let out = ""
  let err = ""
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr: err }))
  )
  return {
    child,
    lines: () => out.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line)),
    exited
  }
}

const load = async (file: string, sessionId: string) => {
  const store = createSqliteSessionStore({ filename: file })
  try {
    return (await store.load({ projectKey: PROJECT, sessionId })) ?? []
  } finally {
    await store.close()
  }
}

describe("acx sync --watch", () => {
  let root = ""
  beforeAll(() => {
    root = tempDir("sync-watch")
  })
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it.each(["SIGINT", "SIGTERM"] as const)("syncs each change until %s, then exits 0 with its lock released", {
    timeout: TIMEOUT
  }, async (signal) => {
    const configDir = path.join(root, `claude-${signal}`)
    const project = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(project, { recursive: true })
    const first = randomUUID()
    const firstEntries = [entry(first, "before the watch")]
    fs.writeFileSync(path.join(project, `${first}.jsonl`), `${JSON.stringify(firstEntries[0])}\n`)
    const file = path.join(root, `watched-${signal}.db`)
    const watching = watch(configDir, file)
    try {
      await waitFor("the first sync", () => watching.lines().length >= 1)
      expect(watching.lines()[0]).toMatchObject({ sessions: 1, entries: 1 })

      // a new session appears
      const second = randomUUID()
      const secondEntries = [entry(second, "during the watch")]
      fs.writeFileSync(path.join(project, `${second}.jsonl`), `${JSON.stringify(secondEntries[0])}\n`)
      await waitFor("the new session synced", () => watching.lines().some((line) => line["sessions"] === 2))
      expect(await load(file, second)).toEqual(secondEntries)

      // lines appended to it, one at a time as Claude Code writes them
      for (let i = 0; i < 3; i++) {
        const more = entry(second, `line ${i}`)
        secondEntries.push(more)
        fs.appendFileSync(path.join(project, `${second}.jsonl`), `${JSON.stringify(more)}\n`)
      }
      await waitFor(
        "the appended lines synced",
        () => watching.lines().reduce((n, line) => n + Number(line["entries"]), 0) >= 5
      )
      expect(await load(file, second)).toEqual(secondEntries)
      expect(await load(file, first)).toEqual(firstEntries)
    } finally {
      watching.child.kill(signal)
    }
    const exit = await watching.exited
    expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null })
    // the lock is free: a sync right after runs (in the background mode it would defer otherwise)
    const after = await acx(["sync", "--background", "--json", "--to", `sqlite:${file}`, "--config-dir", configDir])
    expect(after.code, after.stderr).toBe(0)
    expect(parseJson(after)).toMatchObject({ entries: 0, passes: 1 })
  })
})
