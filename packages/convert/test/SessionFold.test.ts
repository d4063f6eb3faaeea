import * as Fixtures from "@acx/fixtures"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as CommandMarkup from "../src/CommandMarkup.js"
import * as Pricing from "../src/Pricing.js"
import * as Reconstruct from "../src/Reconstruct.js"
import * as SessionBlocks from "../src/SessionBlocks.js"
import * as SessionFold from "../src/SessionFold.js"
import * as SessionItem from "../src/SessionItem.js"
import * as StatsFold from "../src/StatsFold.js"
import * as Usage from "../src/Usage.js"

// Ids from small pools, so fragments of one message, results of earlier calls and repeated
// uuids happen often.
const uuid = fc.constantFrom("u1", "u2", "u3", "u4", "u5", "u6")
const messageId = fc.constantFrom("msg_a", "msg_b", "msg_c")
const toolId = fc.constantFrom("toolu_1", "toolu_2", "toolu_3")
const requestId = fc.option(fc.constantFrom("req_1", "req_2"), { nil: undefined })
const model = fc.constantFrom("claude-sonnet-4-5-20250929", "claude-opus-4-6", "unknown-model")
const usage = fc.record({
  input_tokens: fc.nat(5_000),
  output_tokens: fc.nat(5_000),
  cache_read_input_tokens: fc.nat(50_000),
  cache_creation_input_tokens: fc.nat(10_000)
})
const text = fc.oneof(
  fc.string(),
  fc.string({ minLength: 3_990, maxLength: 4_100 }),
  fc.constant("<script>x</script>"),
  fc.string().map((s) => `${s} sk-secret ${s}`)
)

const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("thinking"), thinking: text }),
  fc.record({
    type: fc.constant("tool_use"),
    id: toolId,
    name: fc.constantFrom("Bash", "Task", "Read"),
    input: fc.jsonValue()
  }),
  fc.record({
    type: fc.constant("image"),
    source: fc.record({ type: fc.constant("base64"), media_type: fc.constant("image/png"), data: fc.base64String() })
  }),
  fc.jsonValue()
)

const assistant = fc.record({
  type: fc.constant("assistant"),
  uuid,
  timestamp: fc.constant("2026-01-02T03:04:05.000Z"),
  isSidechain: fc.boolean(),
  requestId,
  message: fc.record({ id: messageId, model, content: fc.array(block, { maxLength: 3 }), usage })
}, { requiredKeys: ["type", "message"] })

const user = fc.record({
  type: fc.constant("user"),
  uuid,
  parentUuid: fc.option(uuid, { nil: null }),
  isSidechain: fc.boolean(),
  isMeta: fc.boolean(),
  isCompactSummary: fc.boolean(),
  toolUseResult: fc.option(fc.record({ agentId: fc.constantFrom("a1", "a2") }), { nil: undefined }),
  message: fc.record({
    content: fc.oneof(
      text,
      fc.array(
        fc.oneof(
          block,
          fc.record({
            type: fc.constant("tool_result"),
            tool_use_id: toolId,
            is_error: fc.boolean(),
            content: fc.oneof(text, fc.array(block, { maxLength: 2 }))
          })
        ),
        { maxLength: 3 }
      )
    )
  })
}, { requiredKeys: ["type", "message"] })

const system = fc.record({
  type: fc.constant("system"),
  uuid,
  subtype: fc.constantFrom("compact_boundary", "api_error", "turn_duration", "local_command", "new_subtype"),
  content: fc.option(text, { nil: undefined }),
  compactMetadata: fc.option(fc.record({ trigger: fc.constantFrom("auto", "manual"), preTokens: fc.nat() }), {
    nil: undefined
  })
}, { requiredKeys: ["type"] })

const progress = fc.record({
  type: fc.constant("progress"),
  parentToolUseID: toolId,
  data: fc.record({ type: fc.constant("agent_progress"), agentId: fc.constantFrom("a1", "a2") })
})

const entry = fc.oneof(
  { weight: 4, arbitrary: assistant },
  { weight: 4, arbitrary: user },
  { weight: 1, arbitrary: system },
  { weight: 1, arbitrary: progress },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom("summary", "custom-title", "brand-new-type") }) },
  { weight: 1, arbitrary: fc.jsonValue() }
)

const inputsOf = (entries: ReadonlyArray<unknown>): Array<SessionItem.Input> =>
  entries.map((value, i) => ({ line: i + 1, entry: value }))

// Folds `inputs` cut at `cuts`, keeping a JSON copy of every item as it was emitted (a change
// to an item after it was emitted must be emitted again to reach the page).
const foldInChunks = (inputs: ReadonlyArray<SessionItem.Input>, cuts: ReadonlyArray<number>) => {
  const view = { order: [] as Array<string>, byKey: new Map<string, SessionItem.Item>() }
  let state = SessionFold.initial()
  let from = 0
  for (const cut of [...cuts, inputs.length]) {
    const result = SessionFold.fold(state, inputs.slice(from, Math.max(from, cut)))
    state = result.state
    SessionFold.upsert(view, JSON.parse(JSON.stringify(result.items)) as Array<SessionItem.Item>)
    from = Math.max(from, cut)
  }
  return view.order.map((key) => view.byKey.get(key))
}

const costSum = (items: ReadonlyArray<SessionItem.Item>) =>
  items.reduce((sum, item) => sum + (item.kind === "assistant" ? item.usage?.costUSD ?? 0 : 0), 0)

const usageSum = (items: ReadonlyArray<SessionItem.Item>) => {
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  for (const item of items) {
    if (item.kind !== "assistant" || item.usage === undefined) continue
    sum.input += item.usage.input
    sum.output += item.usage.output
    sum.cacheRead += item.usage.cacheRead
    sum.cacheWrite += item.usage.cacheWrite
  }
  return sum
}

describe("SessionFold", () => {
  it("takes any JSON value and gives items with unique keys, never throwing", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), entry), { maxLength: 40 }), (values) => {
        const items = SessionFold.items(inputsOf(values))
        expect(new Set(items.map((item) => item.key)).size).toBe(items.length)
        for (const item of items) expect(JSON.parse(JSON.stringify(item))).toEqual(item)
      })
    )
  })

  it("gives the same items folded all at once or in any split into chunks", () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 40 }),
        fc.array(fc.nat(40), { maxLength: 6 }).map((cuts) => cuts.sort((a, b) => a - b)),
        (entries, cuts) => {
          const inputs = inputsOf(entries)
          expect(foldInChunks(inputs, cuts)).toEqual(foldInChunks(inputs, []))
        }
      )
    )
  })

  it("updates an earlier call when its result arrives, however the lines are chunked", () => {
    const call = {
      type: "assistant",
      uuid: "call",
      message: { id: "msg_call", content: [{ type: "tool_use", id: "toolu_x", name: "Task", input: { prompt: "p" } }] }
    }
    const result = {
      type: "user",
      uuid: "result",
      toolUseResult: { agentId: "agent-x" },
      message: { content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "done" }] }
    }
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 20 }),
        fc.nat(20),
        fc.nat(20),
        fc.array(fc.nat(22), { maxLength: 4 }).map((cuts) => cuts.sort((a, b) => a - b)),
        (entries, at, after, cuts) => {
          const all: Array<unknown> = [...entries]
          const i = Math.min(at, all.length)
          all.splice(i, 0, call)
          all.splice(Math.min(i + 1 + after, all.length), 0, result)
          const parts = foldInChunks(inputsOf(all), cuts).flatMap((item) =>
            item !== undefined && "parts" in item ? item.parts : []
          )
          expect(parts.find((part) => part.type === "tool" && part.id === "toolu_x")).toMatchObject({
            agentId: "agent-x",
            result: { text: { text: "done" } }
          })
        }
      )
    )
  })

  it("counts each API message once, from its last fragment (as Usage and acx stats do)", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        const total = Usage.usageOf(entries).total
        expect(usageSum(SessionFold.items(inputsOf(entries)))).toEqual(total)
      })
    )
  })

  it("counts the tokens and dollars acx stats' fold counts, fragments and sidechain copies included", () => {
    // fragments that may lack a model or be Claude Code's own, and copies under other sidechains
    const fragment = fc.record({
      type: fc.constant("assistant"),
      uuid,
      isSidechain: fc.boolean(),
      agentId: fc.option(fc.constantFrom("a1", "a2"), { nil: undefined }),
      requestId,
      message: fc.record({
        id: messageId,
        model: fc.option(fc.constantFrom("claude-sonnet-4-5-20250929", "claude-opus-4-6", "<synthetic>", "x"), {
          nil: undefined
        }),
        content: fc.array(block, { maxLength: 2 }),
        usage: fc.oneof(usage, fc.constant(undefined))
      }, { requiredKeys: ["id", "content"] })
    })
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment, entry), { maxLength: 40 }), (entries) => {
        const stats = StatsFold.empty()
        for (const value of entries) {
          StatsFold.foldEntry(stats, value, { pricing: Pricing.builtinPricing, dayOf: () => "d", kind: "main" })
        }
        const cells = Object.values(stats.days).flatMap((day) => Object.values(day.models))
        const items = SessionFold.items(inputsOf(entries))
        const sum = usageSum(items)
        expect(sum.input + sum.output + sum.cacheRead + sum.cacheWrite).toBe(
          cells.reduce(
            (n, cell) => n + cell.input + cell.output + cell.cacheRead + cell.cacheWrite5m + cell.cacheWrite1h,
            0
          )
        )
        expect(costSum(items)).toBeCloseTo(cells.reduce((n, cell) => n + cell.costUSD, 0), 9)
      })
    )
  })

  it("passes every text it shows through the mask before cutting it", () => {
    const mask = (text: string) => text.replaceAll("sk-secret", "[R]")
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const view = SessionFold.fold(SessionFold.initial(undefined, mask), inputsOf(entries))
        expect(JSON.stringify(view.items)).not.toContain("sk-secret")
      })
    )
  })

  it("cuts long texts at the cap and gives the whole text back on demand", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), (entries) => {
        for (const item of SessionFold.items(inputsOf(entries))) {
          const parts = "parts" in item ? item.parts : []
          for (const part of parts) {
            const texts = part.type === "tool"
              ? [
                { text: part.input, ref: part.ref },
                ...(part.result ? [{ text: part.result.text, ref: part.result.ref }] : [])
              ]
              : part.type === "text" || part.type === "thinking"
              ? [{ text: part.text, ref: part.ref }]
              : []
            for (const { ref, text } of texts) {
              expect(text.text.length).toBeLessThanOrEqual(SessionItem.TEXT_CAP)
              if (part.type === "thinking" && text.text === "(redacted thinking)") continue
              if (part.type === "tool" && part.name === "(call not in the transcript)" && ref === part.ref) continue
              const full = SessionBlocks.fullBlock(entries[ref.line - 1], ref)
              expect(full !== undefined && "text" in full ? full.text.length : -1).toBe(text.size)
              expect(full !== undefined && "text" in full && full.text.startsWith(text.text)).toBe(true)
            }
          }
        }
      })
    )
  })

  it("gives images as data URLs of raster types only", () => {
    const png = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
    const svg = { type: "image", source: { type: "base64", media_type: "image/svg+xml", data: "PHN2Zz4=" } }
    const entry = { type: "user", message: { content: [png, svg] } }
    expect(SessionBlocks.fullBlock(entry, { block: 0 })).toEqual({ dataUrl: "data:image/png;base64,iVBORw0KGgo=" })
    expect(SessionBlocks.fullBlock(entry, { block: 1 })).toBeUndefined()
    expect(SessionBlocks.fullBlock(entry, { block: 7 })).toBeUndefined()
  })
})

const isResultOnly = (entry: unknown): boolean => {
  const content = (entry as { message?: { content?: unknown } }).message?.content
  return Array.isArray(content) && content.length > 0 &&
    content.every((block) => (block as { type?: unknown } | null)?.type === "tool_result")
}

const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-view-"))
afterAll(() => fs.rmSync(fixtureDir, { recursive: true, force: true }))
const built = Fixtures.buildClaudeConfigDir(fixtureDir)
const fixtureInputs = (file: string) =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((text, i): Array<SessionItem.Input> =>
    text.trim() === "" ? [] : [{ line: i + 1, entry: JSON.parse(text) as unknown }]
  )

// a local command's output that printed nothing: neither acx show nor the page shows it
const isEmptyOutput = (entry: unknown): boolean => {
  const content = (entry as { message?: { content?: unknown } }).message?.content
  const markup = typeof content === "string" ? CommandMarkup.parse(content) : undefined
  return markup?._tag === "Output" && CommandMarkup.plain(markup) === ""
}

describe("SessionFold on the fixtures", () => {
  for (const session of built.sessions) {
    it(`${session.projectKey}/${path.basename(session.source)}: costs as acx stats, conversation as acx show`, () => {
      const inputs = fixtureInputs(session.file)
      const entries = inputs.map((input) => "entry" in input ? input.entry : undefined)
      const items = SessionFold.items(inputs)
      // the same cost as acx stats' fold of the file
      const stats = StatsFold.empty()
      for (const value of entries) {
        StatsFold.foldEntry(stats, value, { pricing: Pricing.builtinPricing, dayOf: () => "d", kind: "main" })
      }
      const cells = Object.values(stats.days).flatMap((day) => Object.values(day.models))
      expect(costSum(items)).toBeCloseTo(cells.reduce((sum, cell) => sum + cell.costUSD, 0), 9)
      // and the same tokens
      const sum = usageSum(items)
      expect(sum.input + sum.output + sum.cacheRead + sum.cacheWrite).toBe(
        cells.reduce(
          (n, cell) => n + cell.input + cell.output + cell.cacheRead + cell.cacheWrite5m + cell.cacheWrite1h,
          0
        )
      )
      // every message acx show renders (the reconstructed conversation across compactions) is
      // on the page, in the same order; the page adds sidechains, meta entries and system notes
      const position = new Map<string, number>()
      items.forEach((item, i) => {
        for (const uuid of item.uuids) position.set(uuid, i)
      })
      const shown = Reconstruct.conversation(entries as never).filter((item) =>
        !item.isSidechain && !item.isMeta && (item.entry.type === "user" || item.entry.type === "assistant") &&
        !isResultOnly(item.entry) && !isEmptyOutput(item.entry)
      )
      expect(shown.length).toBeGreaterThan(0)
      const at = shown.map((item) => position.get(item.uuid))
      expect(at.filter((i) => i === undefined)).toEqual([])
      expect(at).toEqual([...at].sort((a, b) => a! - b!))
    })
  }

  it("nests the subagent under the Task call that ran it (subagent transcript and inline sidechain)", () => {
    const withFiles = built.sessions.find((session) => session.subagents.length > 0)!
    const task = SessionFold.items(fixtureInputs(withFiles.file)).flatMap((item) => "parts" in item ? item.parts : [])
      .find((part) => part.type === "tool" && part.id === "toolu_01VmaERAwhb19LGUwu9GenaK")
    expect(task).toMatchObject({ type: "tool", name: "Task", agentId: "a881341", result: { isError: false } })
    expect(withFiles.subagents.map((agent) => agent.agentId)).toContain("a881341")

    const inline = built.sessions.find((session) => session.source.endsWith("tomjnsn-agentlogs/subagent.jsonl"))!
    const items = SessionFold.items(fixtureInputs(inline.file))
    const call = items.flatMap((item) => "parts" in item ? item.parts : []).find((part) =>
      part.type === "tool" && part.name === "Task"
    )
    expect(call?.type === "tool" && call.result !== undefined).toBe(true)
    const nested = items.filter((item) => item.within === (call?.type === "tool" ? call.id : ""))
    expect(nested.map((item) => item.kind)).toEqual(["prompt", "assistant"])
  })

  it("marks the compaction point with its summary", () => {
    const compact = built.sessions.find((session) => session.source.endsWith("tomjnsn-agentlogs/compact.jsonl"))!
    const items = SessionFold.items(fixtureInputs(compact.file))
    const points = items.filter((item) => item.kind === "compaction")
    expect(points).toHaveLength(1)
    expect(points[0]).toMatchObject({ kind: "compaction", summary: { text: expect.stringContaining("continued") } })
  })
})

describe("SessionFold: Claude Code's command markup", () => {
  it("shows a slash command as typed and its output as text: no tags, no escapes, on the page as in acx show", () => {
    const compact = built.sessions.find((session) => session.source.endsWith("tomjnsn-agentlogs/compact.jsonl"))!
    const items = SessionFold.items(fixtureInputs(compact.file))
    const parts = items.flatMap((item) => "parts" in item ? item.parts : [])
    expect(parts.filter((part) => part.type === "command").map((part) => part.type === "command" && part.command))
      .toEqual(["/clear", "/compact"])
    expect(parts.find((part) => part.type === "output")).toMatchObject({
      text: { text: "Compacted (ctrl+o to see full summary)" },
      isError: false
    })
    const shown = JSON.stringify(items)
    expect(shown).not.toMatch(/<\/?(command-name|command-message|command-args|local-command-stdout)>/)
    expect(shown).not.toContain("\\u001b")
    // the full text on demand is read the same way
    const output = parts.find((part) => part.type === "output")!
    const line = fs.readFileSync(compact.file, "utf8").split("\n")[output.ref.line - 1]!
    expect(SessionBlocks.fullBlock(JSON.parse(line), output.ref)).toEqual({
      text: "Compacted (ctrl+o to see full summary)"
    })
  })

  it("a local_command system entry reads as the command and its output", () => {
    const heavy = built.sessions.find((session) => session.source.endsWith("marot-spotter/tool_heavy.jsonl"))!
    const notes = SessionFold.items(fixtureInputs(heavy.file)).filter((item) =>
      item.kind === "system" && item.subtype === "local_command"
    )
    expect(notes.map((item) => item.kind === "system" && item.text.text)).toEqual(["/mcp", "MCP dialog dismissed"])
  })

  it("strips terminal escapes from tool results", () => {
    const items = SessionFold.items([
      {
        line: 1,
        entry: {
          type: "assistant",
          uuid: "a",
          message: { id: "m", content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] }
        }
      },
      {
        line: 2,
        entry: {
          type: "user",
          uuid: "u",
          message: { content: [{ type: "tool_result", tool_use_id: "t", content: "\u001b[31mred\u001b[0m" }] }
        }
      }
    ])
    const tool = items.flatMap((item) => "parts" in item ? item.parts : []).find((part) => part.type === "tool")
    expect(tool?.type === "tool" && tool.result?.text.text).toBe("red")
  })
})
