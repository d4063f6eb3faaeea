import { transcriptToBlobs } from "@acx/convert/TranscriptBlobs"
import * as Fixtures from "@acx/fixtures"
import * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as path from "node:path"

const isBlob = Schema.is(AnthropicBlob.AnthropicBlob)
const isMeta = Schema.is(AnthropicBlob.AssistantMeta)

const load = (dir: string, name: string): Array<unknown> => {
  const file = Fixtures.transcriptFiles().find((f) =>
    path.basename(path.dirname(f)) === dir && path.basename(f) === name
  )
  expect(file).toBeDefined()
  return Fixtures.readJsonLines(file!).map((line) => line.value)
}

const entries = [
  { type: "user", uuid: "u1", message: { role: "user", content: "hello" } },
  { type: "user", uuid: "u0", isMeta: true, message: { role: "user", content: "caveat" } },
  {
    type: "assistant",
    uuid: "a1",
    requestId: "r",
    message: { id: "m", model: "opus", content: [{ type: "thinking", thinking: "hmm", signature: "s" }] }
  },
  {
    type: "assistant",
    uuid: "a2",
    requestId: "r",
    message: { id: "m", model: "opus", content: [{ type: "text", text: "hi" }] }
  },
  { type: "user", uuid: "s1", isSidechain: true, message: { role: "user", content: "side" } },
  { type: "user", uuid: "e1", message: { role: "user", content: "" } },
  { type: "system", subtype: "compact_boundary" },
  null
]

describe("transcriptToBlobs", () => {
  it("merges fragments and converts through the storage rules", () => {
    expect(transcriptToBlobs(entries)).toEqual([
      { blob: { role: "user", content: [{ type: "text", text: "hello" }] }, meta: null, uuid: "u1" },
      { blob: { role: "assistant", content: [{ type: "text", text: "hi" }] }, meta: { model: "opus" }, uuid: "a1" }
    ])
  })

  it("options include thinking, sidechains and meta entries", () => {
    const out = transcriptToBlobs(entries, {
      includeThinking: true,
      thinkingFormat: "native",
      includeSidechains: true,
      includeMeta: true
    })
    expect(out.map((b) => b.uuid)).toEqual(["u1", "u0", "a1", "s1"])
    expect(out[2]).toEqual({
      blob: {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: "hi" }]
      },
      meta: { model: "opus", has_thinking: true },
      uuid: "a1"
    })
  })

  it("is total", () => {
    expect(transcriptToBlobs(null as never)).toEqual([])
    expect(transcriptToBlobs([1, "x", { type: "assistant" }, { type: "user", message: 5 }], null as never)).toEqual([])
  })

  it("fixtures: every blob is a valid AnthropicBlob", () => {
    for (const file of Fixtures.transcriptFiles()) {
      const values = Fixtures.readJsonLines(file).map((line) => line.value)
      for (const options of [{}, { includeThinking: true, includeSidechains: true, includeMeta: true }]) {
        for (const { blob, meta } of transcriptToBlobs(values, options)) {
          expect(isBlob(blob), Fixtures.relative(file)).toBe(true)
          expect(meta === null || isMeta(meta)).toBe(true)
        }
      }
    }
  })

  it("fixtures: counts match the non-empty user/assistant messages", () => {
    // crud.jsonl: 1 prompt + 9 tool results + 10 merged assistant messages.
    const crud = transcriptToBlobs(load("tomjnsn-agentlogs", "crud.jsonl"))
    expect(crud.filter((b) => b.blob.role === "user")).toHaveLength(10)
    expect(crud.filter((b) => b.blob.role === "assistant")).toHaveLength(10)
    // compact.jsonl: 5 non-meta user strings; 1 assistant (thinking + text merged).
    const compact = transcriptToBlobs(load("tomjnsn-agentlogs", "compact.jsonl"))
    expect(compact.map((b) => b.blob.role)).toEqual(["user", "user", "user", "assistant", "user", "user"])
    const withMeta = transcriptToBlobs(load("tomjnsn-agentlogs", "compact.jsonl"), { includeMeta: true })
    expect(withMeta).toHaveLength(9)
    // The subagent file is all sidechain: nothing by default; when included, its 3 user lines
    // (1 prompt, 2 tool results) and 5 assistant lines of 3 message ids.
    const agent = load("subagents", "agent-a881341.jsonl")
    expect(transcriptToBlobs(agent)).toEqual([])
    expect(transcriptToBlobs(agent, { includeSidechains: true }).map((b) => b.blob.role))
      .toEqual(["user", "assistant", "user", "assistant", "user", "assistant"])
  })
})
