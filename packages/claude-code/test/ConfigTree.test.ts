/**
 * The one walk of a config directory (`@acx/claude-code/ConfigTree`), which `ClaudeProjects` lists
 * through and `PlainListing` answers from: on real trees, what it lists, what it leaves out with
 * which words (symbolic links inside and outside the config directory, `--follow-symlinks`,
 * directories and FIFOs named like transcripts or metadata, a link loop), and what stops it (a
 * missing or invalid project). `ClaudeProjects` tells the same paths to `onSkipped`, in the same
 * order, and `PlainListing` gives up exactly where the walk left something out or met a link.
 */
import { ClaudeProjects, layerNode, type SkippedPath } from "@acx/claude-code/ClaudeProjects"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as Fixtures from "@acx/fixtures"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ConfigTree from "../src/ConfigTree.js"

let root: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-config-tree-"))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const UUID = "0d3c4f3e-1111-4222-8333-444455556666"

// What ClaudeProjects lists and tells `onSkipped`, over the same tree.
const viaService = (configDir: string, followSymlinks = false) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const skipped: Array<SkippedPath> = []
      const projects = yield* Effect.provide(
        ClaudeProjects,
        layerNode({ configDir, followSymlinks, onSkipped: (path) => Effect.sync(() => skipped.push(path)) })
      )
      const files = yield* projects.listSessionFiles()
      return { files: files.map((file) => file.file), skipped }
    })
  )

const built = (name: string) => Fixtures.buildClaudeConfigDir(path.join(root, name))

describe("ConfigTree", () => {
  it("lists a plain tree as ClaudeProjects does, meets no link and leaves nothing out", async () => {
    const { configDir, sessions } = built("plain")
    const walk = ConfigTree.walkOf(configDir)
    const listed = ConfigTree.listedSessions(walk, undefined)
    expect(listed.map((session) => session.file).sort()).toEqual(sessions.map((session) => session.file).sort())
    expect(walk.skipped).toEqual([])
    expect(walk.links).toBe(0)
    expect((await viaService(configDir)).files).toEqual(listed.map((session) => session.file))
  })

  it("resolves links: inside the config directory listed, outside skipped with words, both with --follow-symlinks", async () => {
    const { configDir, sessions } = built("links")
    const project = path.dirname(sessions[0]!.file)
    const inside = path.join(project, `${UUID}.jsonl`)
    fs.symlinkSync(sessions[0]!.file, inside)
    const outsideFile = path.join(root, `${UUID.replace("0d3c", "aaaa")}.jsonl`)
    fs.writeFileSync(outsideFile, "")
    const outsideLink = path.join(project, path.basename(outsideFile))
    fs.symlinkSync(outsideFile, outsideLink)
    const outsideProject = path.join(root, "elsewhere")
    fs.mkdirSync(outsideProject)
    fs.symlinkSync(outsideProject, path.join(configDir, "projects", "-linked"))

    const walk = ConfigTree.walkOf(configDir)
    const files = ConfigTree.listedSessions(walk, undefined).map((session) => session.file)
    expect(files).toContain(inside)
    expect(files).not.toContain(outsideLink)
    expect(walk.links).toBe(3)
    expect(walk.skipped).toEqual([
      {
        path: path.join(configDir, "projects", "-linked"),
        reason: "Symlink",
        description: `a symbolic link to ${outsideProject}, outside the config directory ${configDir}`
      },
      {
        path: outsideLink,
        reason: "Symlink",
        description: `a symbolic link to ${outsideFile}, outside the config directory ${configDir}`
      }
    ])
    const service = await viaService(configDir)
    expect(service.files).toEqual(files)
    expect(service.skipped).toEqual(walk.skipped)
    expect(PlainListing.listSessions(configDir)).toBeUndefined()

    const followed = ConfigTree.walkOf(configDir, true)
    const all = ConfigTree.listedSessions(followed, undefined).map((session) => session.file)
    expect(all).toContain(outsideLink)
    expect(followed.skipped).toEqual([])
    expect((await viaService(configDir, true)).files).toEqual(all)
  })

  it("skips a directory or FIFO named like a transcript, and a FIFO named like metadata, each with words", async () => {
    const { configDir, sessions } = built("odd")
    const session = sessions[0]!
    const project = path.dirname(session.file)
    const dir = path.join(project, `${UUID}.jsonl`)
    fs.mkdirSync(dir)
    const fifo = path.join(project, `${UUID.replace("0d3c", "bbbb")}.jsonl`)
    execFileSync("mkfifo", [fifo])
    const subagents = path.join(project, session.sessionId, "subagents")
    fs.mkdirSync(subagents, { recursive: true })
    const metaFifo = path.join(subagents, "agent-x.meta.json")
    execFileSync("mkfifo", [metaFifo])
    fs.writeFileSync(path.join(subagents, "agent-x.jsonl"), "")

    const walk = ConfigTree.walkOf(configDir)
    ConfigTree.listedSessions(walk, undefined)
    expect(walk.skipped).toEqual(expect.arrayContaining([
      { path: dir, reason: "Directory", description: "a directory, not a transcript" },
      { path: fifo, reason: "NotAFile", description: "not a regular file (FIFO)" }
    ]))
    const agents = ConfigTree.subagentsUnder(walk, subagents)
    expect(agents).toEqual([{ agentId: "x", file: path.join(subagents, "agent-x.jsonl") }])
    expect(walk.skipped.at(-1)).toEqual({
      path: metaFifo,
      reason: "NotAFile",
      description: "not a regular file (FIFO)"
    })
    expect((await viaService(configDir)).skipped).toEqual(walk.skipped.slice(0, -1))
  })

  it("gives a plain reader nothing where only a FIFO named like metadata is left out", () => {
    const { configDir, sessions } = built("meta-fifo")
    const session = sessions[0]!
    const subagents = path.join(path.dirname(session.file), session.sessionId, "subagents")
    fs.mkdirSync(subagents, { recursive: true })
    execFileSync("mkfifo", [path.join(subagents, "notes.meta.json")])
    // the full path warns about it: the plain answer would print no warning
    expect(PlainListing.listTranscripts(configDir)).toBeUndefined()
  })

  it("walks a subagent directory met again through a link loop once", () => {
    const { configDir, sessions } = built("loop")
    const session = sessions[0]!
    const subagents = path.join(path.dirname(session.file), session.sessionId, "subagents")
    fs.mkdirSync(path.join(subagents, "nested"), { recursive: true })
    fs.writeFileSync(path.join(subagents, "nested", "agent-a.jsonl"), "")
    fs.symlinkSync(subagents, path.join(subagents, "nested", "again"))
    const walk = ConfigTree.walkOf(configDir)
    expect(ConfigTree.subagentsUnder(walk, subagents).map((agent) => agent.agentId)).toEqual(["a"])
  })

  it("fails for a project that is not there or a key that would leave the projects directory", () => {
    const { configDir } = built("missing")
    const failure = (projectKey: string) => {
      try {
        ConfigTree.listedSessions(ConfigTree.walkOf(configDir), projectKey)
      } catch (cause) {
        return cause instanceof ConfigTree.TreeFailure ? [cause.reason, cause.description] : cause
      }
      return undefined
    }
    expect(failure("-nowhere")).toEqual([
      "NotFound",
      `no project -nowhere in ${path.join(configDir, "projects")}`
    ])
    expect(failure("..")).toEqual(["PathEscape", "invalid project key: \"..\""])
    expect(failure("a/b")).toEqual(["PathEscape", "invalid project key: \"a/b\""])
    // no projects directory at all: nothing to list, no failure
    fs.rmSync(path.join(configDir, "projects"), { recursive: true })
    const walk = ConfigTree.walkOf(configDir)
    expect(ConfigTree.listedSessions(walk, undefined)).toEqual([])
  })

  it.skipIf(process.getuid?.() === 0)("skips a project directory the user may not list, with words", () => {
    const { configDir, sessions } = built("unreadable")
    const project = path.dirname(sessions[0]!.file)
    fs.chmodSync(project, 0)
    try {
      const walk = ConfigTree.walkOf(configDir)
      ConfigTree.listedSessions(walk, undefined)
      expect(walk.skipped).toContainEqual({ path: project, reason: "Unreadable", description: "permission denied" })
    } finally {
      fs.chmodSync(project, 0o755)
    }
  })
})
