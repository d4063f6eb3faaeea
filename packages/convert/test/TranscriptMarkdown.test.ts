import * as CommandMarkup from "@acx/convert/CommandMarkup"
import { mergeAssistantFragments } from "@acx/convert/Fragments"
import { conversation } from "@acx/convert/Reconstruct"
import { transcriptToMarkdown } from "@acx/convert/TranscriptMarkdown"
import * as Fixtures from "@acx/fixtures"
import { JsonValue } from "@acx/schema/Json"
import type * as Transcript from "@acx/schema/Transcript"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import * as path from "node:path"

const asEntries = (values: ReadonlyArray<unknown>) => values as ReadonlyArray<Transcript.TranscriptEntry>

const mainFiles = () => Fixtures.transcriptFiles().filter((file) => !file.includes(`${path.sep}subagents${path.sep}`))

const user = (uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) => ({
  type: "user",
  uuid,
  parentUuid,
  message: { role: "user", content },
  ...extra
})

const assistant = (uuid: string, parentUuid: string, id: string, block: unknown) => ({
  type: "assistant",
  uuid,
  parentUuid,
  requestId: `req-${id}`,
  message: { id, role: "assistant", model: "claude-x", content: [block] }
})

describe("transcriptToMarkdown", () => {
  it("renders prompts, merged assistant fragments, tool calls, results and thinking", () => {
    const entries = [
      user("u1", null, "Fix the test"),
      assistant("a1", "u1", "m1", { type: "thinking", thinking: "Look first.", signature: "s" }),
      assistant("a2", "a1", "m1", { type: "text", text: "Running it." }),
      assistant("a3", "a2", "m1", { type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }),
      user("u2", "a3", [{ type: "tool_result", tool_use_id: "t1", content: "1 failed", is_error: true }])
    ]
    const markdown = transcriptToMarkdown(asEntries(entries), { title: "Demo" })
    expect(markdown.startsWith("# Demo\n")).toBe(true)
    expect(markdown.match(/### Assistant/g)).toHaveLength(1)
    expect(markdown).toContain("### User")
    expect(markdown).toContain("> 💭 Look first.")
    expect(markdown).toContain("Running it.")
    expect(markdown).toContain("**🔧 Bash**")
    expect(markdown).toContain("\"command\": \"npm test\"")
    expect(markdown).toContain("### Tool result")
    expect(markdown).toContain("**↳ tool error**")
    expect(markdown.indexOf("Running it.")).toBeLessThan(markdown.indexOf("1 failed"))
    expect(transcriptToMarkdown(asEntries(entries), { includeThinking: false })).not.toContain("Look first")
  })

  it("marks compactions, collapses the summary, skips meta entries unless asked, clips long results", () => {
    const entries = [
      user("u1", null, "before"),
      user("m1", "u1", "<local-command-stdout>ok</local-command-stdout>", { isMeta: true }),
      {
        type: "system",
        subtype: "compact_boundary",
        uuid: "b1",
        parentUuid: null,
        logicalParentUuid: "m1",
        compactMetadata: { trigger: "auto", preTokens: 150000 }
      },
      user("s1", "b1", "Summary of the earlier part", { isCompactSummary: true }),
      user("u2", "s1", "after"),
      assistant("a1", "u2", "m9", { type: "tool_use", id: "t9", name: "Read", input: {} }),
      user("r1", "a1", [{ type: "tool_result", tool_use_id: "t9", content: "x".repeat(50) }])
    ]
    const markdown = transcriptToMarkdown(asEntries(entries), { maxToolResultChars: 10 })
    expect(markdown.indexOf("before")).toBeLessThan(
      markdown.indexOf("Conversation compacted (auto, 150000 tokens before)")
    )
    expect(markdown).toContain("<details><summary>Compaction summary</summary>")
    expect(markdown.indexOf("Summary of the earlier part")).toBeLessThan(markdown.indexOf("after"))
    expect(markdown).not.toContain("### Command output")
    // a meta command output, when asked for: read, not raw
    expect(transcriptToMarkdown(asEntries(entries), { includeMeta: true })).toContain(
      "### Command output\n\n```\nok\n```"
    )
    expect(markdown).toContain(`${"x".repeat(10)}\n… (40 more characters)`)
  })

  it("fences code so content with backticks cannot close the block", () => {
    const result = "before\n```\nnot the end\n````\nstill inside"
    const entries = [
      user("u1", null, "go"),
      assistant("a1", "u1", "m1", { type: "tool_use", id: "t1", name: "Bash", input: {} }),
      user("r1", "a1", [{ type: "tool_result", tool_use_id: "t1", content: result }])
    ]
    const markdown = transcriptToMarkdown(asEntries(entries))
    const fence = "`````"
    expect(markdown).toContain(`${fence}\n${result}\n${fence}`)
  })

  it("is total: any JSON in, a string out", () => {
    const json = Arbitrary.make(JsonValue)
    fc.assert(
      fc.property(
        fc.array(fc.oneof(json, fc.record({ type: fc.constantFrom("user", "assistant"), message: json }))),
        (values) => {
          expect(typeof transcriptToMarkdown(asEntries(values))).toBe("string")
        }
      ),
      { numRuns: 300 }
    )
    expect(transcriptToMarkdown(null as never)).toBe("\n")
  })

  it("renders every fixture's prompts, tool calls and compactions", () => {
    for (const file of mainFiles()) {
      const entries = asEntries(Fixtures.readJsonLines(file).map((line) => line.value))
      const markdown = transcriptToMarkdown(entries, { maxToolResultChars: 0 })
      const merged = mergeAssistantFragments(
        conversation(entries).filter((item) => !item.isSidechain).map((item) => item.entry)
      )
      const toolUses = merged.flatMap((entry) => {
        const content = (entry.message as { content?: unknown } | undefined)?.content
        return entry.type === "assistant" && Array.isArray(content)
          ? content.filter((block: { type?: unknown }) => block.type === "tool_use")
          : []
      })
      expect(markdown.match(/\*\*🔧 /g)?.length ?? 0, file).toBe(toolUses.length)
      const boundaries = merged.filter((entry) => entry.type === "system" && entry.subtype === "compact_boundary")
      expect(markdown.match(/\*Conversation compacted/g)?.length ?? 0, file).toBe(boundaries.length)
      for (const entry of merged) {
        const content = (entry.message as { content?: unknown } | undefined)?.content
        if (entry.type !== "user" || entry.isMeta === true || typeof content !== "string" || content.trim() === "") {
          continue
        }
        const markup = CommandMarkup.parse(content)
        if (markup === undefined) expect(markdown, file).toContain(content)
        else expect(markdown, file).toContain(CommandMarkup.plain(markup))
      }
      // Claude Code's markup is read: no tag, no terminal escape left
      expect(markdown, file).not.toMatch(/<\/?(command-name|command-message|local-command-std\w+)>|\u001b/)
    }
    expect(mainFiles().length).toBeGreaterThan(0)
  })

  it("shows Claude Code's command markup as the command typed and its output as text, no tags, no escapes", () => {
    const entries = [
      user(
        "c1",
        null,
        "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"
      ),
      user(
        "c2",
        "c1",
        "<local-command-stdout>\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m</local-command-stdout>"
      ),
      user("c3", "c2", "<local-command-stdout></local-command-stdout>"),
      user("c4", "c3", "<local-command-caveat>Caveat: local</local-command-caveat>", { isMeta: true }),
      user("c5", "c4", "Now the real question")
    ]
    const markdown = transcriptToMarkdown(asEntries(entries))
    expect(markdown).toContain("### Command\n\n`/compact`")
    expect(markdown).toContain("### Command output\n\n```\nCompacted (ctrl+o to see full summary)\n```")
    expect(markdown).not.toMatch(/<\/?(command|local-command)-|\u001b/)
    // the empty output and the caveat make no section
    expect(markdown.match(/^### /gm)).toHaveLength(3)
    expect(markdown).toContain("### User\n\nNow the real question")
  })

  it("with uuids, ends each heading with the uuid acx fork --at takes (a message's last fragment's)", () => {
    const entries = [
      user("u1", null, "Fix the test", { timestamp: "2026-01-01T00:00:00Z" }),
      assistant("a1", "u1", "m1", { type: "text", text: "Running it." }),
      assistant("a2", "a1", "m1", { type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }),
      user("u2", "a2", [{ type: "tool_result", tool_use_id: "t1", content: "ok" }])
    ]
    const markdown = transcriptToMarkdown(asEntries(entries), { uuids: true })
    expect(markdown).toContain("### User · 2026-01-01T00:00:00Z · uuid `u1`")
    expect(markdown).toContain("### Assistant (claude-x) · uuid `a2`")
    expect(markdown).toContain("### Tool result · uuid `u2`")
    expect(transcriptToMarkdown(asEntries(entries))).not.toContain("uuid")
  })
})
