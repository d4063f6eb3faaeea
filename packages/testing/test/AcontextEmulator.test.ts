import { AcontextEmulatorError, startAcontextEmulator } from "@acx/testing"
import * as Emulator from "@acx/testing/AcontextEmulator"
import type { AcontextEmulatorOptions } from "@acx/testing/AcontextEmulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

const SID = "44444444-4444-4444-4444-444444444444"
const SID2 = "55555555-5555-5555-5555-555555555555"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

interface CallOptions {
  readonly body?: unknown
  /** Sent as is (no JSON encoding, no content type). */
  readonly raw?: string
  /** `null`: no Authorization header. */
  readonly key?: string | null
  readonly headers?: Record<string, string>
}

const request = (
  emulator: { readonly url: string; readonly apiKey: string },
  method: string,
  path: string,
  options: CallOptions = {}
): Promise<Reply> => {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers }
  const key = options.key === undefined ? emulator.apiKey : options.key
  if (key !== null) headers["Authorization"] = `Bearer ${key}`
  if (options.body !== undefined) headers["Content-Type"] = "application/json"
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  return fetch(`${emulator.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) }).then(
    async (res) => {
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = text === "" ? undefined : JSON.parse(text)
      } catch {
        // kept as text
      }
      return { status: res.status, headers: res.headers, body: parsed }
    }
  )
}

const call = (
  emulator: { readonly url: string; readonly apiKey: string },
  method: string,
  path: string,
  options?: CallOptions
) => Effect.promise(() => request(emulator, method, path, options))

/** The same call, as an Either: `Left` when fetch itself rejects (dropped connection). */
const attempt = (
  emulator: { readonly url: string; readonly apiKey: string },
  method: string,
  path: string,
  options?: CallOptions
) => Effect.either(Effect.tryPromise(() => request(emulator, method, path, options)))

const withEmulator = <A, E>(
  options: AcontextEmulatorOptions,
  f: (emulator: Emulator.AcontextEmulator) => Effect.Effect<A, E>
) => Effect.scoped(Effect.flatMap(Emulator.make(options), f))

const createSession = (emulator: Emulator.AcontextEmulator, id: string = SID, key?: string) =>
  call(emulator, "POST", "/session", { body: { use_uuid: id }, ...(key === undefined ? {} : { key }) })

const store = (emulator: Emulator.AcontextEmulator, sessionId: string, blob: unknown, meta?: unknown) =>
  call(emulator, "POST", `/session/${sessionId}/messages`, {
    body: { format: "anthropic", blob, ...(meta === undefined ? {} : { meta }) }
  })

const text = (t: string) => ({ role: "user", content: [{ type: "text", text: t }] })

const tempDirs: Array<string> = []
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

describe("AcontextEmulator", () => {
  describe("routing and auth", () => {
    it.live("GET /ping answers pong without auth", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const res = yield* call(emu, "GET", "/ping", { key: null })
          expect(res.status).toBe(200)
          expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8")
          expect(res.body).toEqual({ code: 0, msg: "pong" })
        })))

    it.live("the base URL includes /api/v1 and an ephemeral port on 127.0.0.1", () =>
      withEmulator({}, (emu) =>
        Effect.sync(() => {
          expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
          expect(emu.url).toBe(`http://127.0.0.1:${emu.port}/api/v1`)
          expect(emu.port).toBeGreaterThan(0)
          expect(emu.apiKey).toMatch(/^sk-ac-/)
          expect(emu.otherProjectApiKey).toMatch(/^sk-ac-/)
          expect(emu.apiKey).not.toBe(emu.otherProjectApiKey)
          expect(emu.projectId).toMatch(UUID)
        })))

    it.live("unknown routes answer 404 with an envelope", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const configs = yield* call(emu, "GET", `/session/${SID}/configs`)
          expect(configs.status).toBe(404)
          expect(configs.body).toEqual({
            code: 404,
            msg: "not found",
            error: `GET /api/v1/session/${SID}/configs is not emulated`
          })
          const put = yield* call(emu, "PUT", "/session", { body: {} })
          expect(put.status).toBe(404)
          expect(put.body).toMatchObject({ code: 404, msg: "not found" })
        })))

    it.live("401 without a valid project key", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const unauthorized = { code: 401, msg: "Unauthorized" }
          for (
            const headers of [
              {},
              { Authorization: "Bearer sk-ac-not-issued-by-this-emulator" },
              { Authorization: `Bearer ${emu.apiKey.slice("sk-ac-".length)}` },
              { Authorization: `Token ${emu.apiKey}` },
              { Authorization: emu.apiKey }
            ]
          ) {
            const res = yield* call(emu, "POST", "/session", { key: null, headers, body: {} })
            expect(res.status).toBe(401)
            expect(res.body).toEqual(unauthorized)
          }
          const list = yield* call(emu, "GET", "/session", { key: "sk-ac-unknown" })
          expect(list.status).toBe(401)
          expect(list.body).toEqual(unauthorized)
          expect(yield* emu.sessions).toEqual([])
        })))
  })

  describe("POST /session", () => {
    it.live("201 on create, 200 for the same UUID in the same project, 409 from another project", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const created = yield* createSession(emu)
          expect(created.status).toBe(201)
          expect(created.body).toEqual({
            code: 0,
            msg: "",
            data: {
              id: SID,
              project_id: emu.projectId,
              user_id: null,
              disable_task_tracking: false,
              configs: null,
              created_at: expect.stringMatching(TIMESTAMP),
              updated_at: created.body.data.created_at
            }
          })
          const again = yield* createSession(emu)
          expect(again.status).toBe(200)
          expect(again.body).toEqual(created.body)

          const other = yield* createSession(emu, SID, emu.otherProjectApiKey)
          expect(other.status).toBe(409)
          expect(other.body).toEqual({ code: 409, msg: "session with this UUID already exists" })
          expect((yield* emu.sessions).map((s) => s.id)).toEqual([SID])
        })))

    it.live("400 for a use_uuid that is not a UUID, with the server's message", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const res = yield* createSession(emu, "sess-1")
          expect(res.status).toBe(400)
          expect(res.body).toEqual({
            code: 400,
            msg: "invalid UUID format for use_uuid",
            error: "invalid UUID length: 6"
          })
          const badHex = yield* createSession(emu, "4444444z-4444-4444-4444-444444444444")
          expect(badHex.body).toEqual({
            code: 400,
            msg: "invalid UUID format for use_uuid",
            error: "invalid UUID format"
          })
          expect(yield* emu.sessions).toEqual([])
        })))

    it.live("generates an id without use_uuid (no body at all, like the TS SDK), lowercases a given one", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const empty = yield* call(emu, "POST", "/session")
          expect(empty.status).toBe(201)
          expect(empty.body.data.id).toMatch(UUID)
          const upper = yield* createSession(emu, SID2.toUpperCase().replace(/5/g, "A"))
          expect(upper.status).toBe(201)
          expect(upper.body.data.id).toBe(SID2.replace(/5/g, "a"))
          const jsonWithoutBody = yield* call(emu, "POST", "/session", {
            headers: { "Content-Type": "application/json" }
          })
          expect(jsonWithoutBody.status).toBe(400)
          expect(jsonWithoutBody.body).toEqual({ code: 400, msg: "parameter error", error: "EOF" })
        })))

    it.live("user, disable_task_tracking and configs; type errors are parameter errors", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const alice = yield* call(emu, "POST", "/session", {
            body: { user: "alice@example.com", disable_task_tracking: true, configs: { agent: "bot1" } }
          })
          expect(alice.status).toBe(201)
          expect(alice.body.data).toMatchObject({ disable_task_tracking: true, configs: { agent: "bot1" } })
          expect(alice.body.data.user_id).toMatch(UUID)
          const untracked = yield* store(emu, alice.body.data.id, text("x"))
          expect(untracked.body.data.session_task_process_status).toBe("disable_tracking")
          const alice2 = yield* call(emu, "POST", "/session", { body: { user: "alice@example.com" } })
          expect(alice2.body.data.user_id).toBe(alice.body.data.user_id)
          const bad = yield* call(emu, "POST", "/session", { body: { user: 5 } })
          expect(bad.status).toBe(400)
          expect(bad.body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "json: cannot unmarshal number into Go struct field CreateSessionReq.user of type string"
          })
        })))
  })

  describe("POST /session/{id}/messages and GET …?format=anthropic", () => {
    it.live("stores an assistant message (thinking + text) and answers the stored Message DTO", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const res = yield* store(emu, SID, {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Let me reason...", signature: "sig123" },
              { type: "text", text: "Hello, world!" }
            ]
          }, { model: "claude-sonnet-4-20250514", has_thinking: true })
          expect(res.status).toBe(201)
          expect(res.body).toEqual({
            code: 0,
            msg: "",
            data: {
              id: expect.stringMatching(UUID),
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
              created_at: expect.stringMatching(TIMESTAMP),
              updated_at: res.body.data.created_at
            }
          })
          const second = yield* store(emu, SID, "not an object")
          expect(second.status).toBe(400)
          const third = yield* store(emu, SID, text("next"))
          expect(third.body.data.parent_id).toBe(res.body.data.id)
          expect(third.body.data.meta).toEqual({})
          expect(yield* emu.messages(SID)).toEqual([res.body.data, third.body.data])
        })))

    it.live("maps every block to its part, and reads it back with the converter's rules", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const blobs = [
            { role: "user", content: "Hi there" },
            {
              role: "assistant",
              content: [
                { type: "thinking", thinking: "", signature: "sig456" },
                { type: "text", text: "" },
                { type: "thinking", thinking: "Reasoning", signature: "sig123" },
                { type: "redacted_thinking", data: "opaque" },
                { type: "text", text: "Calling a tool", cache_control: { type: "ephemeral" } },
                { type: "tool_use", id: "tu_1", name: "calculator", input: { z: 1, expr: "1<2" } },
                { type: "tool_use", id: "", name: "nameless", input: {} },
                { type: "server_tool_use", id: "srv_1", name: "web_search", input: {} }
              ]
            },
            {
              role: "user",
              content: [
                { type: "tool_result", tool_use_id: "tu_1", content: "Result is 2" },
                {
                  type: "tool_result",
                  tool_use_id: "tu_2",
                  content: [{ type: "text", text: "line1" }, { type: "image", source: {} }, { text: "line2" }]
                },
                { type: "tool_result", tool_use_id: "tu_4", content: "error detail", is_error: true },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
                { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
                "not a block"
              ]
            },
            { role: "assistant", content: [] }
          ]
          const stored: Array<any> = []
          for (const blob of blobs) {
            const res = yield* store(emu, SID, blob)
            expect(res.status).toBe(201)
            stored.push(res.body.data)
          }
          expect(stored.map((m) => m.parts)).toEqual([
            [{ type: "text", text: "Hi there" }],
            [
              { type: "thinking", meta: { signature: "sig456" } },
              { type: "text" },
              { type: "thinking", text: "Reasoning", meta: { signature: "sig123" } },
              { type: "redacted_thinking", meta: { data: "opaque" } },
              { type: "text", text: "Calling a tool", meta: { cache_control: { type: "ephemeral" } } },
              {
                type: "tool-call",
                meta: {
                  id: "tu_1",
                  name: "calculator",
                  arguments: "{\"expr\":\"1\\u003c2\",\"z\":1}",
                  type: "tool_use"
                }
              },
              { type: "tool-call", meta: { id: "", name: "nameless", arguments: "{}", type: "tool_use" } }
            ],
            [
              { type: "tool-result", text: "Result is 2", meta: { tool_call_id: "tu_1", is_error: false } },
              { type: "tool-result", text: "line1line2", meta: { tool_call_id: "tu_2", is_error: false } },
              { type: "tool-result", text: "error detail", meta: { tool_call_id: "tu_4", is_error: true } },
              { type: "image", meta: { type: "base64", media_type: "image/png", data: "iVBOR" } },
              { type: "file", meta: { type: "url", url: "https://example.com/a.pdf" } }
            ],
            []
          ])

          const page = yield* call(emu, "GET", `/session/${SID}/messages?format=anthropic`)
          expect(page.status).toBe(200)
          expect(page.body).toEqual({
            code: 0,
            msg: "",
            data: {
              items: [
                { role: "user", content: [{ type: "text", text: "Hi there" }] },
                {
                  role: "assistant",
                  content: [
                    { type: "thinking", thinking: "Reasoning", signature: "sig123" },
                    { type: "redacted_thinking", data: "opaque" },
                    { type: "text", text: "Calling a tool", cache_control: { type: "ephemeral" } },
                    { type: "tool_use", id: "tu_1", name: "calculator", input: { expr: "1<2", z: 1 } }
                  ]
                },
                {
                  role: "user",
                  content: [
                    {
                      type: "tool_result",
                      tool_use_id: "tu_1",
                      content: [{ type: "text", text: "Result is 2" }],
                      is_error: false
                    },
                    {
                      type: "tool_result",
                      tool_use_id: "tu_2",
                      content: [{ type: "text", text: "line1line2" }],
                      is_error: false
                    },
                    {
                      type: "tool_result",
                      tool_use_id: "tu_4",
                      content: [{ type: "text", text: "error detail" }],
                      is_error: true
                    },
                    { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
                    { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }
                  ]
                },
                { role: "assistant", content: [] }
              ],
              ids: stored.map((m) => m.id),
              metas: [{}, {}, {}, {}],
              has_more: false,
              this_time_tokens: expect.any(Number),
              edit_at_message_id: stored[3].id
            }
          })
          expect(page.body.data.this_time_tokens).toBeGreaterThan(0)
          expect(page.body.data).not.toHaveProperty("next_cursor")
        })))

    it.live("metas carry the user meta of each message, in order", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          yield* store(emu, SID, text("a"), { model: "m1" })
          yield* store(emu, SID, text("b"))
          yield* store(emu, SID, text("c"), {})
          const page = yield* call(emu, "GET", `/session/${SID}/messages?format=anthropic`)
          expect(page.body.data.metas).toEqual([{ model: "m1" }, {}, {}])
        })))

    it.live("binding errors: blob required, format oneof", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const path = `/session/${SID}/messages`
          const noBlob = yield* call(emu, "POST", path, { body: { format: "anthropic" } })
          expect(noBlob.status).toBe(400)
          expect(noBlob.body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "Key: 'StoreMessageReq.Blob' Error:Field validation for 'Blob' failed on the 'required' tag"
          })
          const badFormat = yield* call(emu, "POST", path, { body: { format: "xml", blob: text("x") } })
          expect(badFormat.status).toBe(400)
          expect(badFormat.body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "Key: 'StoreMessageReq.Format' Error:Field validation for 'Format' failed on the 'oneof' tag"
          })
          const badJson = yield* call(emu, "POST", path, {
            raw: "{not json",
            headers: { "Content-Type": "application/json" }
          })
          expect(badJson.status).toBe(400)
          expect(badJson.body).toMatchObject({ code: 400, msg: "parameter error" })
          expect(yield* emu.messages(SID)).toEqual([])
        })))

    it.live("formats other than anthropic are refused loudly (format defaults to openai)", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const path = `/session/${SID}/messages`
          for (const body of [{ format: "openai", blob: text("x") }, { blob: text("x") }]) {
            const res = yield* call(emu, "POST", path, { body })
            expect(res.status).toBe(400)
            expect(res.body).toMatchObject({ code: 400, msg: "format not supported by the acx emulator" })
          }
          const get = yield* call(emu, "GET", `/session/${SID}/messages`)
          expect(get.status).toBe(400)
          expect(get.body).toMatchObject({ code: 400, msg: "format not supported by the acx emulator" })
          expect(yield* emu.messages(SID)).toEqual([])
        })))

    it.live("meta over 64 KB is refused", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const big = yield* store(emu, SID, text("x"), { blob: "x".repeat(64 * 1024) })
          expect(big.status).toBe(400)
          expect(big.body).toEqual({ code: 400, msg: "meta size exceeds 64KB limit" })
          // {"b":"…"} is 8 bytes of JSON around the value: exactly 64 KB passes.
          const fits = yield* store(emu, SID, text("x"), { b: "x".repeat(64 * 1024 - 8) })
          expect(fits.status).toBe(201)
          // Go escapes < as \u003c: six bytes each.
          const escaped = yield* store(emu, SID, text("x"), { b: "<".repeat(11 * 1024) })
          expect(escaped.status).toBe(400)
        })))

    it.live("role must be user or assistant", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const system = yield* store(emu, SID, { role: "system", content: "x" })
          expect(system.status).toBe(400)
          expect(system.body).toEqual({
            code: 400,
            msg: "failed to normalize anthropic message",
            error: "invalid Anthropic role: system (only 'user' and 'assistant' are supported)"
          })
          const missing = yield* store(emu, SID, { content: "x" })
          expect(missing.body).toEqual({
            code: 400,
            msg: "failed to normalize anthropic message",
            error: "invalid Anthropic role:  (only 'user' and 'assistant' are supported)"
          })
          expect(yield* emu.messages(SID)).toEqual([])
        })))

    it.live("an unknown session, or another project's, is HTTP 400 with body code 500", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const unknown = yield* store(emu, SID, text("x"))
          expect(unknown.status).toBe(400)
          expect(unknown.body).toEqual({ code: 500, msg: "database error", error: "session not found" })

          yield* createSession(emu, SID2, emu.otherProjectApiKey)
          const foreign = yield* store(emu, SID2, text("x"))
          expect(foreign.status).toBe(400)
          expect(foreign.body).toMatchObject({ code: 500, msg: "database error" })

          const notUuid = yield* store(emu, "sess1", text("x"))
          expect(notUuid.status).toBe(400)
          expect(notUuid.body).toEqual({ code: 400, msg: "parameter error", error: "invalid UUID length: 5" })

          const read = yield* call(emu, "GET", `/session/${SID}/messages?format=anthropic`)
          expect(read.status).toBe(400)
          expect(read.body).toEqual({ code: 500, msg: "database error", error: "session not found" })
          const readForeign = yield* call(emu, "GET", `/session/${SID2}/messages?format=anthropic`)
          expect(readForeign.body).toEqual({ code: 500, msg: "database error", error: "session not found" })
          expect(yield* emu.messages(SID2)).toEqual([])
        })))
  })

  describe("GET /session/{id}/messages pagination", () => {
    const seed = (emu: Emulator.AcontextEmulator) =>
      Effect.gen(function*() {
        yield* createSession(emu)
        const ids: Array<string> = []
        for (const t of ["m1", "m2", "m3", "m4", "m5"]) ids.push((yield* store(emu, SID, text(t))).body.data.id)
        return ids
      })
    const texts = (data: any) => data.items.map((i: any) => i.content[0].text)
    const page = (emu: Emulator.AcontextEmulator, query: string) =>
      call(emu, "GET", `/session/${SID}/messages?format=anthropic&${query}`).pipe(Effect.map((r) => r.body.data))

    it.live("limit and cursor walk the session oldest-first", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const ids = yield* seed(emu)
          const p1 = yield* page(emu, "limit=2")
          expect(texts(p1)).toEqual(["m1", "m2"])
          expect(p1).toMatchObject({ ids: ids.slice(0, 2), has_more: true, edit_at_message_id: ids[1] })
          expect(p1.next_cursor).toEqual(expect.any(String))
          const p2 = yield* page(emu, `limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`)
          expect(texts(p2)).toEqual(["m3", "m4"])
          expect(p2.has_more).toBe(true)
          const p3 = yield* page(emu, `limit=2&cursor=${encodeURIComponent(p2.next_cursor)}`)
          expect(texts(p3)).toEqual(["m5"])
          expect(p3.has_more).toBe(false)
          expect(p3).not.toHaveProperty("next_cursor")
          const exact = yield* page(emu, "limit=5")
          expect(texts(exact)).toEqual(["m1", "m2", "m3", "m4", "m5"])
          expect(exact.has_more).toBe(false)
        })))

    it.live("limit 0 or omitted returns everything, ignoring the cursor", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* seed(emu)
          const first = yield* page(emu, "limit=1")
          for (const query of ["", "limit=0", `limit=0&cursor=${encodeURIComponent(first.next_cursor)}`]) {
            const all = yield* page(emu, query)
            expect(texts(all)).toEqual(["m1", "m2", "m3", "m4", "m5"])
            expect(all.has_more).toBe(false)
          }
        })))

    it.live("time_desc pages from the newest, each page sorted oldest-first (the server's window quirk)", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* seed(emu)
          // The server fetches the newest limit+1, sorts them ascending, then keeps the first
          // `limit`: the newest message is not on the first page.
          const p1 = yield* page(emu, "limit=2&time_desc=true")
          expect(texts(p1)).toEqual(["m3", "m4"])
          expect(p1.has_more).toBe(true)
          const p2 = yield* page(emu, `limit=2&time_desc=true&cursor=${encodeURIComponent(p1.next_cursor)}`)
          expect(texts(p2)).toEqual(["m1", "m2"])
          expect(p2.has_more).toBe(true)
          const p3 = yield* page(emu, `limit=2&time_desc=true&cursor=${encodeURIComponent(p2.next_cursor)}`)
          expect(texts(p3)).toEqual(["m1"])
          expect(p3.has_more).toBe(false)
          const all = yield* page(emu, "time_desc=true")
          expect(texts(all)).toEqual(["m1", "m2", "m3", "m4", "m5"])
          const big = yield* page(emu, "limit=10&time_desc=true")
          expect(texts(big)).toEqual(["m1", "m2", "m3", "m4", "m5"])
        })))

    it.live("query binding errors", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* seed(emu)
          const get = (query: string) => call(emu, "GET", `/session/${SID}/messages?${query}`)
          expect((yield* get("format=anthropic&limit=201")).body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "Key: 'GetMessagesReq.Limit' Error:Field validation for 'Limit' failed on the 'max' tag"
          })
          expect((yield* get("format=anthropic&limit=-1")).body).toMatchObject({
            error: "Key: 'GetMessagesReq.Limit' Error:Field validation for 'Limit' failed on the 'min' tag"
          })
          expect((yield* get("format=anthropic&limit=abc")).body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "strconv.ParseInt: parsing \"abc\": invalid syntax"
          })
          expect((yield* get("format=xml")).body).toMatchObject({
            error: "Key: 'GetMessagesReq.Format' Error:Field validation for 'Format' failed on the 'oneof' tag"
          })
          const badCursor = yield* get("format=anthropic&limit=2&cursor=bm9wZQ")
          expect(badCursor.status).toBe(400)
          expect(badCursor.body).toMatchObject({ code: 500, msg: "database error" })
          const empty = yield* createSession(emu, SID2)
          expect(empty.status).toBe(201)
          const none = yield* call(emu, "GET", `/session/${SID2}/messages?format=anthropic`)
          expect(none.body.data).toEqual({ items: [], ids: [], metas: [], has_more: false, this_time_tokens: 0 })
        })))
  })

  describe("GET /session", () => {
    it.live("lists the caller's sessions with limit, cursor, time_desc and user", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const ids: Array<string> = []
          for (const user of ["alice", "bob", "alice"]) {
            ids.push((yield* call(emu, "POST", "/session", { body: { user } })).body.data.id)
          }
          yield* createSession(emu, SID, emu.otherProjectApiKey)

          const all = yield* call(emu, "GET", "/session")
          expect(all.status).toBe(200)
          expect(all.body).toEqual({
            code: 0,
            msg: "",
            data: { items: expect.any(Array), has_more: false }
          })
          expect(all.body.data.items.map((s: any) => s.id)).toEqual(ids)
          expect(all.body.data.items[0]).toMatchObject({ project_id: emu.projectId, disable_task_tracking: false })

          const p1 = (yield* call(emu, "GET", "/session?limit=2")).body.data
          expect(p1.items.map((s: any) => s.id)).toEqual(ids.slice(0, 2))
          expect(p1.has_more).toBe(true)
          const p2 =
            (yield* call(emu, "GET", `/session?limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`)).body.data
          expect(p2.items.map((s: any) => s.id)).toEqual(ids.slice(2))
          expect(p2).toEqual({ items: expect.any(Array), has_more: false })

          const desc = (yield* call(emu, "GET", "/session?time_desc=true&limit=2")).body.data
          expect(desc.items.map((s: any) => s.id)).toEqual([ids[2], ids[1]])
          const desc2 =
            (yield* call(emu, "GET", `/session?time_desc=true&limit=2&cursor=${encodeURIComponent(desc.next_cursor)}`))
              .body.data
          expect(desc2.items.map((s: any) => s.id)).toEqual([ids[0]])

          const alice = (yield* call(emu, "GET", "/session?user=alice")).body.data
          expect(alice.items.map((s: any) => s.id)).toEqual([ids[0], ids[2]])
          const nobody = (yield* call(emu, "GET", "/session?user=carol")).body.data
          expect(nobody).toEqual({ items: [], has_more: false })

          const other = (yield* call(emu, "GET", "/session", { key: emu.otherProjectApiKey })).body.data
          expect(other.items.map((s: any) => s.id)).toEqual([SID])
        })))

    it.live("limit must be 1..200 (default 20)", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          for (let i = 0; i < 21; i++) yield* call(emu, "POST", "/session")
          const page = (yield* call(emu, "GET", "/session")).body.data
          expect(page.items).toHaveLength(20)
          expect(page.has_more).toBe(true)
          expect((yield* call(emu, "GET", "/session?limit=0")).body).toEqual({
            code: 400,
            msg: "parameter error",
            error: "Key: 'GetSessionsReq.Limit' Error:Field validation for 'Limit' failed on the 'required' tag"
          })
          expect((yield* call(emu, "GET", "/session?limit=201")).body).toMatchObject({
            code: 400,
            error: "Key: 'GetSessionsReq.Limit' Error:Field validation for 'Limit' failed on the 'max' tag"
          })
        })))

    it.live("filter_by_configs is a containment filter", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          const bot1 = (yield* call(emu, "POST", "/session", { body: { configs: { agent: "bot1", tier: 2 } } })).body
          yield* call(emu, "POST", "/session", { body: { configs: { agent: "bot2" } } })
          yield* call(emu, "POST", "/session")
          const filter = encodeURIComponent(JSON.stringify({ agent: "bot1" }))
          const res = (yield* call(emu, "GET", `/session?filter_by_configs=${filter}`)).body.data
          expect(res.items.map((s: any) => s.id)).toEqual([bot1.data.id])
          const bad = yield* call(emu, "GET", "/session?filter_by_configs=nope")
          expect(bad.body).toMatchObject({ code: 400, msg: "invalid filter_by_configs JSON" })
        })))
  })

  describe("DELETE /session/{id}", () => {
    it.live("200, then 404; 403 for another project's session; 400 for a non-UUID", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          yield* store(emu, SID, text("x"))
          const foreign = yield* call(emu, "DELETE", `/session/${SID}`, { key: emu.otherProjectApiKey })
          expect(foreign.status).toBe(403)
          expect(foreign.body).toEqual({ code: 403, msg: "access denied: session does not belong to this project" })

          const deleted = yield* call(emu, "DELETE", `/session/${SID}`)
          expect(deleted.status).toBe(200)
          expect(deleted.body).toEqual({ code: 0, msg: "" })
          expect(yield* emu.sessions).toEqual([])
          expect(yield* emu.messages(SID)).toEqual([])

          const again = yield* call(emu, "DELETE", `/session/${SID}`)
          expect(again.status).toBe(404)
          expect(again.body).toEqual({ code: 404, msg: "session not found" })

          const bad = yield* call(emu, "DELETE", "/session/sess-1")
          expect(bad.status).toBe(400)
          expect(bad.body).toEqual({ code: 400, msg: "parameter error", error: "invalid UUID length: 6" })

          const recreated = yield* createSession(emu)
          expect(recreated.status).toBe(201)
        })))
  })

  describe("fault injection", () => {
    it.live("a status fault answers with an envelope and applies no side effect", () =>
      withEmulator({ faults: [{ route: "storeMessage", status: 503 }] }, (emu) =>
        Effect.gen(function*() {
          expect((yield* createSession(emu)).status).toBe(201)
          const res = yield* store(emu, SID, text("x"))
          expect(res.status).toBe(503)
          expect(res.body).toEqual({
            code: 503,
            msg: "service unavailable",
            error: "fault injected by the acx emulator"
          })
          expect(yield* emu.messages(SID)).toEqual([])
          const log = yield* emu.requests
          expect(log.map((r) => [r.route, r.status, r.faulted])).toEqual([
            ["createSession", 201, false],
            ["storeMessage", 503, true]
          ])
          expect(log[1]).toEqual({
            route: "storeMessage",
            method: "POST",
            path: `/api/v1/session/${SID}/messages`,
            query: {},
            status: 503,
            body: { format: "anthropic", blob: text("x") },
            faulted: true
          })
        })))

    it.live("a 500 on createSession creates nothing; custom body and headers are sent", () =>
      withEmulator({
        faults: [
          { route: "createSession", status: 500, times: 1 },
          { route: "listSessions", status: 429, body: { code: 429, msg: "slow down" }, headers: { "Retry-After": "1" } }
        ]
      }, (emu) =>
        Effect.gen(function*() {
          const failed = yield* createSession(emu)
          expect(failed.status).toBe(500)
          expect(failed.body).toEqual({ code: 500, msg: "database error", error: "fault injected by the acx emulator" })
          expect(yield* emu.sessions).toEqual([])
          expect((yield* createSession(emu)).status).toBe(201)
          const limited = yield* call(emu, "GET", "/session")
          expect(limited.status).toBe(429)
          expect(limited.body).toEqual({ code: 429, msg: "slow down" })
          expect(limited.headers.get("retry-after")).toBe("1")
        })))

    it.live("latency delays the answer (at least the given time)", () =>
      withEmulator({ faults: [{ route: "*", latencyMs: 150 }] }, (emu) =>
        Effect.gen(function*() {
          const started = Date.now()
          const res = yield* createSession(emu)
          expect(Date.now() - started).toBeGreaterThanOrEqual(140)
          expect(res.status).toBe(201)
          expect((yield* emu.requests)[0]).toMatchObject({ status: 201, faulted: true })
          const ping = Date.now()
          yield* call(emu, "GET", "/ping")
          expect((yield* emu.requests)[1]).toMatchObject({ route: "ping", faulted: false })
          expect(Date.now() - ping).toBeGreaterThanOrEqual(0)
        })))

    it.live("a dropped connection makes fetch reject, with nothing stored", () =>
      withEmulator({ faults: [{ route: "storeMessage", drop: true, times: 1 }] }, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const dropped = yield* attempt(emu, "POST", `/session/${SID}/messages`, {
            body: { format: "anthropic", blob: text("x") }
          })
          expect(Either.isLeft(dropped)).toBe(true)
          expect(yield* emu.messages(SID)).toEqual([])
          const retried = yield* store(emu, SID, text("x"))
          expect(retried.status).toBe(201)
          expect((yield* emu.requests).map((r) => r.status)).toEqual([201, "dropped", 201])
        })))

    it.live("everyNth fails every Nth matching request", () =>
      withEmulator({ faults: [{ route: "createSession", status: 502, everyNth: 3 }] }, (emu) =>
        Effect.gen(function*() {
          const statuses: Array<number> = []
          for (let i = 0; i < 7; i++) statuses.push((yield* call(emu, "POST", "/session")).status)
          expect(statuses).toEqual([201, 201, 502, 201, 201, 502, 201])
          expect(yield* emu.sessions).toHaveLength(5)
        })))

    it.live("rate fails matching requests at random, the same ones for the same seed", () =>
      Effect.gen(function*() {
        const run = (seed: number) =>
          withEmulator({ faults: [{ route: "createSession", status: 502, rate: 0.5, seed }] }, (emu) =>
            Effect.gen(function*() {
              const statuses: Array<number> = []
              for (let i = 0; i < 40; i++) {
                statuses.push((yield* call(emu, "POST", "/session")).status)
              }
              expect((yield* emu.sessions).length).toBe(
                statuses.filter((s) =>
                  s === 201
                ).length
              )
              return statuses
            }))
        const first = yield* run(7)
        expect(yield* run(7)).toEqual(first)
        const failed = first.filter((s) => s === 502).length
        // 40 draws at 0.5: far from both ends (the seed fixes the sequence, so this cannot flake).
        expect(failed).toBeGreaterThan(10)
        expect(failed).toBeLessThan(30)
        expect(yield* run(8)).not.toEqual(first)
        const all = yield* withEmulator({ faults: [{ route: "createSession", status: 502, rate: 1 }] }, (emu) =>
          Effect.forEach([1, 2, 3], () =>
            Effect.map(call(emu, "POST", "/session"), (r) => r.status)))
        expect(all).toEqual([502, 502, 502])
        const none = yield* withEmulator({ faults: [{ route: "createSession", status: 502, rate: 0 }] }, (emu) =>
          Effect.forEach([1, 2, 3], () =>
            Effect.map(call(emu, "POST", "/session"), (r) =>
              r.status)))
        expect(none).toEqual([201, 201, 201])
      }))

    it.live("times fails the first N matching requests, then behaves", () =>
      withEmulator({ faults: [{ route: "*", status: 503, times: 2 }] }, (emu) =>
        Effect.gen(function*() {
          expect((yield* call(emu, "GET", "/ping")).status).toBe(200)
          expect((yield* createSession(emu)).status).toBe(503)
          expect((yield* call(emu, "GET", "/session")).status).toBe(503)
          expect((yield* createSession(emu)).status).toBe(201)
        })))

    it.live("afterEffect applies the side effect, then fails or drops: a retry duplicates", () =>
      withEmulator({
        faults: [{ route: "storeMessage", status: 500, afterEffect: true, times: 1 }]
      }, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const failed = yield* store(emu, SID, text("once"))
          expect(failed.status).toBe(500)
          expect((yield* emu.messages(SID)).map((m) => m.parts)).toEqual([[{ type: "text", text: "once" }]])
          yield* store(emu, SID, text("once"))
          expect(yield* emu.messages(SID)).toHaveLength(2)

          yield* emu.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, times: 1 }])
          const dropped = yield* attempt(emu, "POST", `/session/${SID}/messages`, {
            body: { format: "anthropic", blob: text("twice") }
          })
          expect(Either.isLeft(dropped)).toBe(true)
          expect(yield* emu.messages(SID)).toHaveLength(3)

          yield* emu.setFaults([{ route: "deleteSession", status: 504, afterEffect: true }])
          expect((yield* call(emu, "DELETE", `/session/${SID}`)).status).toBe(504)
          expect(yield* emu.sessions).toEqual([])
        })))

    it.live("a client that gives up during the latency: aborted, applied only with afterEffect", () =>
      // the client gives up at 250 ms, well inside the 1 s latency; the log is waited for up to 10 s
      // (a loaded machine is slow to connect and to log, never fast enough to beat the latency)
      withEmulator({ faults: [{ route: "storeMessage", latencyMs: 1_000, times: 1 }] }, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          const send = (t: string) =>
            Effect.either(Effect.tryPromise(() =>
              fetch(`${emu.url}/session/${SID}/messages`, {
                method: "POST",
                headers: { Authorization: `Bearer ${emu.apiKey}`, "Content-Type": "application/json" },
                body: JSON.stringify({ format: "anthropic", blob: text(t) }),
                signal: AbortSignal.timeout(250)
              })
            ))
          const waitForLog = (n: number) =>
            emu.requests.pipe(
              Effect.filterOrFail((log) => log.length >= n),
              Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 1_000 }),
              Effect.orDie
            )

          expect(Either.isLeft(yield* send("before"))).toBe(true)
          expect((yield* waitForLog(2))[1]).toMatchObject({ route: "storeMessage", status: "aborted", faulted: true })
          expect(yield* emu.messages(SID)).toEqual([])

          yield* emu.setFaults([{ route: "storeMessage", latencyMs: 1_000, afterEffect: true, times: 1 }])
          expect(Either.isLeft(yield* send("applied"))).toBe(true)
          expect((yield* waitForLog(3))[2]).toMatchObject({ status: "aborted", faulted: true })
          expect((yield* emu.messages(SID)).map((m) => m.parts)).toEqual([[{ type: "text", text: "applied" }]])
        })))

    it.live("setFaults and clearFaults change the behaviour mid-stream", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          yield* createSession(emu)
          expect((yield* store(emu, SID, text("1"))).status).toBe(201)
          yield* emu.setFaults([{ route: "storeMessage", status: 500 }])
          expect((yield* store(emu, SID, text("2"))).status).toBe(500)
          expect((yield* store(emu, SID, text("3"))).status).toBe(500)
          expect((yield* call(emu, "GET", `/session/${SID}/messages?format=anthropic`)).status).toBe(200)
          yield* emu.clearFaults
          expect((yield* store(emu, SID, text("4"))).status).toBe(201)
          expect((yield* emu.messages(SID)).map((m) => m.parts[0]!.text)).toEqual(["1", "4"])
          yield* emu.clearRequests
          expect(yield* emu.requests).toEqual([])
        })))

    it.live("invalid faults are refused with an AcontextEmulatorError", () =>
      withEmulator({}, (emu) =>
        Effect.gen(function*() {
          for (
            const fault of [
              { route: "storeMessage", status: 99 },
              { route: "nope" as "storeMessage", status: 500 },
              { route: "storeMessage", status: 500, drop: true },
              { route: "storeMessage" },
              { route: "storeMessage", status: 500, everyNth: 0 },
              { route: "storeMessage", body: { code: 1 } },
              { route: "storeMessage", latencyMs: -1 },
              { route: "storeMessage", status: 500, rate: 1.5 },
              { route: "storeMessage", status: 500, rate: 0.5, seed: 0.5 }
            ] as const
          ) {
            const error = yield* Effect.flip(emu.setFaults([fault]))
            expect(error).toBeInstanceOf(AcontextEmulatorError)
            expect(error.reason).toBe("InvalidOptions")
          }
          const atStart = yield* Effect.flip(Effect.scoped(Emulator.make({ faults: [{ route: "*" }] })))
          expect(atStart.reason).toBe("InvalidOptions")
        })))

    it.scoped("keeps real time under a TestClock", () =>
      Effect.gen(function*() {
        const emu = yield* Emulator.make({ faults: [{ route: "createSession", latencyMs: 20 }] })
        expect((yield* createSession(emu)).status).toBe(201)
      }))
  })

  describe("lifecycle and storage", () => {
    it.live("SQLite storage survives a restart on the same file, keys included", () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "acx-emulator-"))
        tempDirs.push(dir)
        const filename = join(dir, "acontext.sqlite")
        const first = yield* withEmulator({ storage: { filename } }, (emu) =>
          Effect.gen(function*() {
            yield* createSession(emu)
            yield* createSession(emu, SID2, emu.otherProjectApiKey)
            yield* store(emu, SID, text("persisted"), { model: "m" })
            yield* store(emu, SID, {
              role: "assistant",
              content: [{ type: "tool_use", id: "t", name: "n", input: {} }]
            })
            return {
              apiKey: emu.apiKey,
              otherProjectApiKey: emu.otherProjectApiKey,
              projectId: emu.projectId,
              sessions: yield* emu.sessions,
              messages: yield* emu.messages(SID)
            }
          }))
        yield* withEmulator({ storage: { filename } }, (emu) =>
          Effect.gen(function*() {
            expect(emu.apiKey).toBe(first.apiKey)
            expect(emu.otherProjectApiKey).toBe(first.otherProjectApiKey)
            expect(emu.projectId).toBe(first.projectId)
            expect(yield* emu.sessions).toEqual(first.sessions)
            expect(yield* emu.messages(SID)).toEqual(first.messages)
            expect((yield* createSession(emu)).status).toBe(200)
            expect((yield* createSession(emu, SID2)).status).toBe(409)
            const page = yield* call(emu, "GET", `/session/${SID}/messages?format=anthropic`)
            expect(page.body.data.items).toEqual([
              text("persisted"),
              { role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }
            ])
            expect(page.body.data.metas).toEqual([{ model: "m" }, {}])
            const third = yield* store(emu, SID, text("after restart"))
            expect(third.body.data.parent_id).toBe(first.messages[1]!.id)
          }))
        const newKey = "sk-ac-replaced-key"
        yield* withEmulator({ storage: { filename }, apiKey: newKey }, (emu) =>
          Effect.gen(function*() {
            expect(emu.projectId).toBe(first.projectId)
            expect((yield* call(emu, "GET", "/session", { key: first.apiKey })).status).toBe(401)
            const listed = (yield* call(emu, "GET", "/session", { key: newKey })).body.data
            expect(listed.items.map((s: any) => s.id)).toEqual([SID])
          }))
      }))

    it.live("in-memory data is gone after a restart; given keys are used", () =>
      Effect.gen(function*() {
        yield* withEmulator({ apiKey: "sk-ac-one", otherProjectApiKey: "sk-ac-two" }, (emu) =>
          Effect.gen(function*() {
            expect([emu.apiKey, emu.otherProjectApiKey]).toEqual(["sk-ac-one", "sk-ac-two"])
            yield* createSession(emu)
          }))
        yield* withEmulator({ apiKey: "sk-ac-one" }, (emu) =>
          Effect.gen(function*() {
            expect(yield* emu.sessions).toEqual([])
          }))
      }))

    it.live("misuse is a typed AcontextEmulatorError", () =>
      Effect.gen(function*() {
        const portInUse = yield* withEmulator(
          {},
          (emu) => Effect.flip(Effect.scoped(Emulator.make({ port: emu.port })))
        )
        expect(portInUse).toBeInstanceOf(AcontextEmulatorError)
        expect(portInUse.reason).toBe("PortInUse")
        const badKey = yield* Effect.flip(Effect.scoped(Emulator.make({ apiKey: "not-a-key" })))
        expect(badKey.reason).toBe("InvalidOptions")
        const badStorage = yield* Effect.flip(
          Effect.scoped(Emulator.make({ storage: { filename: "/nonexistent-dir/for/acx/emulator.sqlite" } }))
        )
        expect(badStorage.reason).toBe("Storage")
      }))

    it.live("the layer provides the service", () =>
      Effect.gen(function*() {
        const emu = yield* Emulator.AcontextEmulator
        const res = yield* call(emu, "GET", "/ping")
        expect(res.status).toBe(200)
      }).pipe(Effect.provide(Emulator.layer())))

    it.live("the server is gone once its scope closes", () =>
      Effect.gen(function*() {
        const emu = yield* Effect.scoped(Emulator.make())
        const res = yield* attempt(emu, "GET", "/ping")
        expect(Either.isLeft(res)).toBe(true)
      }))
  })

  describe("Promise API", () => {
    it("startAcontextEmulator: round trip, faults, introspection, close", async () => {
      const emu = await startAcontextEmulator({ faults: [{ route: "storeMessage", status: 503, times: 1 }] })
      try {
        expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
        expect((await request(emu, "POST", "/session", { body: { use_uuid: SID } })).status).toBe(201)
        const blob = text("hello")
        const path = `/session/${SID}/messages`
        expect((await request(emu, "POST", path, { body: { format: "anthropic", blob } })).status).toBe(503)
        expect((await request(emu, "POST", path, { body: { format: "anthropic", blob } })).status).toBe(201)
        await emu.setFaults([{ route: "getMessages", drop: true }])
        await expect(request(emu, "GET", `${path}?format=anthropic`)).rejects.toThrow()
        await emu.clearFaults()
        const page = await request(emu, "GET", `${path}?format=anthropic`)
        expect(page.body.data.items).toEqual([blob])
        expect((await emu.sessions()).map((s) => s.id)).toEqual([SID])
        expect((await emu.messages(SID)).map((m) => m.parts)).toEqual([[{ type: "text", text: "hello" }]])
        expect((await emu.requests()).map((r) => r.status)).toEqual([201, 503, 201, "dropped", 200])
        await emu.clearRequests()
        expect(await emu.requests()).toEqual([])
        const invalid = await emu.setFaults([{ route: "*" }]).catch((e: unknown) => e)
        expect(invalid).toBeInstanceOf(AcontextEmulatorError)
      } finally {
        await emu.close()
      }
      await emu.close()
      await expect(request(emu, "GET", "/ping")).rejects.toThrow()
    })

    it("rejects with AcontextEmulatorError when the port is taken; asyncDispose closes", async () => {
      const first = await startAcontextEmulator()
      const error = await startAcontextEmulator({ port: first.port }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(AcontextEmulatorError)
      expect((error as AcontextEmulatorError).reason).toBe("PortInUse")
      await first[Symbol.asyncDispose]()
      await expect(request(first, "GET", "/ping")).rejects.toThrow()
    })
  })
})
