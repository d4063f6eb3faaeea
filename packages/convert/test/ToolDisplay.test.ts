/**
 * `ToolDisplay` and its two renderers: the fixtures' Edit, MultiEdit, Write and TodoWrite calls
 * become diffs whose hunks turn each old string into its new one, a file's content and
 * checklists, in `acx show`'s Markdown and in the page's items; a secret in any of those strings
 * is masked in what is shown; a malformed input (missing field, wrong type, any JSON) has no
 * display and shows as raw JSON; huge inputs give bounded displays.
 */
import * as Redact from "@acx/convert/Redact"
import * as SessionBlocks from "@acx/convert/SessionBlocks"
import * as SessionFold from "@acx/convert/SessionFold"
import type * as SessionItem from "@acx/convert/SessionItem"
import * as TextDiff from "@acx/convert/TextDiff"
import * as ToolDisplay from "@acx/convert/ToolDisplay"
import { transcriptToMarkdown } from "@acx/convert/TranscriptMarkdown"
import * as Fixtures from "@acx/fixtures"
import type * as Transcript from "@acx/schema/Transcript"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const fixture = (name: string) => {
  const file = Fixtures.transcriptFiles().find((f) => f.endsWith(name))!
  return Fixtures.readJsonLines(file).map((line) => line.value)
}

// Every tool_use block of a transcript.
const toolUses = (entries: ReadonlyArray<unknown>) =>
  entries.flatMap((entry) => {
    const content = (entry as { message?: { content?: unknown } }).message?.content
    return Array.isArray(content)
      ? content.filter((b): b is { name: string; input: Record<string, unknown> } => b?.type === "tool_use")
      : []
  })

const markdown = (entries: ReadonlyArray<unknown>) =>
  transcriptToMarkdown(entries as ReadonlyArray<Transcript.TranscriptEntry>)

const SECRET = "sk-ant-api03-" + "A".repeat(40)
const identity = (text: string) => text

describe("ToolDisplay", () => {
  it("shows every fixture Edit and MultiEdit as a diff that turns each old string into its new one", () => {
    const files = [
      "crud.jsonl",
      "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
      "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    ]
    let edits = 0
    for (const name of files) {
      for (const use of toolUses(fixture(name)).filter((u) => u.name === "Edit" || u.name === "MultiEdit")) {
        const display = ToolDisplay.displayOf(use.name, use.input)
        expect(display?.kind, name).toBe("diff")
        if (display?.kind !== "diff") continue
        const inputs = (use.name === "Edit" ? [use.input] : use.input["edits"]) as Array<
          { old_string: string; new_string: string }
        >
        expect(display.edits).toHaveLength(inputs.length)
        display.edits.forEach((edit, i) => {
          expect(edit.cut).toBeUndefined()
          const [before, after] = [inputs[i]!.old_string, inputs[i]!.new_string]
          const trim = before.endsWith("\n") && after.endsWith("\n")
          const applied = TextDiff.apply(trim ? before.slice(0, -1) : before, edit.hunks)
          expect(applied).toBe(trim ? after.slice(0, -1) : after)
          edits++
        })
      }
    }
    expect(edits).toBeGreaterThan(35)
  })

  it("renders the fixtures in `acx show`'s Markdown: diff fences, the written file, checklists", () => {
    const crud = markdown(fixture("crud.jsonl"))
    expect(crud).toContain(
      [
        "```diff",
        "--- a/Users/philipp/dev/vibeinsights/fixtures/claudecode/JOKE.md",
        "+++ b/Users/philipp/dev/vibeinsights/fixtures/claudecode/JOKE.md",
        "@@ -1,1 +1,3 @@",
        "-Because it has too many bugs!",
        "+Because it has too many bugs! 🐛",
        "+",
        "+**Alternative answer:** They prefer their trees to be binary!",
        "```"
      ].join("\n")
    )
    expect(crud).toMatch(/\*\*🔧 Write\*\* `[^`]*JOKE\.md`\n```markdown\n/)
    expect(crud).toContain("- [ ] ◐ Create JOKE.md file with a joke, title, and footer *(in progress)*")
    expect(crud).toContain("**🔧 TodoWrite** · 0 of 4 done\n- [ ] ◐ Create JOKE.md")
    expect(crud).toContain("- [ ] Read the JOKE.md file")
    expect(crud).toMatch(/^- \[x\] Create JOKE\.md file/m)
    // no raw input JSON for these tools
    expect(crud).not.toContain("\"old_string\"")
    expect(crud).not.toContain("\"todos\"")
    const viewer = markdown(fixture("5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"))
    expect(viewer).toMatch(
      /\*\*🔧 MultiEdit\*\* `\/path\/to\/Demo\/CLAUDE\.md`\n`{3,}diff\n--- a\/path\/to\/Demo\/CLAUDE\.md\n/
    )
    expect(viewer).toContain("# edit 1 of ")
    expect(viewer).toContain("+A fully functional TODO application built with Next.js 15.5.2")
  })

  it("shows the fixtures' calls on the page: a display beside the raw input", () => {
    const items = SessionFold.items(fixture("crud.jsonl").map((entry, i) => ({ line: i + 1, entry })))
    const tools = items.flatMap((item) => ("parts" in item ? item.parts : []))
      .filter((part): part is SessionItem.ToolPart => part.type === "tool")
    const kinds = tools.map((tool) => `${tool.name}:${tool.display?.kind ?? "raw"}`)
    expect(kinds).toContain("Edit:diff")
    expect(kinds).toContain("Write:write")
    expect(kinds.filter((k) => k === "TodoWrite:todos")).toHaveLength(5)
    expect(kinds).toContain("Bash:raw")
    for (const tool of tools) expect(JSON.parse(tool.input.text)).toBeTypeOf("object")
  })

  it("masks a secret in old and new strings, a written file and todos, where each is shown", () => {
    const mask = Redact.redactSecrets
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${"b".repeat(64)}\n-----END OPENSSH PRIVATE KEY-----`
    const inputs: Array<[string, unknown]> = [
      ["Edit", { file_path: `/a/${SECRET}.ts`, old_string: `const k = "${SECRET}"`, new_string: `x\n${key}\ny` }],
      ["MultiEdit", { file_path: "/a.ts", edits: [{ old_string: "a", new_string: `token ${SECRET}` }] }],
      ["Write", { file_path: "/a/.env", content: `API=1\nKEY=${SECRET}\n${key}` }],
      ["TodoWrite", { todos: [{ content: `rotate ${SECRET}`, status: "pending", activeForm: "x" }] }]
    ]
    for (const [name, input] of inputs) {
      const display = ToolDisplay.displayOf(name, input, mask)
      expect(display, name).toBeDefined()
      const shown = JSON.stringify(display)
      expect(shown, name).not.toContain(SECRET.slice(0, 20))
      expect(shown, name).not.toContain("b".repeat(64))
      expect(shown, name).toContain("[REDACTED")
      // the page's part, through the fold's mask
      const part = SessionBlocks.partOf({ type: "tool_use", id: "t", name, input }, { line: 1, block: 0 }, mask)
      expect(JSON.stringify(part), name).not.toContain(SECRET.slice(0, 20))
    }
  })

  it("has no display for malformed inputs (raw JSON is shown instead), whatever the JSON", () => {
    const malformed: Array<[string, unknown]> = [
      ["Edit", { file_path: "/a", old_string: "a" }],
      ["Edit", { file_path: 1, old_string: "a", new_string: "b" }],
      ["Edit", { file_path: "/a", old_string: "a", new_string: ["b"] }],
      ["Edit", { file_path: "/a", old_string: "a", new_string: "b", replace_all: "yes" }],
      ["Edit", "not an object"],
      ["MultiEdit", { file_path: "/a", edits: [] }],
      ["MultiEdit", { file_path: "/a", edits: [{ old_string: "a", new_string: "b" }, null] }],
      ["MultiEdit", { file_path: "/a", edits: { old_string: "a", new_string: "b" } }],
      ["Write", { file_path: "/a" }],
      ["Write", { content: "x" }],
      ["TodoWrite", { todos: [{ content: "a", status: "done" }] }],
      ["TodoWrite", { todos: [{ content: { deep: [[[]]] }, status: "pending" }] }],
      ["TodoWrite", { todos: "a" }],
      ["Bash", { command: "ls" }],
      ["toString", {}],
      ["Edit", Object.assign(Object.create({ file_path: "/a", old_string: "a", new_string: "b" }), {})]
    ]
    for (const [name, input] of malformed) {
      expect(ToolDisplay.displayOf(name, input), JSON.stringify([name, input])).toBeUndefined()
      const md = markdown([{
        type: "assistant",
        uuid: "a",
        parentUuid: null,
        message: { id: "m", role: "assistant", content: [{ type: "tool_use", id: "t", name, input }] }
      }])
      expect(md).toContain("```json")
    }
    fc.assert(fc.property(fc.string(), fc.jsonValue(), (name, input) => {
      const display = ToolDisplay.displayOf(name, input, identity)
      expect(display === undefined || ["Edit", "MultiEdit", "Write", "TodoWrite"].includes(name)).toBe(true)
    }))
    fc.assert(fc.property(fc.constantFrom("Edit", "MultiEdit", "Write", "TodoWrite"), fc.jsonValue(), (name, input) => {
      ToolDisplay.displayOf(name, input)
    }))
  })

  it("keeps huge inputs small: a 5 MB old string, 100 edits, a 1 MB file, 10 000 todos", () => {
    const huge = ToolDisplay.displayOf("Edit", { file_path: "/a", old_string: "x".repeat(5_000_000), new_string: "y" })
    expect(JSON.stringify(huge).length).toBeLessThan(2_000)
    expect(huge?.kind === "diff" && TextDiff.cutNote(huge.edits[0]!.cut)).toMatch(/^diff cut: /)

    const edits = Array.from({ length: 100 }, (_, i) => ({
      old_string: Array.from({ length: 20 }, (_, j) => `o${i}.${j}`).join("\n"),
      new_string: Array.from({ length: 20 }, (_, j) => `n${i}.${j}`).join("\n")
    }))
    const many = ToolDisplay.displayOf("MultiEdit", { file_path: "/a", edits })
    if (many?.kind !== "diff") throw new Error("not a diff")
    const lines = many.edits.reduce((sum, e) => sum + e.hunks.reduce((s, h) => s + h.lines.length, 0), 0)
    expect(lines).toBe(TextDiff.MAX_SHOWN_LINES)
    expect(many.hiddenEdits).toBe(100 - many.edits.length)
    expect(ToolDisplay.unifiedDiff(many)).toMatch(/# diff cut: \d+ more edits not shown$/)

    const file = ToolDisplay.displayOf("Write", { file_path: "/a.py", content: "print(1)\n".repeat(110_000) })
    if (file?.kind !== "write") throw new Error("not a write")
    expect(file).toMatchObject({ language: "python", lines: 110_001, shownLines: ToolDisplay.MAX_WRITE_LINES })
    expect(ToolDisplay.writeCutNote(file)).toBe("content cut: 200 of 110001 lines shown (990000 characters in all)")

    const todos = Array.from({ length: 10_000 }, (_, i) => ({ content: `t${i}`.repeat(100), status: "pending" }))
    const list = ToolDisplay.displayOf("TodoWrite", { todos })
    expect(list).toMatchObject({ kind: "todos", hidden: 10_000 - ToolDisplay.MAX_CHECKLIST_ITEMS, completed: 0 })
    expect(JSON.stringify(list).length).toBeLessThan(
      ToolDisplay.MAX_CHECKLIST_ITEMS * (ToolDisplay.MAX_CHECKLIST_ITEM_CHARS + 50)
    )
  })

  it("writes hostile text as text: fences that cannot close, todos that open no tag", () => {
    const md = markdown([{
      type: "assistant",
      uuid: "a",
      parentUuid: null,
      message: {
        id: "m",
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: "t1",
            name: "Edit",
            input: { file_path: "/a\n+++ b/evil", old_string: "```\n</details>", new_string: "````<script>" }
          },
          {
            type: "tool_use",
            id: "t2",
            name: "TodoWrite",
            input: { todos: [{ content: "<script>x</script>\n# h", status: "completed" }] }
          }
        ]
      }
    }])
    expect(md).toContain("--- a/a\\u000a+++ b/evil")
    expect(md).toContain("`````diff\n")
    expect(md).toContain("- [x] \\<script\\>x\\</script\\> \\# h")
    expect(md).not.toContain("<script>x")
  })

  it("guesses a file's language from its extension", () => {
    expect(ToolDisplay.languageOf("/a/b.tsx")).toBe("tsx")
    expect(ToolDisplay.languageOf("src/Dockerfile")).toBe("dockerfile")
    expect(ToolDisplay.languageOf("/a/README")).toBeUndefined()
    expect(ToolDisplay.languageOf("/a/x.constructor")).toBeUndefined()
  })
})
