/**
 * The project index (`ProjectIndex`) the walk (`ConfigTree`) lists through: a warm walk lists no
 * directory whose `stat` still says what it said, asks nothing of a session with no directory,
 * and finds every change (a new session, a new subagent, a new session directory, a project
 * gone); a listing too young to be told apart from a later change is not kept; a corrupt or
 * foreign index is rebuilt, never trusted; only the projects listed anew are written back; two
 * processes writing it at once leave whole files that lose no entry.
 */
import { runAppendWorkers } from "@acx/testing/SessionStoreConcurrency"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ConfigTree from "../src/ConfigTree.js"
import * as PlainListing from "../src/PlainListing.js"
import * as ProjectIndex from "../src/ProjectIndex.js"

let root: string
let configDir: string
let projectsDir: string
let cacheDir: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-project-index-"))
  configDir = path.join(root, "config")
  projectsDir = path.join(configDir, "projects")
  cacheDir = path.join(root, "cache")
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

const transcript = (projectKey: string, n: number): string => {
  const file = path.join(projectsDir, projectKey, `${uuid(n)}.jsonl`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `{"n":${n}}\n`)
  return file
}

const subagent = (projectKey: string, n: number, agent: string): string => {
  const file = path.join(projectsDir, projectKey, uuid(n), "subagents", `agent-${agent}.jsonl`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, "{}\n")
  return file
}

// A walk through the index whose clock runs a minute ahead: the listings of the tree just written
// are kept (the racy window has its own test).
const indexedWalk = (now: () => number = () => Date.now() + 60_000) => {
  const walk: ConfigTree.Walk = {
    ...ConfigTree.walkOf(configDir),
    index: ProjectIndex.open(cacheDir, projectsDir, { now })
  }
  const files = PlainListing.walkedTranscripts(walk, undefined).map((item) => item.file)
  ConfigTree.saveIndex(walk)
  return { files, listed: walk.index!.listed, kept: walk.index!.kept, skipped: walk.skipped }
}

const plainWalk = () => PlainListing.walkedTranscripts(ConfigTree.walkOf(configDir), undefined).map((item) => item.file)

// Waits (on the clock, not for a set time) until a change made now gets a change time after
// every directory's under `projectsDir`: a coarse file-system clock would leave it equal otherwise.
const clockPastTree = async () => {
  const newest = (fs.readdirSync(projectsDir, { recursive: true, withFileTypes: true }) as Array<fs.Dirent>)
    .filter((entry) => entry.isDirectory())
    .map((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).ctimeMs)
    .reduce((a, b) => Math.max(a, b), fs.statSync(projectsDir).ctimeMs)
  const probe = path.join(root, "probe")
  await expect.poll(() => {
    fs.writeFileSync(probe, "")
    return fs.statSync(probe).ctimeMs > newest
  }, { interval: 2 }).toBe(true)
}

const projectFile = (projectKey: string) =>
  ProjectIndex.projectFileFor(ProjectIndex.indexDirFor(cacheDir, projectsDir), projectKey)

describe("ProjectIndex", () => {
  it("a warm walk lists no directory it still holds, and asks nothing of sessions without a directory", () => {
    for (let n = 0; n < 30; n++) transcript(n < 15 ? "-p-a" : "-p-b", n)
    subagent("-p-a", 3, "x")
    subagent("-p-b", 20, "y")
    const cold = indexedWalk()
    expect(cold.files).toEqual(plainWalk())
    // both projects and both subagents directories; the 28 sessions without a directory: none
    expect(cold.listed).toBe(4)
    const warm = indexedWalk()
    expect(warm.files).toEqual(cold.files)
    expect(warm.listed).toBe(0)
    // the two projects and the two subagents directories (the 28 sessions without a directory
    // are known from their project's listing to have none)
    expect(warm.kept).toBe(4)
  })

  it("finds every change: a new session, a grown session directory, a new subagent, a project gone", async () => {
    for (let n = 0; n < 4; n++) transcript("-p-a", n)
    transcript("-p-b", 10)
    subagent("-p-a", 1, "x")
    indexedWalk()
    const untouched = fs.statSync(projectFile("-p-b"))
    await clockPastTree()
    transcript("-p-a", 5)
    subagent("-p-a", 1, "y")
    subagent("-p-a", 2, "z")
    const changed = indexedWalk()
    expect(changed.files).toEqual(plainWalk())
    expect(changed.files.filter((file) => file.includes("agent-"))).toHaveLength(3)
    // -p-a's directory and its two subagents directories were listed again; -p-b's was not
    expect(changed.listed).toBe(3)
    const after = fs.statSync(projectFile("-p-b"))
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs])
    await clockPastTree()
    fs.rmSync(path.join(projectsDir, "-p-b"), { recursive: true })
    fs.rmSync(path.join(projectsDir, "-p-a", uuid(1)), { recursive: true })
    expect(indexedWalk().files).toEqual(plainWalk())
    expect(indexedWalk().listed).toBe(0)
  })

  it("keeps no listing too young to be told apart from a change in the same clock tick", () => {
    transcript("-p-a", 1)
    // the real clock: the directory was just written
    expect(indexedWalk(Date.now).listed).toBe(1)
    expect(indexedWalk(Date.now).listed).toBe(1)
    const kept = JSON.parse(fs.readFileSync(projectFile("-p-a"), "utf8")) as { listings: object }
    expect(kept.listings).toEqual({})
  })

  it("rebuilds a corrupt or foreign index, never trusting it", () => {
    const a = transcript("-p-a", 1)
    indexedWalk()
    const file = projectFile("-p-a")
    const good = JSON.parse(fs.readFileSync(file, "utf8")) as { listings: Record<string, unknown> }
    // a listing that says the directory is empty, with the directory's own stamp: only the
    // version or the project it names tells it from the real one
    const lying = { ...good.listings[""] as object, entries: [] }
    for (
      const garbage of [
        "{not json",
        "[]",
        JSON.stringify({ ...good, version: ProjectIndex.VERSION + 1, listings: { "": lying } }),
        JSON.stringify({ ...good, projectKey: "-p-other", listings: { "": lying } }),
        JSON.stringify({ ...good, projectsDir: "/elsewhere", listings: { "": lying } }),
        JSON.stringify({ ...good, listings: { "": { ...lying, entries: [[1, "f"]] } } })
      ]
    ) {
      fs.writeFileSync(file, garbage)
      const run = indexedWalk()
      expect(run.files).toEqual([a])
      expect(run.listed).toBe(1)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(good)
    }
  })

  it("two processes writing the index at once leave whole files that lose no entry", { timeout: 120_000 }, async () => {
    for (const projectKey of ["-p-a", "-p-b", "-p-c"]) transcript(projectKey, 100)
    const workers = 3
    await runAppendWorkers(new URL("./workers/projectIndexWorker.ts", import.meta.url), root, {
      workers,
      batches: 8,
      batchSize: 0
    })
    for (const projectKey of ["-p-a", "-p-b", "-p-c"]) {
      const kept = JSON.parse(fs.readFileSync(projectFile(projectKey), "utf8")) as { version: number }
      expect(kept.version).toBe(ProjectIndex.VERSION)
    }
    expect(fs.readdirSync(ProjectIndex.indexDirFor(cacheDir, projectsDir)).filter((name) => name.endsWith(".tmp")))
      .toEqual([])
    const warm = indexedWalk()
    expect(warm.listed).toBe(0)
    expect(warm.files).toEqual(plainWalk())
    // each project: its transcript, and each worker's transcript and subagent
    expect(warm.files).toHaveLength(3 * (1 + 2 * workers))
  })
})
