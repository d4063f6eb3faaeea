/**
 * Transcripts larger than the longest string V8 can build (about 512 MB; Claude Code sessions
 * with images get there) are read in chunks everywhere: listing, reading, the Claude-layout
 * store's load and append. Reading one as a single string fails with "Invalid string length".
 */
import { ClaudeProjects, layerNode } from "@acx/claude-code/ClaudeProjects"
import { createClaudeProjectsSessionStore } from "@acx/claude-code/ClaudeProjectsSessionStore"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const SESSION = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const PROJECT = "-home-dev-big"
const LINES = 53
const LINE_CHARS = 10 * 1024 * 1024

let root = ""
let configDir = ""

const uuidOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`

describe("transcripts over V8's string limit", () => {
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-large-"))
    configDir = path.join(root, "config")
    const dir = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(dir, { recursive: true })
    const fd = fs.openSync(path.join(dir, `${SESSION}.jsonl`), "w")
    const filler = "x".repeat(LINE_CHARS)
    for (let i = 0; i < LINES; i++) {
      const entry = {
        type: "user",
        uuid: uuidOf(i),
        parentUuid: i === 0 ? null : uuidOf(i - 1),
        sessionId: SESSION,
        message: { role: "user", content: `${i} ${filler}` }
      }
      fs.writeSync(fd, JSON.stringify(entry) + "\n")
    }
    fs.writeSync(fd, JSON.stringify({ type: "ai-title", aiTitle: "A very large session", sessionId: SESSION }) + "\n")
    fs.closeSync(fd)
    expect(fs.statSync(path.join(dir, `${SESSION}.jsonl`)).size).toBeGreaterThan(530_000_000)
    // half a gigabyte written: seconds alone, more beside other test files
  }, 120_000)
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  const run = <A, E>(f: (projects: ClaudeProjects) => Effect.Effect<A, E>): Promise<A> =>
    Effect.runPromise(Effect.flatMap(ClaudeProjects, f).pipe(Effect.provide(layerNode({ configDir }))))

  it("lists it with its metadata and reads every entry", async () => {
    const [info] = await run((projects) => projects.listSessions(PROJECT))
    expect(info?.title).toBe("A very large session")
    expect(info?.firstPrompt?.startsWith("0 xxx")).toBe(true)
    const read = await run((projects) => projects.readSession(PROJECT, SESSION))
    expect(read.errors).toEqual([])
    expect(read.entries).toHaveLength(LINES + 1)
    expect(read.entries.at(-2)?.uuid).toBe(uuidOf(LINES - 1))
  }, 120_000)

  it("the Claude-layout store loads it and appends to it, uuid-idempotently", async () => {
    const store = createClaudeProjectsSessionStore({ configDir })
    const key = { projectKey: PROJECT, sessionId: SESSION }
    // no load before the appends: every full read of half a gigabyte costs seconds, and the load
    // after them shows the same (every entry there, in order, and the new one once)
    const extra = { type: "user", uuid: uuidOf(LINES), message: { role: "user", content: "one more" } }
    await store.append(key, [extra])
    await store.append(key, [extra])
    const loaded = (await store.load(key)) ?? []
    expect(loaded).toHaveLength(LINES + 2)
    expect(loaded.at(-3)?.uuid).toBe(uuidOf(LINES - 1))
    expect(loaded.at(-1)).toEqual(extra)
    await store.close()
  }, 120_000)
})
