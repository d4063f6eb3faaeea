import { mergeAssistantFragments } from "@acx/convert/Fragments"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"

const frag = (uuid: string, id: string, block: unknown, usage: unknown, extra: Record<string, unknown> = {}) => ({
  type: "assistant",
  uuid,
  parentUuid: `p-${uuid}`,
  timestamp: `t-${uuid}`,
  requestId: "req_1",
  message: {
    id,
    role: "assistant",
    model: "m",
    content: [block],
    usage,
    stop_reason: uuid === "a3" ? "end_turn" : null
  },
  ...extra
})

describe("mergeAssistantFragments", () => {
  it("merges fragments sharing message.id, keeping first ids and last usage, in first position", () => {
    const user = { type: "user", uuid: "u1", message: { role: "user", content: "hi" } }
    const entries = [
      frag("a1", "msg_1", { type: "thinking", thinking: "x" }, { output_tokens: 1 }),
      user,
      frag("a2", "msg_1", { type: "text", text: "t" }, { output_tokens: 5 }),
      frag("a3", "msg_1", { type: "tool_use", id: "tu", name: "Bash", input: {} }, { output_tokens: 9 })
    ]
    const merged = mergeAssistantFragments(entries)
    expect(merged).toHaveLength(2)
    expect(merged[1]).toBe(user)
    const [a] = merged
    expect(a?.uuid).toBe("a1")
    expect(a?.parentUuid).toBe("p-a1")
    expect(a?.timestamp).toBe("t-a1")
    expect(a?.mergedUuids).toEqual(["a1", "a2", "a3"])
    expect(a?.message).toMatchObject({
      id: "msg_1",
      usage: { output_tokens: 9 },
      stop_reason: "end_turn",
      content: [{ type: "thinking" }, { type: "text" }, { type: "tool_use" }]
    })
  })

  it("keeps different requestIds, sidechains and agents apart", () => {
    const entries = [
      frag("a1", "msg_1", { type: "text", text: "1" }, {}),
      frag("a2", "msg_1", { type: "text", text: "2" }, {}, { requestId: "req_2" }),
      frag("a3", "msg_1", { type: "text", text: "3" }, {}, { isSidechain: true, agentId: "x" }),
      frag("a4", "msg_1", { type: "text", text: "4" }, {}, { isSidechain: true, agentId: "y" }),
      frag("a5", "msg_1", { type: "text", text: "5" }, {}, { isSidechain: true, agentId: "y" })
    ]
    expect(mergeAssistantFragments(entries).map((e) => e.mergedUuids)).toEqual([["a1"], ["a2"], ["a3"], ["a4", "a5"]])
  })

  it("is total: malformed input gives a value", () => {
    expect(mergeAssistantFragments([null, 1, "x", [], { type: "assistant" }, { type: "assistant", message: 3 }]))
      .toEqual([{ type: "assistant" }, { type: "assistant", message: 3 }])
    expect(mergeAssistantFragments(undefined as never)).toEqual([])
    const stringContent = [
      { type: "assistant", uuid: "a", message: { id: "m", content: "one" } },
      { type: "assistant", uuid: "b", message: { id: "m", content: null } }
    ]
    expect(mergeAssistantFragments(stringContent)[0]?.message).toEqual({
      id: "m",
      content: [{ type: "text", text: "one" }]
    })
  })

  it("fixtures: merging keeps every block and every fragment uuid", () => {
    for (const file of Fixtures.transcriptFiles()) {
      const entries = Fixtures.readJsonLines(file).map((line) => line.value)
      const merged = mergeAssistantFragments(entries)
      const blocks = (list: ReadonlyArray<unknown>) =>
        list.filter((e: any) => e?.type === "assistant" && Array.isArray(e.message?.content))
          .reduce((n: number, e: any) => n + e.message.content.length, 0)
      expect(blocks(merged), Fixtures.relative(file)).toBe(blocks(entries))
      expect(merged.flatMap((e) => e.mergedUuids ?? []).length).toBe(
        entries.filter((e: any) => e?.type === "assistant" && typeof e.message?.id === "string" && e.uuid).length
      )
    }
  })
})
