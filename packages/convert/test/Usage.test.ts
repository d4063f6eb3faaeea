import { usageOf } from "@acx/convert/Usage"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"

const a = (id: string | undefined, requestId: string | undefined, model: string, usage: unknown) => ({
  type: "assistant",
  ...(requestId === undefined ? {} : { requestId }),
  message: { ...(id === undefined ? {} : { id }), model, usage, content: [] }
})

const u = (input: number, output: number, cacheRead: number, cacheWrite: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheWrite
})

describe("usageOf", () => {
  it("counts each message.id + requestId once, with the LAST fragment's usage", () => {
    const entries = [
      a("m1", "r1", "opus", u(3, 1, 100, 10)),
      { type: "user", message: { usage: u(1000, 1000, 1000, 1000) } },
      a("m1", "r1", "opus", u(3, 7, 100, 10)),
      a("m1", "r1", "opus", u(3, 42, 100, 10)),
      a("m1", "r2", "opus", u(1, 1, 1, 1)),
      a("m2", "r3", "sonnet", u(2, 5, 0, 0)),
      a(undefined, undefined, "sonnet", u(1, 1, 0, 0)),
      a(undefined, undefined, "sonnet", u(1, 1, 0, 0)),
      a("m3", "r4", "<synthetic>", u(0, 0, 0, 0))
    ]
    const last = usageOf(entries)
    expect(last.messages).toBe(6)
    expect(last.total).toEqual({ input: 8, output: 50, cacheRead: 101, cacheWrite: 11 })
    expect(last.byModel).toEqual({
      opus: { input: 4, output: 43, cacheRead: 101, cacheWrite: 11 },
      sonnet: { input: 4, output: 7, cacheRead: 0, cacheWrite: 0 }
    })
    expect(usageOf(entries, "first").total).toEqual({ input: 8, output: 9, cacheRead: 101, cacheWrite: 11 })
  })

  it("is total: malformed entries and fields are skipped or count 0", () => {
    const empty = { total: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, byModel: {}, messages: 0 }
    expect(usageOf(null as never)).toEqual(empty)
    expect(usageOf([null, 3, "x", { type: "assistant" }, { type: "assistant", message: { usage: null } }])).toEqual(
      empty
    )
    const odd = usageOf([
      a("m", "r", "__proto__", { input_tokens: "9", output_tokens: -4, cache_read_input_tokens: Number.NaN }),
      a("n", undefined, "", { output_tokens: 2 })
    ])
    expect(odd.total).toEqual({ input: 0, output: 2, cacheRead: 0, cacheWrite: 0 })
    expect(Object.keys(odd.byModel)).toEqual(["__proto__"])
  })

  it(
    "marot-spotter 2.x: the first-fragment rule undercounts output (10,458 vs 38,899)",
    () => {
      const file = Fixtures.transcriptFiles().find((f) =>
        path.basename(f) === "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
      )
      expect(file).toBeDefined()
      const entries = Fixtures.readJsonLines(file!).map((line) => line.value)
      const ours = usageOf(entries)
      const firstRule = usageOf(entries, "first")
      expect(ours.messages).toBe(152)
      expect(ours.total).toEqual({ input: 180, output: 38899, cacheRead: 14771617, cacheWrite: 349474 })
      expect(firstRule.total).toEqual({ input: 180, output: 10458, cacheRead: 14771617, cacheWrite: 349474 })
      expect(firstRule.total.output).toBeLessThan(ours.total.output)
      expect(Object.keys(ours.byModel)).toEqual(["claude-opus-4-6"])
    }
  )
})
