/**
 * `ClaudeProjects` over a temp config dir holding copies of the shared Claude Code fixtures.
 */
import { ClaudeProjects, ClaudeProjectsError, layerNode } from "@acx/claude-code/ClaudeProjects"
import * as Fixtures from "@acx/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const MAROT = "258c7280-ae70-4798-800f-63464d01a85d"
const KIMUSON = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const TORN = "11111111-1111-4111-8111-111111111111"
const GARBAGE = "22222222-2222-4222-8222-222222222222"
const FRESH = "33333333-3333-4333-8333-333333333333"
const PROJECT = "-home-user-spotter"
const OTHER = "-path-to-Demo"

const src = path.join(Fixtures.fixturesDir, "claude-code-jsonl")
let root = ""
let configDir = ""

const snapshot = (dir: string): Array<string> =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map(String).sort()

const run = <A, E>(f: (projects: ClaudeProjects) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(Effect.flatMap(ClaudeProjects, f).pipe(Effect.provide(layerNode({ configDir }))))

const runEither = <A, E>(f: (projects: ClaudeProjects) => Effect.Effect<A, E>): Promise<Either.Either<A, E>> =>
  run((projects) => Effect.either(f(projects)))

const expectReason = (result: Either.Either<unknown, unknown>, reason: ClaudeProjectsError["reason"]) => {
  expect(Either.isLeft(result)).toBe(true)
  if (Either.isLeft(result)) {
    expect(result.left).toBeInstanceOf(ClaudeProjectsError)
    expect((result.left as ClaudeProjectsError).reason).toBe(reason)
  }
}

describe("ClaudeProjects", () => {
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-projects-"))
    configDir = path.join(root, "config")
    const project = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(project, { recursive: true })
    fs.copyFileSync(path.join(src, "marot-spotter", `${MAROT}.jsonl`), path.join(project, `${MAROT}.jsonl`))
    fs.cpSync(path.join(src, "marot-spotter", MAROT), path.join(project, MAROT), { recursive: true })
    fs.writeFileSync(
      path.join(project, MAROT, "subagents", "agent-a881341.meta.json"),
      JSON.stringify({ agentType: "Explore", description: "look around" })
    )
    const crud = fs.readFileSync(path.join(src, "tomjnsn-agentlogs", "crud.jsonl"), "utf8")
    fs.writeFileSync(path.join(project, `${TORN}.jsonl`), crud.trimEnd() + "\n{\"type\":\"user\",\"mess")
    fs.writeFileSync(
      path.join(project, `${GARBAGE}.jsonl`),
      Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 0x80, 0x81, 0x7b, 10, 0xc3, 0x28, 0, 10])
    )
    fs.writeFileSync(path.join(project, "not-a-session.jsonl"), "{}\n")
    const other = path.join(configDir, "projects", OTHER)
    fs.mkdirSync(other, { recursive: true })
    fs.copyFileSync(
      path.join(src, "d-kimuson-claude-code-viewer", `${KIMUSON}.jsonl`),
      path.join(other, `${KIMUSON}.jsonl`)
    )
  })

  afterAll(() => {
    if (root !== "") fs.rmSync(root, { recursive: true, force: true })
  })

  it("lists projects with session counts", async () => {
    const projects = await run((p) => p.listProjects())
    expect(projects.map((p) => [p.projectKey, p.sessions])).toEqual([[PROJECT, 3], [OTHER, 1]])
    expect(projects[0]!.path).toBe(path.join(configDir, "projects", PROJECT))
  })

  it("lists sessions with metadata from the files", async () => {
    const sessions = await run((p) => p.listSessions())
    expect(sessions.map((s) => s.sessionId).sort()).toEqual([KIMUSON, MAROT, TORN, GARBAGE].sort())
    const marot = sessions.find((s) => s.sessionId === MAROT)!
    expect(marot.projectKey).toBe(PROJECT)
    expect(marot.cwd).toBe("/home/USER/projects/spotter-worktrees/spotter-gqc")
    expect(marot.gitBranch).toBe("spotter-gqc")
    expect(marot.firstPrompt).toBeTypeOf("string")
    expect(marot.size).toBe(fs.statSync(marot.file).size)
    expect(marot.mtime).toBe(fs.statSync(marot.file).mtime.getTime())
    const kimuson = sessions.find((s) => s.sessionId === KIMUSON)!
    expect(kimuson.cwd).toBe("/path/to/Demo")
    expect(kimuson.gitBranch).toBe("main")
    expect(kimuson.firstPrompt).toContain("/orchestrator")
    const garbage = sessions.find((s) => s.sessionId === GARBAGE)!
    expect(garbage.cwd).toBeUndefined()
    const one = await run((p) => p.listSessions(OTHER))
    expect(one.map((s) => s.sessionId)).toEqual([KIMUSON])
  })

  it("lists session files without reading them, the same sessions as listSessions", async () => {
    const files = await run((p) => p.listSessionFiles())
    const sessions = await run((p) => p.listSessions())
    const key = (s: { projectKey: string; sessionId: string; file: string }) =>
      `${s.projectKey}/${s.sessionId}:${s.file}`
    expect(files.map(key).sort()).toEqual(sessions.map(key).sort())
    expect((await run((p) => p.listSessionFiles(OTHER))).map((s) => s.sessionId)).toEqual([KIMUSON])
    expectReason(await runEither((p) => p.listSessionFiles("../x")), "PathEscape")
  })

  it("takes the title from custom-title, else ai-title, else summary", async () => {
    const sid = "44444444-4444-4444-8444-444444444444"
    await run((p) =>
      p.appendEntries(OTHER, sid, [
        { type: "summary", summary: "S", leafUuid: sid },
        { type: "ai-title", aiTitle: "AI", sessionId: sid },
        { type: "last-prompt", lastPrompt: "LP", sessionId: sid }
      ])
    )
    let info = (await run((p) => p.listSessions(OTHER))).find((s) => s.sessionId === sid)!
    expect([info.title, info.lastPrompt]).toEqual(["AI", "LP"])
    await run((p) => p.appendEntries(OTHER, sid, [{ type: "custom-title", customTitle: "Mine", sessionId: sid }]))
    info = (await run((p) => p.listSessions(OTHER))).find((s) => s.sessionId === sid)!
    expect(info.title).toBe("Mine")
    await run((p) => p.deleteSession(OTHER, sid))
  })

  it("read and stream give the same entries", async () => {
    const read = await run((p) => p.readSession(PROJECT, MAROT))
    expect(read.errors).toEqual([])
    expect(read.entries.length).toBeGreaterThan(10)
    const streamed = await run((p) =>
      Stream.runCollect(p.streamSession(PROJECT, MAROT)).pipe(Effect.map(Chunk.toArray))
    )
    expect(streamed).toEqual(read.entries)
  })

  it("lists subagents with meta and reads them", async () => {
    const agents = await run((p) => p.listSubagents(PROJECT, MAROT))
    expect(agents.map((a) => a.agentId)).toEqual(["a881341", "acompact-fffbd0"])
    expect(agents[0]!.meta).toEqual({ agentType: "Explore", description: "look around" })
    expect(agents[1]!.meta).toBeUndefined()
    const read = await run((p) => p.readSubagent(PROJECT, MAROT, "a881341"))
    expect(read.errors).toEqual([])
    expect(read.entries.length).toBeGreaterThan(0)
    expectReason(await runEither((p) => p.readSubagent(PROJECT, MAROT, "nope")), "NotFound")
    expect(await run((p) => p.listSubagents(OTHER, KIMUSON))).toEqual([])
    const all = await run((p) => p.readSubagents(PROJECT, MAROT))
    expect(all.map((a) => [a.agentId, a.file, a.meta])).toEqual(agents.map((a) => [a.agentId, a.file, a.meta]))
    expect(all[0]!.entries).toEqual(read.entries)
    expect(all[1]!.entries.length).toBeGreaterThan(0)
  })

  it("appends complete lines and reads them back, then deletes", async () => {
    const entries = [
      { type: "custom-title", customTitle: "hello", sessionId: FRESH },
      { type: "user", message: { role: "user", content: "hi" }, uuid: KIMUSON, sessionId: FRESH, cwd: "/x" }
    ]
    await run((p) => p.appendEntries(PROJECT, FRESH, entries))
    await run((p) => p.appendEntries(PROJECT, FRESH, []))
    await run((p) => p.appendEntries(PROJECT, FRESH, [entries[0]!], "subagents/agent-zz"))
    const file = path.join(configDir, "projects", PROJECT, `${FRESH}.jsonl`)
    const text = fs.readFileSync(file, "utf8")
    expect(text.endsWith("\n")).toBe(true)
    expect(text.split("\n")).toHaveLength(3)
    const read = await run((p) => p.readSession(PROJECT, FRESH))
    expect(read.errors).toEqual([])
    expect(read.entries.map((e) => e.type)).toEqual(["custom-title", "user"])
    const agents = await run((p) => p.listSubagents(PROJECT, FRESH))
    expect(agents.map((a) => a.agentId)).toEqual(["zz"])
    const info = (await run((p) => p.listSessions(PROJECT))).find((s) => s.sessionId === FRESH)!
    expect([info.title, info.firstPrompt, info.cwd]).toEqual(["hello", "hi", "/x"])

    await run((p) => p.deleteSession(PROJECT, FRESH))
    expect(fs.existsSync(file)).toBe(false)
    expect(fs.existsSync(path.join(configDir, "projects", PROJECT, FRESH))).toBe(false)
    expectReason(await runEither((p) => p.readSession(PROJECT, FRESH)), "NotFound")
    await run((p) => p.deleteSession(PROJECT, FRESH))
  })

  it("forks a session into a new file of the same project, up to a chosen message", async () => {
    const original = await run((p) => p.readSession(PROJECT, MAROT))
    const whole = await run((p) => p.forkSession(PROJECT, MAROT))
    expect(whole.projectKey).toBe(PROJECT)
    expect(whole.sessionId).not.toBe(MAROT)
    expect(whole.file).toBe(path.join(configDir, "projects", PROJECT, `${whole.sessionId}.jsonl`))
    const forked = await run((p) => p.readSession(PROJECT, whole.sessionId))
    expect(forked.errors).toEqual([])
    expect(forked.entries).toHaveLength(whole.entries)
    const originalUuids = new Set(original.entries.flatMap((e) => (typeof e.uuid === "string" ? [e.uuid] : [])))
    for (const entry of forked.entries) {
      expect((entry as { readonly sessionId?: unknown }).sessionId).toBe(whole.sessionId)
      if (typeof entry.uuid === "string") expect(originalUuids.has(entry.uuid)).toBe(false)
    }
    expect(forked.entries.at(-1)).toMatchObject({ type: "custom-title", sessionId: whole.sessionId })

    const firstPrompt = original.entries.find((e) => e.type === "user" && typeof e.uuid === "string")!
    const early = await run((p) =>
      p.forkSession(PROJECT, MAROT, { upToUuid: firstPrompt.uuid as string, title: "early" })
    )
    expect(early.entries).toBeLessThan(whole.entries)
    const earlyRead = await run((p) => p.readSession(PROJECT, early.sessionId))
    expect(earlyRead.entries.at(-1)).toMatchObject({ type: "custom-title", customTitle: "early" })
    expect(earlyRead.entries.filter((e) => e.type === "user")).toHaveLength(1)

    const before = snapshot(root)
    expectReason(await runEither((p) => p.forkSession(PROJECT, MAROT, { upToUuid: "nope" })), "NotFound")
    expectReason(await runEither((p) => p.forkSession(PROJECT, "../x")), "InvalidSessionId")
    expect(snapshot(root)).toEqual(before)
    await run((p) =>
      Effect.zipRight(p.deleteSession(PROJECT, whole.sessionId), p.deleteSession(PROJECT, early.sessionId))
    )
  })

  it("rejects bad ids and paths with typed errors, writing nothing outside", async () => {
    const before = snapshot(root)
    for (const bad of ["../x", "a/b", "..", "", "not-a-uuid", `../${MAROT}`, `${MAROT}/..`]) {
      expectReason(await runEither((p) => p.readSession(PROJECT, bad)), "InvalidSessionId")
      expectReason(await runEither((p) => p.appendEntries(PROJECT, bad, [{ type: "x" }])), "InvalidSessionId")
      expectReason(await runEither((p) => p.deleteSession(PROJECT, bad)), "InvalidSessionId")
      expectReason(await runEither((p) => p.listSubagents(PROJECT, bad)), "InvalidSessionId")
    }
    for (const bad of ["../x", "a/b", "..", "a\\b", "", ".", " . ", "   "]) {
      expectReason(await runEither((p) => p.readSubagent(PROJECT, MAROT, bad)), "InvalidAgentId")
    }
    for (const bad of ["../x", "a/b", "..", "", "a..b", "/etc"]) {
      expectReason(await runEither((p) => p.readSession(bad, MAROT)), "PathEscape")
      expectReason(await runEither((p) => p.listSessions(bad)), "PathEscape")
      expectReason(await runEither((p) => p.appendEntries(bad, FRESH, [{ type: "x" }])), "PathEscape")
    }
    for (const bad of ["../../../escape", "/tmp/escape", "a/../../x", "", "subagents/"]) {
      expectReason(await runEither((p) => p.appendEntries(PROJECT, FRESH, [{ type: "x" }], bad)), "PathEscape")
    }
    const streamed = await runEither((p) => Stream.runCollect(p.streamSession(PROJECT, "../x")))
    expectReason(streamed, "InvalidSessionId")
    expect(snapshot(root)).toEqual(before)
    expect(fs.existsSync(path.join(root, "escape"))).toBe(false)
    expect(fs.existsSync("/tmp/escape.jsonl")).toBe(false)
  })

  it("reports a torn last line and binary garbage in errors, without throwing", async () => {
    const torn = await run((p) => p.readSession(PROJECT, TORN))
    expect(torn.entries.length).toBeGreaterThan(0)
    expect(torn.errors).toHaveLength(1)
    expect(torn.errors[0]!.description).toContain("torn")
    const streamed = await run((p) => Stream.runCollect(p.streamSession(PROJECT, TORN)).pipe(Effect.map(Chunk.toArray)))
    expect(streamed).toEqual(torn.entries)
    const garbage = await run((p) => p.readSession(PROJECT, GARBAGE))
    expect(garbage.entries).toEqual([])
    expect(garbage.errors.length).toBeGreaterThan(0)
    const garbageStream = await run((p) => Stream.runCollect(p.streamSession(PROJECT, GARBAGE)))
    expect(Chunk.size(garbageStream)).toBe(0)
  })
})
