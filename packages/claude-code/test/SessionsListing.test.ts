/**
 * The one listing of a config directory's sessions (`PlainListing.sessionsListing` /
 * `walkedSessions`), which `ClaudeProjects.listSessions` calls: the same sessions and metadata,
 * the same paths left out with the same words (a link out of the config directory, a FIFO named
 * like a transcript, a directory named like one), `followSymlinks`, one project, and the failures
 * (a project not there). And the warning words of `ListingWarnings`.
 */
import { ClaudeProjects, layerNode, type SkippedPath } from "@acx/claude-code/ClaudeProjects"
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionIndexCache from "@acx/claude-code/SessionIndexCache"
import * as Fixtures from "@acx/fixtures"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

let root: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sessions-listing-"))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

/** What ClaudeProjects lists (rows as `acx sessions` prints them) and what it told `onSkipped`. */
const full = (configDir: string, options: { project?: string; followSymlinks?: boolean; cacheDir: string }) => {
  const skipped: Array<SkippedPath> = []
  return Effect.runPromise(
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects
      const listed = yield* Effect.either(projects.listSessions(options.project))
      return Either.map(listed, (sessions) => ListingRows.rows(sessions, ProjectOrigin.originsOfSessions(sessions)))
    }).pipe(Effect.provide(layerNode({
      configDir,
      cacheDir: options.cacheDir,
      followSymlinks: options.followSymlinks === true,
      onSkipped: (item) => Effect.sync(() => void skipped.push(item))
    })))
  ).then((rows) => ({ rows, skipped }))
}

const expectSame = async (
  configDir: string,
  options: { project?: string; followSymlinks?: boolean } = {}
) => {
  // each side with its own cache: both read every transcript
  const expected = await full(configDir, { ...options, cacheDir: path.join(root, "cache-full") })
  const plain = PlainListing.sessionsListing(configDir, { ...options, cacheDir: path.join(root, "cache-plain") })
  expect(plain.skipped).toEqual(expected.skipped)
  if (Either.isLeft(expected.rows)) {
    expect(plain.failure?.reason).toBe(expected.rows.left.reason)
    expect(plain.failure?.description).toBe(expected.rows.left.description)
    expect(plain.rows).toEqual([])
  } else {
    expect(plain.failure).toBeUndefined()
    expect(plain.rows).toEqual(expected.rows.right)
  }
  // the listing kept per project (`build` given): the same answer cold and warm
  for (const run of ["cold", "warm"]) {
    const kept = PlainListing.sessionsListing(configDir, { ...options, cacheDir: path.join(root, "cache-kept"), build })
    expect({ run, skipped: kept.skipped }).toEqual({ run, skipped: plain.skipped })
    expect({ run, failure: kept.failure }).toEqual({ run, failure: plain.failure })
    expect({ run, rows: kept.rows }).toEqual({ run, rows: plain.rows })
  }
  return plain
}

const build = "test-build"

// each project's kept rows file and its identity (inode, mtime)
const keptFiles = (cacheDir: string) => {
  const dir = fs.readdirSync(cacheDir).find((name) => name.startsWith("listing-"))!
  return new Map(
    fs.readdirSync(path.join(cacheDir, dir)).filter((name) => name.endsWith(".rows.json")).map((name) => {
      const stat = fs.statSync(path.join(cacheDir, dir, name))
      return [name, `${stat.ino}:${stat.mtimeMs}`]
    })
  )
}

describe("PlainListing.sessionsListing", () => {
  it("lists the fixtures with their metadata as ClaudeProjects.listSessions does, and caches them", async () => {
    const { configDir } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const plain = await expectSame(configDir)
    expect(plain.rows.length).toBeGreaterThan(0)
    expect(plain.rows.some((row) => row.firstPrompt !== undefined)).toBe(true)
    const cacheFile = SessionIndexCache.cacheFileFor(path.join(root, "cache-plain"), path.join(configDir, "projects"))
    expect(SessionIndexCache.loadCache(cacheFile, path.join(configDir, "projects")).size).toBe(plain.rows.length)
    // warm: the same answer from the cache
    expect(PlainListing.sessionsListing(configDir, { cacheDir: path.join(root, "cache-plain") }).rows)
      .toEqual(plain.rows)
  })

  it("leaves out a link out of the config directory, a FIFO and a directory named like transcripts, with the same words", async () => {
    const { configDir, sessions } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const projectDir = path.dirname(sessions[0]!.file)
    const outside = path.join(root, "outside.jsonl")
    fs.copyFileSync(sessions[0]!.file, outside)
    fs.symlinkSync(outside, path.join(projectDir, "11111111-1111-4111-8111-111111111111.jsonl"))
    execFileSync("mkfifo", [path.join(projectDir, "22222222-2222-4222-8222-222222222222.jsonl")])
    fs.mkdirSync(path.join(projectDir, "33333333-3333-4333-8333-333333333333.jsonl"))
    const plain = await expectSame(configDir)
    expect(plain.skipped.map((item) => item.reason).sort()).toEqual(["Directory", "NotAFile", "Symlink"])
    const link = plain.skipped.find((item) => item.reason === "Symlink")!
    expect(ListingWarnings.skippedWarning(link)).toMatch(
      /^acx: warning: skipped .*: .* \(--follow-symlinks reads it\)$/
    )
    // followed: the linked transcript is listed, nothing said about it
    const followed = await expectSame(configDir, { followSymlinks: true })
    expect(followed.skipped.some((item) => item.reason === "Symlink")).toBe(false)
    expect(followed.rows.length).toBe(plain.rows.length + 1)
  })

  it("lists one project, and fails as ClaudeProjects does on a project that is not there", async () => {
    const { configDir, sessions } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const one = await expectSame(configDir, { project: sessions[0]!.projectKey })
    expect(new Set(one.rows.map((row) => row.projectKey))).toEqual(new Set([sessions[0]!.projectKey]))
    const missing = await expectSame(configDir, { project: "-no-such-project" })
    expect(missing.failure?.reason).toBe("NotFound")
  })

  it("a transcript gone since it was listed is listed without metadata, said once, and not cached", () => {
    const { configDir, sessions } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const projectsDir = path.join(configDir, "projects")
    const cacheFile = path.join(root, "cache", "sessions.json")
    const gone = { file: path.join(path.dirname(sessions[0]!.file), "gone.jsonl"), size: 10, mtime: 1 }
    const listed = [{ file: sessions[0]!.file, size: fs.statSync(sessions[0]!.file).size, mtime: 1 }, gone]
    const run = SessionIndexCache.indexFiles({ projectsDir, cacheFile }, listed)
    if (run.failure !== undefined) throw new Error("unexpected failure")
    expect(run.unread).toEqual([{ file: gone.file, description: "not found" }])
    expect(run.metadata[1]).toEqual({})
    expect([...SessionIndexCache.loadCache(cacheFile, projectsDir).keys()]).toEqual([sessions[0]!.file])
  })
})

describe("PlainListing.sessionsListing, rows kept per project", () => {
  it("after a change in one project, rebuilds only its rows; the output is a cold run's", () => {
    const { configDir, sessions } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const cacheDir = path.join(root, "cache-kept")
    const projectKeys = new Set(sessions.map((session) => session.projectKey))
    expect(projectKeys.size).toBeGreaterThan(1)
    PlainListing.sessionsListing(configDir, { cacheDir, build })
    const before = keptFiles(cacheDir)
    expect(before.size).toBe(projectKeys.size)
    // a new session in the first project, newer than every other
    const changed = sessions[0]!
    const added = path.join(path.dirname(changed.file), "44444444-4444-4444-8444-444444444444.jsonl")
    fs.copyFileSync(changed.file, added)
    const warm = PlainListing.sessionsListing(configDir, { cacheDir, build })
    const cold = PlainListing.sessionsListing(configDir, { cacheDir: path.join(root, "cache-cold") })
    expect(warm.rows).toEqual(cold.rows)
    expect(warm.rows.some((row) => row.file === added)).toBe(true)
    const after = keptFiles(cacheDir)
    const rewritten = [...after].filter(([name, identity]) => before.get(name) !== identity)
    expect(rewritten).toHaveLength(1)
    // and with --limit: the first rows of the same order
    expect(PlainListing.sessionsListing(configDir, { cacheDir, build, limit: 2 }).rows).toEqual(cold.rows.slice(0, 2))
  })

  it("a corrupt, foreign or stale rows file is not trusted: the project is listed again", () => {
    const { configDir } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const cacheDir = path.join(root, "cache-kept")
    const expected = PlainListing.sessionsListing(configDir, { cacheDir, build }).rows
    const dir = path.join(cacheDir, fs.readdirSync(cacheDir).find((name) => name.startsWith("listing-"))!)
    const files = fs.readdirSync(dir).filter((name) => name.endsWith(".rows.json"))
    const [first, second, third] = files.map((name) => path.join(dir, name))
    fs.writeFileSync(first!, "{not json")
    // another project's rows under this one's name
    if (second !== undefined && third !== undefined) fs.copyFileSync(third, second)
    expect(PlainListing.sessionsListing(configDir, { cacheDir, build }).rows).toEqual(expected)
    // another build's rows are not this build's
    const other = PlainListing.sessionsListing(configDir, { cacheDir, build: "another-build" }).rows
    expect(other).toEqual(expected)
    expect(keptFiles(cacheDir).size).toBe(files.length)
  })
})

// a user line at `timestamp` appended to a transcript (created when absent)
const writeTranscript = (configDir: string, projectKey: string, sessionId: string, timestamp: string) => {
  const dir = path.join(configDir, "projects", projectKey)
  fs.mkdirSync(dir, { recursive: true })
  const line = {
    type: "user",
    uuid: `u-${sessionId}`,
    sessionId,
    timestamp,
    cwd: `/home/dev/${projectKey}`,
    message: { role: "user", content: `prompt of ${sessionId}` }
  }
  fs.appendFileSync(path.join(dir, `${sessionId}.jsonl`), `${JSON.stringify(line)}\n`)
}

describe("PlainListing.sessionsListing, rows as they become certain", () => {
  it("hands on the newest project's rows before the last project is checked", () => {
    const configDir = path.join(root, "claude")
    const cacheDir = path.join(root, "cache-kept")
    writeTranscript(configDir, "-a", "aaaaaaaa-0000-4000-8000-000000000001", "2026-11-03T10:00:00.000Z")
    writeTranscript(configDir, "-a", "aaaaaaaa-0000-4000-8000-000000000002", "2026-11-03T09:00:00.000Z")
    writeTranscript(configDir, "-b", "bbbbbbbb-0000-4000-8000-000000000001", "2026-11-02T10:00:00.000Z")
    writeTranscript(configDir, "-c", "cccccccc-0000-4000-8000-000000000001", "2026-11-01T10:00:00.000Z")
    PlainListing.sessionsListing(configDir, { cacheDir, build })
    // a change in the oldest project: it is checked first, then the others newest first
    writeTranscript(configDir, "-c", "cccccccc-0000-4000-8000-000000000002", "2026-10-01T10:00:00.000Z")
    const batches: Array<ReadonlyArray<ListingRows.ListedSession>> = []
    const seen: Array<{ projectKey: string; rows: number }> = []
    const listing = PlainListing.sessionsListing(configDir, {
      cacheDir,
      build,
      onProject: (projectKey) => seen.push({ projectKey, rows: batches.flat().length }),
      onRows: (rows) => batches.push(rows)
    })
    expect(seen).toEqual([{ projectKey: "-c", rows: 0 }, { projectKey: "-a", rows: 0 }, { projectKey: "-b", rows: 2 }])
    const cold = PlainListing.sessionsListing(configDir, { cacheDir: path.join(root, "cache-cold") })
    expect(batches.flat()).toEqual(cold.rows)
    expect(listing.rows).toEqual(cold.rows)
    expect(cold.rows.map((row) => row.sessionId.slice(0, 1))).toEqual(["a", "a", "b", "c", "c"])
  })

  it("corrupt or missing heads: every project is checked before any row is handed on, in order", () => {
    const configDir = path.join(root, "claude")
    const cacheDir = path.join(root, "cache-kept")
    writeTranscript(configDir, "-a", "aaaaaaaa-0000-4000-8000-000000000001", "2026-11-03T10:00:00.000Z")
    writeTranscript(configDir, "-b", "bbbbbbbb-0000-4000-8000-000000000001", "2026-11-02T10:00:00.000Z")
    const first = PlainListing.sessionsListing(configDir, { cacheDir, build })
    const dir = path.join(cacheDir, fs.readdirSync(cacheDir).find((name) => name.startsWith("listing-"))!)
    for (const heads of ["{not json", JSON.stringify({ version: 1, projectsDir: "/elsewhere", heads: {} })]) {
      fs.writeFileSync(path.join(dir, "heads.json"), heads)
      const seen: Array<number> = []
      let received = 0
      const again = PlainListing.sessionsListing(configDir, {
        cacheDir,
        build,
        onProject: () => seen.push(received),
        onRows: (rows) => received += rows.length
      })
      expect(seen).toEqual([0, 0])
      expect(again.rows).toEqual(first.rows)
    }
  })

  it("a transcript appended to since (newer than every kept head) is checked first and its row comes first", () => {
    const configDir = path.join(root, "claude")
    const cacheDir = path.join(root, "cache-kept")
    writeTranscript(configDir, "-a", "aaaaaaaa-0000-4000-8000-000000000001", "2026-11-03T10:00:00.000Z")
    writeTranscript(configDir, "-c", "cccccccc-0000-4000-8000-000000000001", "2026-11-01T10:00:00.000Z")
    PlainListing.sessionsListing(configDir, { cacheDir, build })
    writeTranscript(configDir, "-c", "cccccccc-0000-4000-8000-000000000001", "2026-11-05T10:00:00.000Z")
    const batches: Array<ReadonlyArray<ListingRows.ListedSession>> = []
    PlainListing.sessionsListing(configDir, { cacheDir, build, limit: 1, onRows: (rows) => batches.push(rows) })
    expect(batches.flat().map((row) => row.sessionId)).toEqual(["cccccccc-0000-4000-8000-000000000001"])
  })
})

describe("ListingWarnings", () => {
  it("words a skipped path, escaping what a terminal would run", () => {
    expect(ListingWarnings.skippedWarning({ path: "/a\u001b[2Jb", reason: "NotAFile", description: "a FIFO" }))
      .toBe("acx: warning: skipped /a?[2Jb: a FIFO")
    expect(ListingWarnings.skippedWarning({ path: "/l", reason: "Symlink", description: "outside" }))
      .toBe("acx: warning: skipped /l: outside (--follow-symlinks reads it)")
  })

  it("words malformed lines over files, the first five then how many more", () => {
    expect(ListingWarnings.malformedWarning([{ file: "/a", lines: 0 }])).toBeUndefined()
    const files = Array.from(
      { length: 7 },
      (_, i) => ({ file: `/f${i}`, lines: 1, firstOffset: i === 0 ? 12 : undefined })
    )
    expect(ListingWarnings.malformedWarning(files)).toBe(
      "acx: warning: 7 malformed lines skipped in 7 files: /f0 (1, first at byte 12), /f1 (1), /f2 (1), /f3 (1), /f4 (1) and 2 more"
    )
  })
})
