/**
 * The line scanner (`assembly/lineFacts.ts` through `src/internal/lineFacts.ts`) against
 * `JSON.parse`: whatever the bytes, it answers the facts `StatsFold.factsOf` reads of the parsed
 * line, or "blank", or that it is not sure, and never facts for a line a parse refuses (or one
 * nested deeper than `JsonDepth.MAX_DEPTH`). On lines without escapes where the fold reads and
 * with plain figures it is always sure: every real Claude Code line of the fixtures is scanned.
 * A file of lines across the 4 MiB reads folds as its parsed lines fold. The committed WebAssembly
 * is the build of the committed source.
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { exceedsDepth } from "@acx/schema/JsonDepth"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { compileLineFacts } from "../scripts/build-line-facts.js"
import { LineFacts } from "../src/internal/lineFacts.js"
import { LINE_FACTS_WASM } from "../src/internal/lineFactsWasm.js"
import { runFoldJob } from "../src/internal/statsFile.js"

const scanner = new LineFacts(1 << 20)

// What the scanner answers for `bytes` (copied into its memory, as a read puts them there).
const scan = (bytes: Uint8Array) => {
  scanner.input.set(bytes)
  return scanner.scan(scanner.input, 0, bytes.length)
}

// What a parse of the same bytes says: "blank", the facts, or undefined (the caller parses it).
const parsed = (bytes: Uint8Array): StatsFold.EntryFacts | "blank" | undefined => {
  const text = Buffer.from(bytes).toString("utf8")
  if (/^[ \t\r\n]*$/.test(text)) return "blank"
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || exceedsDepth(text)) return undefined
  return StatsFold.factsOf(value as { readonly [key: string]: unknown })
}

// The contract: facts only when a parse gives the same facts; blank only when it is blank.
// (the milliseconds of a timestamp the scanner worked out are `parseTimestamp`'s)
const holds = (bytes: Uint8Array) => {
  const answer = scan(bytes)
  if (answer === undefined || answer === "blank") {
    if (answer !== undefined) expect(answer).toBe(parsed(bytes))
    return answer
  }
  expect({ ...answer, ms: undefined }).toStrictEqual(parsed(bytes))
  if (answer.ms !== undefined) expect(answer.ms).toBe(StatsFold.parseTimestamp(answer.timestamp!))
  return answer
}

const figure = fc.oneof(fc.nat(2_000_000), fc.constant(0), fc.integer({ min: -5, max: -1 }))
const wildFigure = fc.oneof(
  figure,
  fc.double(),
  fc.constantFrom(1e3, 12345678901234567, "7", null, true, [1], { a: 1 })
)
const name = fc.constantFrom("Bash", "Read", "Edit", "", "mcp__x__y", "é名", "__proto__")
const block = (wild: boolean) =>
  fc.record({
    type: wild ?
      fc.oneof(fc.constantFrom("tool_use", "tool_result", "text", "thinking"), fc.jsonValue()) :
      fc.constantFrom("tool_use", "tool_result", "text", "thinking"),
    name: wild ? fc.oneof(name, fc.jsonValue()) : name,
    input: fc.jsonValue({ maxDepth: 3 }),
    content: fc.jsonValue({ maxDepth: 2 })
  }, { requiredKeys: [] })
const usage = (wild: boolean) => {
  const f = wild ? wildFigure : figure
  return fc.record({
    input_tokens: f,
    output_tokens: f,
    cache_read_input_tokens: f,
    cache_creation_input_tokens: f,
    cache_creation: fc.oneof(
      fc.record({ ephemeral_1h_input_tokens: f, ephemeral_5m_input_tokens: f }, { requiredKeys: [] }),
      fc.constant([1])
    ),
    server_tool_use: fc.oneof(fc.record({ web_search_requests: f }, { requiredKeys: [] }), fc.constant("x")),
    speed: fc.constantFrom("fast", "standard", 1),
    inference_geo: fc.constantFrom("us", "eu", null),
    service_tier: fc.constant("standard")
  }, { requiredKeys: [] })
}
const message = (wild: boolean) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        id: fc.oneof(fc.constantFrom("msg_1", "msg_2", ""), fc.integer()),
        model: fc.oneof(
          fc.constantFrom("claude-sonnet-4-5-20250929", "claude-opus-4-1", "<synthetic>", "", "é"),
          fc.integer()
        ),
        role: fc.constantFrom("assistant", "user"),
        content: fc.oneof(
          fc.array(fc.oneof({ weight: 5, arbitrary: block(wild) }, { weight: 1, arbitrary: fc.jsonValue() }), {
            maxLength: 5
          }),
          fc.string(),
          fc.constant([])
        ),
        usage: fc.oneof({ weight: 5, arbitrary: usage(wild) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) })
      }, { requiredKeys: [] })
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }
  )
const entry = (wild: boolean) =>
  fc.record({
    type: fc.oneof(fc.constantFrom("assistant", "user", "system", "progress", "file-history-snapshot"), fc.integer()),
    timestamp: fc.oneof(
      fc.date({ min: new Date("2026-01-01"), max: new Date("2026-12-31"), noInvalidDate: true }).map((d) =>
        d.toISOString()
      ),
      fc.string(),
      fc.integer()
    ),
    agentId: fc.oneof(fc.constantFrom("a1", "a2", ""), fc.boolean()),
    isSidechain: fc.oneof(fc.boolean(), fc.constant("true")),
    isMeta: fc.oneof(fc.boolean(), fc.constant(1)),
    isCompactSummary: fc.boolean(),
    subtype: fc.constantFrom("compact_boundary", "init", 3),
    requestId: fc.oneof(fc.constantFrom("req_1", "req_2"), fc.integer()),
    message: message(wild),
    toolUseResult: fc.jsonValue({ maxDepth: 3 }),
    data: fc.jsonValue({ maxDepth: 3 })
  }, { requiredKeys: [] })

// JSON text of a value, rendered with the freedoms JSON allows: whitespace anywhere between
// tokens, string characters escaped as \uXXXX or \/, and keys repeated (an earlier copy with
// another value: the parse keeps the last).
const render = (value: unknown, choices: ReadonlyArray<number>, freedoms: { escapes: boolean }): string => {
  let at = 0
  const choose = (n: number) => choices[at++ % choices.length]! % n
  const space = () => [" ", "", "", "\t", "\n ", "\r\n"][choose(6)]!
  const string = (text: string) => {
    if (!freedoms.escapes || choose(4) !== 0) return JSON.stringify(text)
    let out = "\""
    for (const char of text) {
      const code = char.charCodeAt(0)
      out += choose(3) === 0
        ? `\\u${code.toString(16).padStart(4, "0")}`
        : char === "/"
        ? "\\/"
        : JSON.stringify(char).slice(1, -1)
    }
    return out + "\""
  }
  const go = (v: unknown): string => {
    if (typeof v === "string") return string(v)
    if (Array.isArray(v)) return `[${space()}${v.map((item) => go(item)).join(`${space()},${space()}`)}${space()}]`
    if (typeof v === "object" && v !== null) {
      const members: Array<string> = []
      for (const [key, item] of Object.entries(v)) {
        if (choose(8) === 0) members.push(`${string(key)}${space()}:${space()}${go(choices[at % choices.length])}`)
        members.push(`${string(key)}${space()}:${space()}${go(item)}`)
      }
      return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`
    }
    return JSON.stringify(v) ?? "null"
  }
  return `${space()}${go(value)}${space()}`
}

const choices = fc.array(fc.nat(1000), { minLength: 16, maxLength: 64 })

describe("LineFacts", () => {
  it("the committed module is the build of assembly/lineFacts.ts", async () => {
    const binary = await compileLineFacts()
    expect(Buffer.from(binary).toString("base64")).toBe(LINE_FACTS_WASM)
  }, 60_000)

  it("is sure of every line without escapes where the fold reads, and gives a parse's facts", () => {
    fc.assert(
      // (no escape anywhere: one in a key the fold reads, or in a value it compares, is not sure)
      fc.property(entry(false).filter((value) => !JSON.stringify(value).includes("\\")), choices, (value, picks) => {
        const bytes = Buffer.from(render(value, picks, { escapes: false }))
        const answer = holds(bytes)
        expect(answer).not.toBeUndefined()
      }),
      { numRuns: 400 }
    )
  })

  it("answers a parse's facts or not sure, for wild values and escapes anywhere", () => {
    fc.assert(
      fc.property(entry(true), choices, (value, picks) => {
        holds(Buffer.from(render(value, picks, { escapes: true })))
      }),
      { numRuns: 400 }
    )
  })

  it("never answers facts for bytes a parse refuses: mutated, cut and random lines", () => {
    fc.assert(
      fc.property(
        entry(false),
        choices,
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (value, picks, edits, cut) => {
          const bytes = Buffer.from(render(value, picks, { escapes: false }))
          const mutated = Buffer.from(bytes)
          for (const [where, byte] of edits) mutated[where % mutated.length] = byte
          holds(mutated)
          holds(bytes.subarray(0, cut % (bytes.length + 1)))
        }
      ),
      { numRuns: 400 }
    )
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => void holds(bytes)), { numRuns: 300 })
  })

  it("works out Claude Code's timestamps as Date.parse does, odd days and months included", () => {
    const two = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, "0"))
    const stamp = fc.tuple(two, two, two, two, two, two, two, fc.integer({ min: 0, max: 999 })).map(
      ([c, y, mo, d, h, mi, s, ms]) => `${c}${y}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, "0")}Z`
    )
    let worked = 0
    fc.assert(
      fc.property(stamp, (timestamp) => {
        const answer = holds(Buffer.from(JSON.stringify({ type: "user", timestamp })))
        if (answer !== undefined && answer !== "blank" && answer.ms !== undefined) worked++
      }),
      { numRuns: 1000 }
    )
    expect(worked).toBeGreaterThan(0)
    const msOf = (timestamp: string) => (holds(Buffer.from(JSON.stringify({ timestamp }))) as StatsFold.EntryFacts).ms
    expect(msOf("2026-02-30T23:59:59.999Z")).toBe(Date.parse("2026-02-30T23:59:59.999Z"))
    expect(msOf("0000-01-01T00:00:00.000Z")).toBe(Date.parse("0000-01-01T00:00:00.000Z"))
    expect(msOf("2026-01-01T10:60:00.000Z")).toBeUndefined()
    expect(msOf("2026-01-01T24:00:00.000Z")).toBeUndefined()
    expect(msOf("2026-01-01T10:00:00.000+00:00")).toBeUndefined()
  })

  it("hostile lines: depth, control characters, invalid UTF-8, escapes, numbers, many tools", () => {
    const nested = (depth: number) => `{"type":"user","x":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`
    expect(holds(Buffer.from(nested(512)))).toMatchObject({ kind: "user" })
    expect(holds(Buffer.from(nested(513)))).toBeUndefined()
    const cases: ReadonlyArray<readonly [string | Buffer, "facts" | "blank" | "unsure"]> = [
      ["   \t ", "blank"],
      ["", "blank"],
      ["\u00a0", "unsure"],
      ["\ufeff{\"type\":\"user\"}", "unsure"],
      ["{\"type\":\"user\"} x", "unsure"],
      ["{\"type\":\"user\",}", "unsure"],
      ["[{\"type\":\"user\"}]", "unsure"],
      ["{\"type\":\"us\ter\"}", "unsure"],
      [
        Buffer.concat([
          Buffer.from("{\"type\":\"user\",\"timestamp\":\"a"),
          Buffer.from([0xff, 0xc3]),
          Buffer.from("\"}")
        ]),
        "facts"
      ],
      [Buffer.concat([Buffer.from("{\"type\":\"user\","), Buffer.from([0xc3, 0xa9]), Buffer.from("1:2}")]), "unsure"],
      ["{\"t\\u0079pe\":\"user\"}", "unsure"],
      ["{\"type\":\"\\u0075ser\"}", "unsure"],
      ["{\"type\":\"user\",\"x\":{\"t\\u0079pe\":1}}", "facts"],
      ["{\"type\":\"user\",\"timestamp\":\"\\ud800\\/x\"}", "facts"],
      ["{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":1e3}}}", "unsure"],
      ["{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":1234567890123456}}}", "unsure"],
      ["{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":123456789012345}}}", "facts"],
      ["{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":-1.5e300}}}", "facts"],
      ["{\"type\":\"assistant\",\"x\":1e3,\"y\":-0.5E-2}", "facts"],
      ["{\"type\":\"assistant\",\"x\":01}", "unsure"],
      ["{\"type\":\"assistant\",\"x\":1.}", "unsure"],
      ["{\"type\":\"assistant\",\"x\":tru}", "unsure"],
      ["{\"__proto__\":{\"type\":\"user\"},\"type\":\"system\",\"subtype\":\"compact_boundary\"}", "facts"],
      [
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\"},{\"type\":\"tool_result\",\"type\":1}]}}",
        "facts"
      ],
      ["{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":5},\"usage\":3}}", "facts"],
      [
        "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"tool_use\",\"name\":\"A\"}]},\"message\":[]}",
        "facts"
      ]
    ]
    for (const [line, expected] of cases) {
      const bytes = typeof line === "string" ? Buffer.from(line) : line
      const answer = holds(bytes)
      expect([line, answer === undefined ? "unsure" : answer === "blank" ? "blank" : "facts"]).toStrictEqual([
        line,
        expected
      ])
    }
    const tools = (n: number) =>
      `{"type":"assistant","message":{"content":[${
        Array.from({ length: n }, () => "{\"type\":\"tool_use\",\"name\":\"T\"}").join(",")
      }]}}`
    expect(holds(Buffer.from(tools(1024)))).toMatchObject({ toolNames: Array.from({ length: 1024 }, () => "T") })
    expect(holds(Buffer.from(tools(1025)))).toBeUndefined()
  })

  it("is sure of every real Claude Code line of the fixtures, with a parse's facts", () => {
    const data = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/data")
    const files = (fs.readdirSync(data, { recursive: true }) as Array<string>).filter((name) => name.endsWith(".jsonl"))
    let lines = 0
    for (const name of files) {
      for (const line of fs.readFileSync(path.join(data, name)).toString("utf8").split("\n")) {
        if (line.trim() === "") continue
        const bytes = Buffer.from(line)
        if (parsed(bytes) === undefined) continue
        expect(holds(bytes)).not.toBeUndefined()
        lines++
      }
    }
    expect(lines).toBeGreaterThan(500)
  })

  it("a file folds as its parsed lines fold, lines across the 4 MiB reads and a huge one included", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-line-facts-"))
    try {
      const file = path.join(dir, "s.jsonl")
      const line = (i: number, filler: number) =>
        JSON.stringify({
          type: i % 3 === 0 ? "user" : "assistant",
          timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          requestId: `req_${i >> 1}`,
          message: {
            id: `msg_${i >> 1}`,
            model: "claude-sonnet-4-5-20250929",
            content: [{ type: "tool_use", name: `T${i % 4}`, input: { text: "é".repeat(filler) } }],
            usage: { input_tokens: i, output_tokens: 2 * i, cache_read_input_tokens: 3 }
          }
        })
      const lines = Array.from({ length: 1200 }, (_, i) => line(i, i === 600 ? 5_000_000 : 3_000 + i))
      fs.writeFileSync(file, lines.join("\n") + "\n")
      const ctx: StatsFold.FoldContext = {
        pricing: Pricing.builtinPricing,
        dayOf: StatsFold.localDayOf(),
        kind: "main"
      }
      const expected = StatsFold.empty()
      for (const text of lines) StatsFold.foldEntry(expected, JSON.parse(text), ctx)
      const done = runFoldJob({ file, kind: "main", offset: 0, state: null }, Pricing.builtinPricing)
      expect(done.state).toStrictEqual(StatsFold.serialise(expected))
      expect(done.offset).toBe(fs.statSync(file).size)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
