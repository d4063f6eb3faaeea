/**
 * `SessionDerive`, the pure half of a store's derived data: deriving a transcript in any batches
 * (as appends arrive) gives what one pass gives, and indexed fields respect the cap and hold only
 * text every engine accepts.
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as Fixtures from "@acx/fixtures"
import * as SessionDerive from "@acx/session-store/SessionDerive"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const transcripts = Fixtures.transcriptFiles().map((file) => Fixtures.readJsonLines(file).map((line) => line.value))

// Derives `entries` in batches cut at `cuts`, carrying state between them as a store does.
const inBatches = (entries: ReadonlyArray<unknown>, cuts: ReadonlyArray<number>) => {
  const bounds = [...new Set([0, ...cuts.map((cut) => cut % (entries.length + 1)), entries.length])].sort((a, b) =>
    a - b
  )
  let metadata: SessionMetadata.MetadataState = SessionMetadata.initialState
  const usage = new Map<string, SessionDerive.MessageUsage>()
  const counts = { entries: 0, userMessages: 0, assistantMessages: 0, toolCalls: 0 }
  const texts: Array<SessionDerive.TextRow> = []
  for (let i = 1; i < bounds.length; i++) {
    const batch = entries.slice(bounds[i - 1], bounds[i])
    const known = new Map(
      SessionDerive.messageKeysOf(batch).flatMap((key) => usage.has(key) ? [[key, usage.get(key)!]] : [])
    )
    const derived = SessionDerive.derive({ entries: batch, main: true, metadata, known, batchId: String(i) })
    metadata = derived.metadata
    for (const row of derived.usage) usage.set(row.messageKey, row)
    counts.entries += derived.counts.entries
    counts.userMessages += derived.counts.userMessages
    counts.assistantMessages += derived.counts.assistantMessages
    counts.toolCalls += derived.counts.toolCalls
    texts.push(...derived.texts)
  }
  return { metadata, usage: [...usage.values()].sort((a, b) => a.messageKey < b.messageKey ? -1 : 1), counts, texts }
}

describe("SessionDerive", () => {
  it("any batching of a fixture transcript derives what one pass derives", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...transcripts.keys()),
        fc.array(fc.nat(), { maxLength: 12 }),
        (index, cuts) => {
          const entries = transcripts[index]!
          const whole = inBatches(entries, [])
          expect(inBatches(entries, cuts)).toEqual(whole)
          expect(SessionMetadata.metadataOf(whole.metadata)).toEqual(SessionMetadata.sessionMetadata(entries))
        }
      ),
      { numRuns: 60 }
    )
  })

  it("indexes prompts, assistant text, thinking, tool inputs and results with their roles", () => {
    const texts = SessionDerive.textsOf({
      type: "assistant",
      uuid: "a1",
      timestamp: "2026-01-02T03:04:05.000Z",
      message: {
        content: [
          { type: "thinking", thinking: "pondering" },
          { type: "text", text: "answer" },
          { type: "tool_use", name: "Bash", input: { command: "ls" } }
        ]
      }
    })
    expect(texts.map((row) => [row.role, row.text])).toEqual([
      ["assistant", "pondering"],
      ["assistant", "answer"],
      ["tool", "{\"command\":\"ls\"}"]
    ])
    expect(texts[0]).toMatchObject({ uuid: "a1", timeMs: Date.parse("2026-01-02T03:04:05.000Z") })
    const user = SessionDerive.textsOf({
      type: "user",
      message: {
        content: [{ type: "tool_result", content: [{ type: "text", text: "out" }] }, { type: "text", text: "hi" }]
      }
    })
    expect(user.map((row) => [row.role, row.text])).toEqual([["tool", "out"], ["user", "hi"]])
    expect(SessionDerive.textsOf({ type: "user", isMeta: true, message: { content: "caveat" } })).toEqual([])
    expect(SessionDerive.textsOf({ type: "summary", summary: "s" })).toEqual([])
  })

  it("a field is capped without splitting a pair, and holds no U+0000 or unpaired surrogate", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 9000 }), fc.nat(9000), (text, pad) => {
        const out = SessionDerive.indexable("x".repeat(pad) + text)
        if (out === undefined) return
        expect(out.length).toBeLessThanOrEqual(SessionDerive.FIELD_CAP)
        expect(out.includes("\u0000")).toBe(false)
        expect(encodeURIComponent(out)).toBeTypeOf("string") // throws on an unpaired surrogate
      }),
      { numRuns: 200 }
    )
    const pair = "😀"
    expect(SessionDerive.indexable("a".repeat(SessionDerive.FIELD_CAP - 1) + pair)).toBe(
      "a".repeat(SessionDerive.FIELD_CAP - 1)
    )
  })
})
