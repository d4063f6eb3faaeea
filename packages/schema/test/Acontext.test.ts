import { Acontext } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

const SID = "44444444-4444-4444-4444-444444444444"

// Responses of the Acontext API's session routes as the server (memodb-io/Acontext) documents
// them, with concrete values for its placeholders.
const createdSession = {
  code: 0,
  msg: "",
  data: {
    id: SID,
    project_id: "11111111-2222-3333-4444-555555555555",
    user_id: null,
    disable_task_tracking: false,
    configs: null,
    created_at: "2026-04-21T10:00:00Z",
    updated_at: "2026-04-21T10:00:00Z"
  }
}

const storedMessage = {
  code: 0,
  msg: "",
  data: {
    id: "66666666-6666-6666-6666-666666666666",
    session_id: SID,
    parent_id: null,
    role: "assistant",
    meta: { model: "claude-sonnet-4-20250514", has_thinking: true },
    parts: [
      { type: "thinking", text: "Let me reason...", meta: { signature: "sig123" } },
      { type: "text", text: "Hello, world!" }
    ],
    task_id: null,
    session_task_process_status: "pending",
    created_at: "2026-04-21T10:00:01Z",
    updated_at: "2026-04-21T10:00:01Z"
  }
}

const messagesPage = {
  code: 0,
  msg: "",
  data: {
    items: [
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] }
    ],
    ids: ["77777777-7777-7777-7777-777777777777", "88888888-8888-8888-8888-888888888888"],
    metas: [{}, { model: "claude-sonnet-4-20250514" }],
    next_cursor: "opaque-cursor",
    has_more: true,
    this_time_tokens: 123,
    edit_at_message_id: "88888888-8888-8888-8888-888888888888"
  }
}

describe("Acontext envelopes", () => {
  it("decodes POST /session (201 and the idempotent 200)", () => {
    expect(Schema.decodeUnknownSync(Acontext.CreateSessionResponse)(createdSession)).toStrictEqual(createdSession)
    const withUser = {
      ...createdSession,
      data: { ...createdSession.data, user_id: "99999999-0000-0000-0000-000000000000" }
    }
    expect(Schema.decodeUnknownSync(Acontext.CreateSessionResponse)(withUser)).toStrictEqual(withUser)
  })

  it("decodes POST /session/{id}/messages", () => {
    const decoded = Schema.decodeUnknownSync(Acontext.StoreMessageResponse)(storedMessage)
    expect(decoded).toStrictEqual(storedMessage)
    expect(decoded.data?.parts.map((part) => part.type)).toStrictEqual(["thinking", "text"])
  })

  it("decodes GET /session/{id}/messages", () => {
    expect(Schema.decodeUnknownSync(Acontext.GetMessagesResponse)(messagesPage)).toStrictEqual(messagesPage)
  })

  it("defaults metas to [] when absent or null", () => {
    const { metas: _metas, ...withoutMetas } = messagesPage.data
    expect(Schema.decodeUnknownSync(Acontext.GetMessagesOutput)(withoutMetas).metas).toStrictEqual([])
    expect(Schema.decodeUnknownSync(Acontext.GetMessagesOutput)({ ...withoutMetas, metas: null }).metas)
      .toStrictEqual([])
  })

  it("types items with GetMessagesOutputOf", () => {
    const Item = Schema.Struct({ role: Schema.Literal("user", "assistant"), content: Schema.Array(Schema.Unknown) })
    const page = Schema.decodeUnknownSync(Acontext.GetMessagesOutputOf(Item))(messagesPage.data)
    expect(page.items.map((item) => item.role)).toStrictEqual(["user", "assistant"])
  })

  it("decodes GET /session", () => {
    const listing = { code: 0, msg: "", data: { items: [createdSession.data], next_cursor: null, has_more: false } }
    expect(Schema.decodeUnknownSync(Acontext.ListSessionsResponse)(listing)).toStrictEqual(listing)
  })

  it("decodes error bodies", () => {
    const bodies = [
      { code: 401, msg: "Unauthorized" },
      { code: 409, msg: "session with this UUID already exists" },
      { code: 400, msg: "invalid UUID format for use_uuid", error: "invalid UUID length: 6" },
      { code: 500, msg: "database error", error: "session not found" },
      { code: 400, msg: "parameter error", error: "Key: 'StoreMessageReq.Blob' Error:Field validation" },
      { code: 0, msg: "" },
      { code: 0, msg: "pong" }
    ]
    for (const body of bodies) {
      expect(Schema.decodeUnknownSync(Acontext.ErrorEnvelope)(body)).toStrictEqual(body)
    }
    expect(Either.isLeft(Schema.decodeUnknownEither(Acontext.ErrorEnvelope)({ msg: "no code" }))).toBe(true)
  })

  it("preserves unknown fields, nested ones included", () => {
    const body = {
      ...storedMessage,
      trace_id: "t",
      data: { ...storedMessage.data, asset: null, parts: [{ type: "image", meta: {}, asset: { key: "k" } }] }
    }
    expect(Schema.decodeUnknownSync(Acontext.StoreMessageResponse)(body)).toStrictEqual(body)
  })
})

describe("Acontext request bodies", () => {
  it("encodes POST /session bodies", () => {
    const body = { user: "alice@example.com", use_uuid: SID }
    expect(Schema.encodeSync(Acontext.CreateSessionRequest)(body)).toStrictEqual(body)
    expect(Schema.decodeUnknownSync(Acontext.CreateSessionRequest)({})).toStrictEqual({})
    const full = { use_uuid: SID, disable_task_tracking: true, configs: { mode: "x" } }
    expect(Schema.decodeUnknownSync(Acontext.CreateSessionRequest)(full)).toStrictEqual(full)
  })

  it("rejects a non-UUID use_uuid, as the server does", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(Acontext.CreateSessionRequest)({ use_uuid: "sess-1" }))).toBe(true)
  })

  it("encodes POST /session/{id}/messages bodies", () => {
    const body = {
      format: "anthropic",
      meta: { model: "claude-sonnet-4-20250514", has_thinking: true },
      blob: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me reason...", signature: "sig123" },
          { type: "text", text: "Hello, world!" }
        ]
      }
    } as const
    expect(Schema.encodeSync(Acontext.StoreMessageRequest)(body)).toStrictEqual(body)
    expect(Either.isLeft(Schema.decodeUnknownEither(Acontext.StoreMessageRequest)({ ...body, format: "xml" }))).toBe(
      true
    )
  })

  it("property: sessions and pages round-trip", () => {
    for (const schema of [Acontext.Session, Acontext.Message, Acontext.ListSessionsOutput] as const) {
      const s = schema as unknown as Schema.Schema<unknown, unknown>
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(s), (value) => {
          expect(Schema.decodeUnknownSync(s)(Schema.encodeSync(s)(value))).toStrictEqual(value)
        }),
        { numRuns: 100 }
      )
    }
  })
})
