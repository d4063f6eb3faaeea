/**
 * PlainListing against ClaudeProjects on real trees: the fixtures' config directory (subagents
 * included), a tree with nested subagent directories, odd names and a FIFO (left out silently by
 * both), and trees it must give up on (a symbolic link, a directory named like a transcript, a
 * FIFO named like a subagent transcript, a session id that is a file where a directory is walked).
 */
import { ClaudeProjects, layerNode } from "@acx/claude-code/ClaudeProjects"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as Fixtures from "@acx/fixtures"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

let root: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-plain-listing-"))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

/** What the full path lists: the sessions (with size and mtime) and the transcripts stats folds. */
const full = (configDir: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects
      const sessions = (yield* projects.listSessions()).map(({ file, mtime, projectKey, sessionId, size }) => ({
        projectKey,
        sessionId,
        file,
        size,
        mtime
      }))
      return { sessions, transcripts: yield* SessionStats.transcriptFiles(projects, undefined) }
    }).pipe(Effect.provide(layerNode({ configDir })))
  )

const expectSame = async (configDir: string) => {
  const expected = await full(configDir)
  expect(PlainListing.listSessions(configDir)).toEqual(expected.sessions)
  expect(PlainListing.listTranscripts(configDir)).toEqual(expected.transcripts)
  return expected
}

describe("PlainListing", () => {
  it("lists the fixtures as ClaudeProjects does, subagents included", async () => {
    const { configDir } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const { transcripts } = await expectSame(configDir)
    expect(transcripts.some((item) => item.kind === "subagent")).toBe(true)
  })

  it("walks nested subagent directories in order and leaves out what ClaudeProjects leaves out silently", async () => {
    const { configDir, sessions } = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    const session = sessions[0]!
    const sub = path.join(path.dirname(session.file), session.sessionId, "subagents")
    fs.mkdirSync(path.join(sub, "b", "a"), { recursive: true })
    fs.writeFileSync(path.join(sub, "b", "a", "agent-deep.jsonl"), "")
    fs.writeFileSync(path.join(sub, "agent-.jsonl"), "")
    fs.writeFileSync(path.join(sub, "notes.txt"), "")
    execFileSync("mkfifo", [path.join(sub, "pipe")])
    fs.writeFileSync(path.join(path.dirname(session.file), "not-a-uuid.jsonl"), "")
    fs.writeFileSync(path.join(configDir, "projects", "a-file"), "")
    const { transcripts } = await expectSame(configDir)
    expect(transcripts.map((item) => path.basename(item.file))).toContain("agent-deep.jsonl")
  })

  it("is empty without a projects directory", async () => {
    fs.mkdirSync(path.join(root, "empty"))
    await expectSame(path.join(root, "empty"))
    expect(PlainListing.listTranscripts(path.join(root, "empty"))).toEqual([])
  })

  it("gives up where ClaudeProjects resolves a link, warns or fails", () => {
    const cases: ReadonlyArray<readonly [string, (configDir: string, session: Fixtures.BuiltSession) => void]> = [
      ["a linked transcript", (_, session) => {
        fs.renameSync(session.file, `${session.file}.real`)
        fs.symlinkSync(`${session.file}.real`, session.file)
      }],
      ["a linked project", (configDir) => {
        fs.symlinkSync(path.join(configDir, "projects", "marot-spotter"), path.join(configDir, "projects", "linked"))
      }],
      ["a directory named like a transcript", (_, session) => {
        fs.rmSync(session.file)
        fs.mkdirSync(session.file)
      }],
      ["a FIFO named like a subagent transcript", (_, session) => {
        const sub = path.join(path.dirname(session.file), session.sessionId, "subagents")
        fs.mkdirSync(sub, { recursive: true })
        execFileSync("mkfifo", [path.join(sub, "agent-x.jsonl")])
      }],
      ["a session directory that is a file", (_, session) => {
        fs.rmSync(path.join(path.dirname(session.file), session.sessionId), { recursive: true, force: true })
        fs.writeFileSync(path.join(path.dirname(session.file), session.sessionId), "")
      }]
    ]
    for (const [name, change] of cases) {
      const built = Fixtures.buildClaudeConfigDir(path.join(root, name.replaceAll(" ", "-")))
      change(built.configDir, built.sessions[0]!)
      expect(PlainListing.listTranscripts(built.configDir), name).toBeUndefined()
    }
  })
})
