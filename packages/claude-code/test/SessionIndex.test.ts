/**
 * `SessionIndex`: metadata from the head and tail of each transcript equals a full read
 * (`SessionMetadata.sessionMetadata`) on every fixture transcript, at read windows from tiny
 * (every fixture read in pieces) to the default; the cases a head/tail reader must still get
 * right (a first prompt after many meta lines, one huge last line); the one it documents it
 * cannot (a title only in the unread middle) and how the cache's resume recovers it; and the
 * cache (keyed by path, size and mtime, kept under its own directory, corrupt → rebuilt).
 */
import * as SessionIndex from "@acx/claude-code/SessionIndex"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as Fixtures from "@acx/fixtures"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

let root = ""
let projectsDir = ""
let cacheDir = ""

const fullRead = (file: string): SessionMetadata.SessionMetadata =>
  SessionMetadata.sessionMetadata(parseTranscript(fs.readFileSync(file, "utf8")).entries.map((p) => p.entry))

const listed = (file: string): SessionIndex.IndexedFile => {
  const stat = fs.statSync(file)
  return { file, size: stat.size, mtime: stat.mtime.getTime() }
}

const indexed = (
  files: ReadonlyArray<string>,
  options: { readonly limits?: Partial<SessionIndex.ReadLimits>; readonly cache?: boolean } = {}
) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const index = yield* SessionIndex.make({
        projectsDir,
        cacheDir: options.cache === true ? cacheDir : undefined,
        limits: options.limits
      })
      return yield* index.metadata(files.map(listed))
    }).pipe(Effect.provide(NodeContext.layer))
  )

const line = (value: unknown) => `${JSON.stringify(value)}\n`
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()
const prompt = (text: string, n: number) =>
  line({ type: "user", message: { role: "user", content: text }, cwd: "/w", gitBranch: "main", timestamp: at(n) })
const meta = (n: number) =>
  line({ type: "user", isMeta: true, message: { role: "user", content: `meta ${n}` }, timestamp: at(n) })
const toolResult = (n: number, size: number) =>
  line({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "x".repeat(size) }] },
    timestamp: at(n)
  })

const write = (name: string, text: string): string => {
  const file = path.join(projectsDir, "-p", name)
  fs.writeFileSync(file, text)
  return file
}

describe("SessionIndex", () => {
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-session-index-"))
    projectsDir = path.join(root, "config", "projects")
    cacheDir = path.join(root, "acx-home", "cache")
    fs.mkdirSync(path.join(projectsDir, "-p"), { recursive: true })
  })

  afterAll(() => {
    if (root !== "") fs.rmSync(root, { recursive: true, force: true })
  })

  // small first windows: every fixture is read in many growing pieces from both ends
  const windows: ReadonlyArray<Partial<SessionIndex.ReadLimits>> = [{ window: 256 }, { window: 4096 }, {}]

  it("equals a full read on every fixture transcript, at every window", async () => {
    const files = Fixtures.transcriptFiles()
    const expected = files.map(fullRead)
    for (const limits of windows) {
      const got = await indexed(files, { limits })
      files.forEach((file, i) =>
        expect(got[i], `${Fixtures.relative(file)} ${JSON.stringify(limits)}`).toEqual(expected[i])
      )
    }
    // the fixtures exercise every field somewhere
    for (const field of ["title", "firstPrompt", "lastPrompt", "cwd", "gitBranch", "startTime", "lastTime"] as const) {
      expect(expected.some((m) => m[field] !== undefined), field).toBe(true)
    }
  })

  it("finds a first prompt after many meta lines, and the last time behind one huge last line", async () => {
    let text = ""
    for (let i = 0; i < 2_000; i++) text += meta(i)
    text += prompt("the real question", 2_000)
    for (let i = 0; i < 200; i++) text += toolResult(2_001 + i, 500)
    text += prompt("last question", 3_000)
    text += toolResult(3_001, 3 * 1024 * 1024)
    const file = write("11111111-1111-4111-8111-111111111111.jsonl", text)
    const [got] = await indexed([file])
    expect(got).toEqual(fullRead(file))
    expect(got).toMatchObject({ firstPrompt: "the real question", lastPrompt: "last question", lastTime: at(3_001) })
  })

  it("a first line longer than many reads is joined once its end comes: the prompt after it is found", async () => {
    const text = toolResult(1, 3 * 1024 * 1024) + prompt("after the long line", 2) + prompt("then this", 3)
    const file = write("33333333-3333-4333-8333-333333333333.jsonl", text)
    for (const limits of windows) {
      const [got] = await indexed([file], { limits })
      expect(got, JSON.stringify(limits)).toEqual(fullRead(file))
      expect(got).toMatchObject({ firstPrompt: "after the long line", lastPrompt: "then this" })
    }
    // unterminated: the whole file is one pending line, folded at the end
    const torn = write("44444444-4444-4444-8444-444444444444.jsonl", prompt("only one", 1).trimEnd())
    expect((await indexed([torn], { limits: { window: 4 } }))[0]).toEqual(fullRead(torn))
  })

  it("a torn last line is skipped as a full read skips it", async () => {
    const text = prompt("one", 1) + toolResult(2, 200_000) + prompt("two", 3) + "{\"type\":\"user\",\"mess"
    const file = write("22222222-2222-4222-8222-222222222222.jsonl", text)
    const [got] = await indexed([file])
    expect(got).toEqual(fullRead(file))
    expect(got!.lastPrompt).toBe("two")
  })

  it("documented: a title only in the unread middle of a large file is not found cold; a cached read resumed over the appended lines finds it", async () => {
    const name = "33333333-3333-4333-8333-333333333333.jsonl"
    let text = prompt("start", 0)
    for (let i = 0; i < 300; i++) text += toolResult(1 + i, 4_000)
    const file = write(name, text)
    const before = await indexed([file], { cache: true })
    expect(before[0]!.title).toBeUndefined()
    // the session goes on: renamed, then 1.2 MB more (the title ends up in the middle)
    let more = line({ type: "custom-title", customTitle: "Renamed", sessionId: "s" })
    for (let i = 0; i < 300; i++) more += toolResult(400 + i, 4_000)
    more += prompt("end", 800)
    fs.appendFileSync(file, more)
    expect(fullRead(file).title).toBe("Renamed")
    const cold = await indexed([file])
    expect(cold[0]!.title).toBeUndefined()
    const resumed = await indexed([file], { cache: true })
    expect(resumed[0]).toEqual(fullRead(file))
  })

  it("serves unchanged files from the cache (path, size, mtime), rereads changed ones, rebuilds a corrupt cache", async () => {
    const file = write("44444444-4444-4444-8444-444444444444.jsonl", prompt("cached prompt", 1))
    const configBefore = fs.readdirSync(path.join(root, "config"), { recursive: true }).map(String).sort()
    expect((await indexed([file], { cache: true }))[0]!.firstPrompt).toBe("cached prompt")
    const cacheFile = SessionIndex.cacheFileFor(cacheDir, projectsDir)
    expect(fs.existsSync(cacheFile)).toBe(true)
    // nothing is written into the config directory
    expect(fs.readdirSync(path.join(root, "config"), { recursive: true }).map(String).sort()).toEqual(configBefore)

    // same size and mtime: the cache answers without reading the file
    const stat = fs.statSync(file)
    fs.writeFileSync(file, prompt("edited prompt", 1))
    fs.utimesSync(file, stat.atime, stat.mtime)
    expect((await indexed([file], { cache: true }))[0]!.firstPrompt).toBe("cached prompt")

    // a new mtime: read again
    fs.utimesSync(file, stat.atime, new Date(stat.mtime.getTime() + 5_000))
    expect((await indexed([file], { cache: true }))[0]!.firstPrompt).toBe("edited prompt")

    // a rewrite that grew the file (the bytes before the last indexed line changed): not resumed
    fs.writeFileSync(file, prompt("rewritten", 1) + prompt("and more", 2))
    expect((await indexed([file], { cache: true }))[0]).toEqual(fullRead(file))

    for (
      const garbage of [
        "{not json",
        "[]",
        JSON.stringify({ version: 1, projectsDir, files: { [file]: { size: "x" } } })
      ]
    ) {
      fs.writeFileSync(cacheFile, garbage)
      expect((await indexed([file], { cache: true }))[0]).toEqual(fullRead(file))
      const rebuilt = JSON.parse(fs.readFileSync(cacheFile, "utf8")) as { files: Record<string, unknown> }
      expect(Object.keys(rebuilt.files)).toContain(file)
    }
  })

  it("drops the entries of files no longer listed", async () => {
    const a = write("55555555-5555-4555-8555-555555555555.jsonl", prompt("a", 1))
    const b = write("66666666-6666-4666-8666-666666666666.jsonl", prompt("b", 1))
    await indexed([a, b], { cache: true })
    await indexed([a], { cache: true })
    const cache = JSON.parse(fs.readFileSync(SessionIndex.cacheFileFor(cacheDir, projectsDir), "utf8")) as {
      files: Record<string, unknown>
    }
    expect(Object.keys(cache.files)).toEqual([a])
  })
})
