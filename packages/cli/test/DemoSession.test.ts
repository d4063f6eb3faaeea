/**
 * The session `acx demo` generates must be one the real tools accept: our schema decodes every
 * line as a known entry, the SDK's own `getSessionMessages` / `listSessions` read it, and the
 * statistics are the hand-counted figures stated here.
 */
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { conversation } from "@acx/convert/Reconstruct"
import { sessionStats } from "@acx/convert/Stats"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as Transcript from "@acx/schema/Transcript"
import { getSessionMessages, listSessions } from "@anthropic-ai/claude-agent-sdk"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateDemoSession } from "../src/DemoSession.js"

const jsonl = (entries: ReadonlyArray<unknown>) => entries.map((entry) => JSON.stringify(entry) + "\n").join("")

describe("generateDemoSession", () => {
  it("writes only known, schema-valid entries with a consistent parent chain", () => {
    const session = generateDemoSession()
    for (const entries of [session.entries, session.subagent.entries]) {
      const parsed = parseTranscript(jsonl(entries))
      expect(parsed.errors).toEqual([])
      expect(parsed.entries).toHaveLength(entries.length)
      for (const { entry } of parsed.entries) {
        expect(Transcript.isKnown(entry), JSON.stringify(entry).slice(0, 120)).toBe(true)
        const strict = Transcript.decodeLineStrict(JSON.stringify(entry), 1)
        expect(strict._tag, JSON.stringify(entry).slice(0, 120)).toBe("Right")
      }
      const uuids = new Set(entries.flatMap((entry) => (typeof entry["uuid"] === "string" ? [entry["uuid"]] : [])))
      for (const entry of entries) {
        const parent = entry["parentUuid"]
        if (typeof parent === "string") expect(uuids.has(parent)).toBe(true)
      }
    }
    expect(session.projectKey).toBe(encodeProjectDir(session.cwd))
    expect(session.subagent.entries.every((entry) => entry["isSidechain"] === true)).toBe(true)
  })

  it("has the hand-counted statistics: last-fragment usage, every tool call, one subagent, one compaction", () => {
    const session = generateDemoSession()
    const stats = sessionStats([...session.entries, ...session.subagent.entries])
    // output tokens of each message's LAST fragment: main 180 + 95 + 120 + 30 + 45, subagent 40 + 35 + 60
    expect(stats.tokens.output).toBe(605)
    // input: main 4 + 6 + 5 + 4 + 4, subagent 3 + 3 + 3
    expect(stats.tokens.input).toBe(32)
    expect(stats.toolCalls).toEqual({ Bash: 2, Task: 1, Edit: 1, Grep: 1, Read: 1 })
    // assistant messages after merging: main 5, subagent 3 (the first main one spans 3 lines)
    expect(stats.messages.assistant).toBe(8)
    expect(stats.subagents).toBe(1)
    expect(stats.compactions).toBe(1)
  })

  it("is read by the SDK's own functions the way acx reads it", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-demo-session-")))
    const cwd = path.join(root, "project")
    fs.mkdirSync(cwd)
    const session = generateDemoSession({ cwd })
    const configDir = path.join(root, "config")
    const dir = path.join(configDir, "projects", session.projectKey)
    fs.mkdirSync(path.join(dir, session.sessionId, "subagents"), { recursive: true })
    fs.writeFileSync(path.join(dir, `${session.sessionId}.jsonl`), jsonl(session.entries))
    fs.writeFileSync(
      path.join(dir, session.sessionId, "subagents", `agent-${session.subagent.agentId}.jsonl`),
      jsonl(session.subagent.entries)
    )
    const previous = process.env["CLAUDE_CONFIG_DIR"]
    process.env["CLAUDE_CONFIG_DIR"] = configDir
    try {
      const sdkMessages = await getSessionMessages(session.sessionId, { dir: cwd })
      const items = conversation(session.entries as ReadonlyArray<Transcript.TranscriptEntry>)
      const lastBoundary = items.reduce((last, item, index) => (item.isCompactBoundary ? index : last), -1)
      expect(lastBoundary).toBeGreaterThan(0)
      const afterBoundary = items.slice(lastBoundary + 1).filter((item) =>
        (item.entry.type === "user" || item.entry.type === "assistant") && !item.isMeta
      ).map((item) => item.uuid)
      expect(sdkMessages.map((message) => message.uuid)).toEqual(afterBoundary)
      // acx keeps the history before the compaction too
      expect(items.slice(0, lastBoundary).length).toBeGreaterThan(5)

      const listed = await listSessions({ dir: cwd })
      expect(listed.map((info) => info.sessionId)).toEqual([session.sessionId])
      expect(listed[0]!.summary).toBe(session.title)
      expect(listed[0]!.gitBranch).toBe("fix/foo-test")
    } finally {
      if (previous === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
      else process.env["CLAUDE_CONFIG_DIR"] = previous
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})
