import * as Fixtures from "@acx/fixtures"
import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as Redact from "../src/Redact.js"
import * as SessionFold from "../src/SessionFold.js"
import * as SessionItem from "../src/SessionItem.js"
import * as SessionTurns from "../src/SessionTurns.js"

const uuid = fc.constantFrom("u1", "u2", "u3", "u4", "u5", "u6", "u7")
const toolId = fc.constantFrom("toolu_1", "toolu_2")
const text = fc.oneof(
  fc.string(),
  fc.string({ minLength: 1_990, maxLength: 5_000 }),
  fc.string().map((s) => `${s} sk-ant-api03-${"Ab1".repeat(10)} ${s}`)
)
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("thinking"), thinking: text }),
  fc.record({
    type: fc.constant("tool_use"),
    id: toolId,
    name: fc.constant("Bash"),
    input: fc.record({ command: text })
  })
)
const entry = fc.oneof(
  fc.record({ type: fc.constant("user"), uuid, message: fc.record({ role: fc.constant("user"), content: text }) }),
  fc.record({
    type: fc.constant("user"),
    uuid,
    message: fc.record({
      role: fc.constant("user"),
      content: fc.array(fc.record({ type: fc.constant("tool_result"), tool_use_id: toolId, content: text }), {
        minLength: 1,
        maxLength: 2
      })
    })
  }),
  fc.record({
    type: fc.constant("assistant"),
    uuid,
    message: fc.record({
      id: fc.constantFrom("m1", "m2", "m3"),
      role: fc.constant("assistant"),
      content: fc.array(block, { maxLength: 3 })
    })
  }),
  fc.record({ type: fc.constant("system"), uuid, subtype: fc.constant("note"), content: text }),
  fc.anything()
)
const inputs = fc.array(entry, { maxLength: 20 }).map((entries) => entries.map((e, i) => ({ line: i + 1, entry: e })))

const turnsOf = (lines: ReadonlyArray<SessionItem.Input>) =>
  SessionTurns.turnsOf(SessionFold.items(lines, undefined, Redact.redactSecrets))

describe("SessionTurns", () => {
  it("numbers the conversation's turns, cuts every field at the cap and says so, shows no secret", () => {
    fc.assert(
      fc.property(inputs, (lines) => {
        const turns = turnsOf(lines)
        expect(turns.map((turn) => turn.turn)).toEqual(turns.map((_, i) => i + 1))
        for (const turn of turns) {
          expect(["prompt", "assistant", "results", "compaction"]).toContain(turn.kind)
          expect(turn.text).not.toMatch(/sk-ant-api03-/)
          // every cut says how much there was and shows at most the cap
          for (const [, whole, shown] of turn.text.matchAll(/\[… cut: (\d+) characters, the first (\d+) shown\]/g)) {
            expect(Number(shown)).toBeLessThanOrEqual(SessionTurns.FIELD_CAP)
            expect(Number(whole)).toBeGreaterThan(Number(shown))
          }
        }
      }),
      { numRuns: 200 }
    )
  })

  it("a field over the cap shows its first FIELD_CAP characters and the whole size", () => {
    const long = "x".repeat(9_000)
    expect(SessionTurns.field(SessionItem.capped(long))).toBe(
      `${"x".repeat(SessionTurns.FIELD_CAP)}\n[… cut: 9000 characters, the first ${SessionTurns.FIELD_CAP} shown]`
    )
    expect(SessionTurns.field({ text: "short", size: 5 })).toBe("short")
    // a surrogate pair at the cut is not split
    const emoji = `${"x".repeat(SessionTurns.FIELD_CAP - 1)}😀tail`
    expect(SessionTurns.field({ text: emoji, size: emoji.length })).toMatch(/^x+\n\[… cut: /)
  })

  it("a window: around a uuid (that turn in the middle), from a turn, at most max; a uuid no turn holds", () => {
    fc.assert(
      fc.property(
        inputs,
        fc.integer({ min: -3, max: 80 }),
        fc.option(fc.integer({ min: -5, max: 30 }), { nil: undefined }),
        (lines, max, fromTurn) => {
          const turns = turnsOf(lines)
          const count = Math.min(SessionTurns.MAX_TURNS, Math.max(1, max))
          const from = Either.getOrThrow(SessionTurns.window(turns, { fromTurn, max }))
          expect(from.length).toBeLessThanOrEqual(count)
          if (from.length > 0) expect(from[0]!.turn).toBe(Math.max(1, fromTurn ?? 1))
          for (const turn of turns) {
            for (const id of turn.uuids) {
              const around = Either.getOrThrow(SessionTurns.window(turns, { around: id, max }))
              expect(around.length).toBe(Math.min(count, turns.length))
              expect(around.some((t) => t.uuids.includes(id))).toBe(true)
            }
          }
          expect(SessionTurns.window(turns, { around: "no-such-uuid" })).toEqual(
            Either.left({ _tag: "NotFound", uuid: "no-such-uuid" })
          )
        }
      ),
      { numRuns: 200 }
    )
  })

  it("a real session: prompts, replies and tool calls with their results", () => {
    const file = Fixtures.transcriptFiles().find((f) => f.includes("258c7280"))!
    const lines = Fixtures.readJsonLines(file).map((line, i) => ({ line: i + 1, entry: line.value }))
    const turns = turnsOf(lines)
    expect(turns[0]!.kind).toBe("prompt")
    expect(turns.some((turn) => /^Assistant \(claude-[^)]+\):/.test(turn.text))).toBe(true)
    expect(turns.some((turn) => /Tool call Bash \(toolu_[^)]+\):\n[\s\S]*\nResult:\n/.test(turn.text))).toBe(true)
  })
})
