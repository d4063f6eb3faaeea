/**
 * `acx show` as a reader meets it: a subagent opens from the CLI (its id on its own, the ids the
 * Markdown footer lists, or `--agent` under its session); `--uuids` puts each message's uuid in
 * the Markdown, and `acx fork --at` takes one as it is; Claude Code's command markup reads as the
 * command and its output (no tags, no terminal escapes), and a session that starts with `/clear`
 * is titled by its first real prompt, in `acx show` and `acx sessions` alike. In process: none of
 * it is about the process.
 */
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

let dir: string
let built: Fixtures.BuiltConfigDir
let env: Record<string, string>

beforeAll(() => {
  dir = tempDir("show")
  built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
  env = { ACX_HOME: path.join(dir, "home"), CLAUDE_CONFIG_DIR: built.configDir }
})

afterAll(() => removeDir(dir))

const show = (...args: Array<string>) => acxInProcess(["show", ...args, "--config-dir", built.configDir], { env })
const withSubagents = () => built.sessions.find((session) => session.subagents.length > 0)!
const bySource = (end: string) => built.sessions.find((session) => session.source.endsWith(end))!

describe.concurrent("acx show", () => {
  it(
    "opens a subagent by the id its session's footer lists, or by a prefix of it",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const session = withSubagents()
      const main = await show(session.sessionId.slice(0, 8))
      expect(main.code).toBe(0)
      const footer = /\*(\d+) subagent transcripts?: ([^*]+)\*/.exec(main.stdout)
      expect(footer).not.toBeNull()
      const ids = footer![2]!.split(", ")
      expect(ids).toEqual(session.subagents.map((agent) => agent.agentId))
      for (const id of ids) {
        const opened = await show(id)
        expect(opened.stderr).toBe("")
        expect(opened.code).toBe(0)
        expect(opened.stdout).toMatch(
          new RegExp(`^# Subagent ${id} \\(Explore: .*\\) of session ${session.sessionId}\\n`)
        )
        // the subagent's own conversation, the same under its session with --agent
        const under = await show(session.sessionId, "--agent", id)
        expect(under.stdout).toBe(opened.stdout)
        expect(opened.stdout).not.toBe(main.stdout)
        expect(opened.stdout.match(/^### Assistant/gm)?.length ?? 0).toBeGreaterThan(0)
      }
      expect((await show("a881341")).stdout).toContain("What is the output contract for Claude Code hooks")
      const prefix = await show(ids[0]!.slice(0, 5))
      expect(prefix.code).toBe(0)
      expect(prefix.stdout.split("\n")[0]).toContain(`Subagent ${ids[0]}`)
      // --agent under its session, the JSONL as written
      const jsonl = await show(session.sessionId, "--agent", ids[0]!, "-f", "jsonl")
      expect(jsonl.code).toBe(0)
      const source = session.subagents.find((agent) => agent.agentId === ids[0])!.file
      expect(jsonl.stdout.trim().split("\n").length).toBe(fs.readFileSync(source, "utf8").trim().split("\n").length)
      // the Anthropic messages of the subagent's own conversation
      const messages = parseJson<Array<{ role: string }>>(await show(ids[0]!, "-f", "anthropic"))
      expect(messages.length).toBeGreaterThan(1)
      expect(messages[0]!.role).toBe("user")
    }
  )

  it("says in one line when the subagent is not there", { timeout: TEST_TIMEOUT_MS }, async () => {
    const session = withSubagents()
    const missing = await show(session.sessionId, "--agent", "zzzz9")
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.stderrLines).toEqual([
      `acx: no subagent zzzz9 in session ${session.sessionId} (its subagents: ${
        session.subagents.map((agent) => agent.agentId).join(", ")
      })`
    ])
    const none = await show("zzzz9")
    expect(none.code).toBe(1)
    expect(none.stderrLines).toEqual([`acx: no session or subagent zzzz9 in ${path.join(built.configDir, "projects")}`])
    const bad = await show(session.sessionId, "--agent", "../x")
    expect(bad.code).toBe(2)
    expect(bad.stderrLines).toHaveLength(1)
  })

  it("an agent id two sessions share is ambiguous, in one line; --agent under a session settles it", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const own = path.join(dir, "own")
    const copy = Fixtures.buildClaudeConfigDir(own)
    const source = copy.sessions.find((session) => session.subagents.length > 0)!
    const other = copy.sessions.find((session) => session.subagents.length === 0)!
    const twin = path.join(path.dirname(other.file), other.sessionId, "subagents")
    fs.mkdirSync(twin, { recursive: true })
    fs.copyFileSync(source.subagents[0]!.file, path.join(twin, path.basename(source.subagents[0]!.file)))
    const id = source.subagents[0]!.agentId
    const run = (...args: Array<string>) => acxInProcess(["show", ...args, "--config-dir", own], { env })
    const both = await run(id)
    expect(both.code).toBe(1)
    expect(both.stdout).toBe("")
    expect(both.stderrLines).toHaveLength(1)
    expect(both.stderrLines[0]).toMatch(
      new RegExp(`^acx: ${id} matches 2 subagents \\(.*\\); pass the session and --agent$`)
    )
    const settled = await run(other.sessionId, "--agent", id)
    expect(settled.code).toBe(0)
    expect(settled.stdout.split("\n")[0]).toContain(`of session ${other.sessionId}`)
  })

  it("--uuids gives each message's uuid, and acx fork --at takes it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const session = bySource("tomjnsn-agentlogs/crud.jsonl")
    const plainMd = await show(session.sessionId)
    expect(plainMd.stdout).not.toMatch(/ · uuid `/)
    const md = await show(session.sessionId, "--uuids")
    expect(md.code).toBe(0)
    const headings = md.stdout.split("\n").filter((line) => line.startsWith("### "))
    expect(headings.length).toBeGreaterThan(3)
    for (const heading of headings) expect(heading).toMatch(/ · uuid `[0-9a-f-]{36}`$/)
    const uuids = headings.map((heading) => /uuid `([0-9a-f-]{36})`$/.exec(heading)![1]!)
    const written = new Set(
      fs.readFileSync(session.file, "utf8").trim().split("\n").map((line) =>
        (JSON.parse(line) as { uuid?: string }).uuid
      )
    )
    for (const uuid of uuids) expect(written.has(uuid)).toBe(true)
    // fork at the third message: the fork's Markdown ends with that message
    const at = uuids[2]!
    const forked = await acxInProcess([
      "fork",
      session.sessionId,
      "--at",
      at,
      "--json",
      "--config-dir",
      built.configDir
    ], {
      env
    })
    expect(forked.code).toBe(0)
    const fork = parseJson<{ sessionId: string }>(forked)
    const forkMd = await show(fork.sessionId)
    expect(forkMd.code).toBe(0)
    const forkHeadings = forkMd.stdout.split("\n").filter((line) => line.startsWith("### "))
    expect(forkHeadings).toHaveLength(3)
    expect(forkHeadings.map((heading) => heading.split(" · ")[0])).toEqual(
      headings.slice(0, 3).map((heading) => heading.split(" · ")[0])
    )
  })

  it("reads Claude Code's command markup and titles a /clear session by its first real prompt", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = bySource("tomjnsn-agentlogs/compact.jsonl")
    const md = await show(session.sessionId)
    expect(md.code).toBe(0)
    expect(md.stdout).not.toMatch(/<\/?(command-name|command-message|command-args|local-command-stdout)>/)
    expect(md.stdout).not.toContain("\u001b")
    expect(md.stdout).toContain("### Command")
    expect(md.stdout).toContain("`/compact`")
    expect(md.stdout).toContain("```\nCompacted (ctrl+o to see full summary)\n```")
    const title = md.stdout.split("\n")[0]!
    expect(title).not.toBe("# /clear")
    expect(title).toBe("# how are you doing")
    const listed = await acxInProcess(["sessions", "--json", "--config-dir", built.configDir], { env })
    const row = parseJson<Array<{ sessionId: string; firstPrompt?: string }>>(listed).find((info) =>
      info.sessionId === session.sessionId
    )
    expect(row?.firstPrompt).toBe("how are you doing")
  })
})
