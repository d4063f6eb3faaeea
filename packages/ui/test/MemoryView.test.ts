/**
 * The memory page's pure shaping: total on any input (query parameters, request bodies, list
 * columns, event rows), the turn an observation came from (a tool call on one of its files, else
 * the first, else a prompt), a prompt's user entry (redacted text, cut prompts, nearest in
 * time), the spend against the budget, and strict curation bodies.
 */
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import * as MemoryView from "../src/MemoryView.js"

const event = (
  id: number,
  kind: MemoryView.EventRow["kind"],
  fields: Partial<MemoryView.EventRow> = {}
): MemoryView.EventRow => ({
  id,
  sessionId: "s-1",
  project: "/p",
  kind,
  idempotencyKey: kind === "prompt" ? `prompt:${id}` : `tool:s-1:toolu_${id}`,
  toolName: kind === "prompt" ? null : "Read",
  payload: "{}",
  createdAt: 1_000,
  state: "done",
  attempts: 0,
  lastError: null,
  ...fields
})

const toolOn = (id: number, file: string, name = "Edit") =>
  event(id, "tool", { toolName: name, payload: JSON.stringify({ tool_input: { file_path: file } }) })

describe("MemoryView", () => {
  it("reads any query parameters to a query or one message", () => {
    fc.assert(fc.property(fc.dictionary(fc.constantFrom("limit", "before", "q", "project", "type", "x"), fc.string()), (
      record
    ) => {
      const result = MemoryView.observationsQuery(new URLSearchParams(record))
      if (Either.isRight(result)) {
        expect(result.right.limit).toBeGreaterThanOrEqual(1)
        expect(result.right.limit).toBeLessThanOrEqual(MemoryView.MAX_LIMIT)
      } else {
        expect(result.left).not.toBe("")
      }
    }))
    expect(MemoryView.observationsQuery(new URLSearchParams("before=O12&limit=5&q=%20"))).toEqual(
      Either.right({ project: undefined, q: undefined, type: undefined, limit: 5, before: 12 })
    )
  })

  it("decodes any JSON body to a selection or one line, strictly", () => {
    fc.assert(fc.property(fc.jsonValue(), (body) => {
      const forget = MemoryView.decodeBody(MemoryView.ForgetBody, body)
      const restore = MemoryView.decodeBody(MemoryView.RestoreBody, body)
      for (const result of [forget, restore]) {
        if (Either.isLeft(result)) expect(result.left).not.toContain("\n")
      }
    }))
    expect(MemoryView.decodeBody(MemoryView.ForgetBody, { ids: ["O1", "s2", "3"] })).toEqual(
      Either.right({ ids: ["O1", "s2", "3"] })
    )
    expect(MemoryView.decodeBody(MemoryView.ForgetBody, { filter: { query: "tax", before: 5 } })).toEqual(
      Either.right({ filter: { query: "tax", before: 5 } })
    )
    for (const bad of [{ ids: ["O1"], more: 1 }, { filter: {} }, { ids: ["P1"] }, { filter: { type: "" } }, null]) {
      expect(Either.isLeft(MemoryView.decodeBody(MemoryView.ForgetBody, bad)), JSON.stringify(bad)).toBe(true)
    }
  })

  it("reads list columns leniently", () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
      expect(MemoryView.stringList(text).every((item) => typeof item === "string")).toBe(true)
      expect(MemoryView.idList(text).every((id) => Number.isSafeInteger(id))).toBe(true)
    }))
    expect(MemoryView.stringList("[\"a\",1,null,\"b\"]")).toEqual(["a", "b"])
    expect(MemoryView.idList("[3,\"4\",5.5,6]")).toEqual([3, 6])
  })

  it("finds the turn: the tool call on one of the observation's files, else the first, else a prompt", () => {
    const events = [event(1, "prompt"), toolOn(2, "/p/src/a.ts", "Read"), toolOn(3, "/p/src/b.ts")]
    expect(MemoryView.sourceEvent({ filesModified: ["src/b.ts"], filesRead: [] }, events)?.id).toBe(3)
    expect(MemoryView.sourceEvent({ filesModified: [], filesRead: ["/p/src/a.ts"] }, events)?.id).toBe(2)
    expect(MemoryView.sourceEvent({ filesModified: ["other.ts"], filesRead: [] }, events)?.id).toBe(2)
    expect(MemoryView.sourceEvent({ filesModified: [], filesRead: [] }, [event(1, "prompt")])?.id).toBe(1)
    expect(MemoryView.sourceEvent({ filesModified: [], filesRead: [] }, [event(1, "summarise")])).toBeUndefined()
    expect(MemoryView.turnLink(toolOn(3, "/p/x"), undefined)).toEqual({
      sessionId: "s-1",
      turn: "toolu_3",
      kind: "tool",
      label: "Edit"
    })
    // a key of another session is not this session's tool_use_id
    expect(MemoryView.toolUseIdOf(event(4, "tool", { idempotencyKey: "tool:s-2:toolu_4" }))).toBeUndefined()
  })

  it("finds a prompt's user entry by its redacted text, nearest in time; a cut prompt by its start", () => {
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
    const entries = MemoryView.promptEntries([
      { type: "user", uuid: "u1", timestamp: "2026-01-01T10:00:00Z", message: { content: `use ${secret}` } },
      { type: "user", uuid: "u2", timestamp: "2026-01-01T12:00:00Z", message: { content: `use ${secret}` } },
      { type: "user", uuid: "u3", isMeta: true, message: { content: "meta" } },
      { type: "user", uuid: "u4", message: { content: [{ type: "tool_result", content: "x" }] } },
      {
        type: "user",
        uuid: "u5",
        timestamp: "2026-01-01T13:00:00Z",
        message: { content: [{ type: "text", text: "long text here" }] }
      },
      "garbage",
      null
    ])
    expect(entries.map((entry) => entry.uuid)).toEqual(["u1", "u2", "u5"])
    const stored = "use [REDACTED:anthropic-key]"
    expect(MemoryView.promptEntryUuid(stored, Date.parse("2026-01-01T11:59:00Z"), entries)).toBe("u2")
    expect(MemoryView.promptEntryUuid(stored, Date.parse("2026-01-01T10:01:00Z"), entries)).toBe("u1")
    expect(MemoryView.promptEntryUuid("long\n[… cut: 10 more characters]", 0, entries)).toBe("u5")
    expect(MemoryView.promptEntryUuid("nothing like it", 0, entries)).toBeUndefined()
  })

  it("sums the spend per day and flags days over a budget", () => {
    const row = (day: string, cost: number, tokens: number): MemoryView.SpendRow => ({
      day,
      calls: 1,
      inputTokens: tokens,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: cost
    })
    const body = MemoryView.spend([row("2026-01-02", 2, 10), row("2026-01-01", 0.5, 5000)], { usd: 1, tokens: 1000 })
    expect(body.days.map((day) => [day.day, day.overBudget])).toEqual([["2026-01-01", true], ["2026-01-02", true]])
    expect(body.totals).toEqual({ calls: 2, tokens: 5010, costUsd: 2.5 })
    expect(MemoryView.spend([row("2026-01-01", 2, 10)], { usd: null, tokens: null }).days[0]!.overBudget).toBe(false)
  })
})
