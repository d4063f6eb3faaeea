/**
 * A full replay of the real SDK streams in packages/fixtures/data/sdk-streams (one stream per
 * fixture file, in order) through the Promise facade into the Acontext emulator, then read back
 * with `getMessages(format=anthropic)` (acx's `AcontextClient.messages`).
 *
 * The expected conversations are stated literally for these small fixtures: the conversion
 * rules of Acontext's TypeScript integration (thinking dropped by default, tool_result only on
 * the user side, meta = model / error), then the read-back rules of the Acontext server, which
 * the emulator follows (a tool_result comes back as one text item with `is_error` always present;
 * metas are the user meta, `{}` when none).
 *
 * The facade is given a duck-typed client over `fetch`, shaped like Acontext's own; the same replay with
 * `client: { apiKey, baseUrl }` (acx's own client) stores the same conversation as the duck client.
 */
import * as Fixtures from "@acx/fixtures"
import * as AcontextClient from "@acx/storage/AcontextClient"
import { ClaudeAgentStorage, type ClaudeAgentStorageOptions } from "@acx/storage/promise"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { fetchClient } from "./utils/fetchClient.js"

const GLEAM = "sdk-streams/charlieyou-claude-agent-sdk-gleam"
const PARSER = "sdk-streams/python-sdk-parser-frames.json"
const OPUS_45 = "claude-opus-4-5-20251101"
const OPUS_41 = "claude-opus-4-1-20250805"

const text = (t: string) => ({ type: "text", text: t })
const user = (...content: Array<unknown>) => ({ role: "user", content })
const assistant = (...content: Array<unknown>) => ({ role: "assistant", content })
const toolResultBack = (id: string, t: string) => ({
  type: "tool_result",
  tool_use_id: id,
  content: [text(t)],
  is_error: false
})

interface Expected {
  /** The session the messages go to: the stream's own, or `"generated"` (created without `use_uuid`). */
  readonly session: string | "generated" | null
  readonly messages: ReadonlyArray<{ readonly message: unknown; readonly meta: unknown }>
}

const LS_OUTPUT =
  "total 1976\ndrwxrwxr-x  9 cyou cyou    4096 Jan 11 00:22 .\ndrwxr-x--- 54 cyou cyou    4096 Jan 11 00:26 .."

const parserFrames = (thinking: unknown): Expected => ({
  // The first frame is a user message: no session id is adopted from user/assistant frames, so
  // a session is created without use_uuid; the later result frames do not move it.
  session: "generated",
  messages: [
    { message: user(toolResultBack("toolu_vrtx_01KXWexk3NJdwkjWzPMGQ2F1", "The file has been updated.")), meta: {} },
    { message: user(text("Simple string content")), meta: {} },
    { message: user(text("Hello")), meta: {} },
    { message: assistant(text("Hi! I'm ready to help.")), meta: { model: "claude-sonnet-4-5-20250929" } },
    {
      message: assistant(...(thinking === null ? [] : [thinking]), text("Here's my response")),
      meta: thinking === null ? { model: OPUS_41 } : { model: OPUS_41, has_thinking: true }
    },
    {
      message: assistant(text("Hello"), {
        type: "tool_use",
        id: "tool_123",
        name: "Read",
        input: { file_path: "/test.txt" }
      }),
      meta: { model: OPUS_41 }
    },
    {
      message: assistant(text("Invalid API key · Fix external API key")),
      meta: { model: "<synthetic>", error: "authentication_failed" }
    },
    {
      message: assistant(
        text(
          "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"
        )
      ),
      meta: { model: "<synthetic>", error: "unknown" }
    },
    // The replay ack (isReplay: true) of a prompt never seen as a user message: stored once.
    { message: user(text("<the prompt the host sent>")), meta: {} }
  ]
})

/** By fixture file (relative to the fixtures dir), with the facade's default options. */
const expectations: Readonly<Record<string, Expected>> = {
  [`${GLEAM}/assistant_message.json`]: {
    session: "generated",
    messages: [{
      message: assistant({
        type: "tool_use",
        id: "toolu_01BeipFBP3sUY3EAwVg3qQnE",
        name: "Bash",
        input: { command: "ls -la", description: "List files in current directory" }
      }),
      meta: { model: OPUS_45 }
    }]
  },
  [`${GLEAM}/golden_basic_query.ndjson`]: {
    session: "1d1e46f9-35c7-4834-b529-846d5bb82288",
    messages: [{ message: assistant(text("4")), meta: { model: OPUS_45 } }]
  },
  [`${GLEAM}/result_success.json`]: { session: "40e7b02d-c0f9-4876-9010-f514d4eb0603", messages: [] },
  [`${GLEAM}/system_message.json`]: { session: "40e7b02d-c0f9-4876-9010-f514d4eb0603", messages: [] },
  [`${GLEAM}/user_message.json`]: {
    session: "generated",
    messages: [{ message: user(toolResultBack("toolu_01BeipFBP3sUY3EAwVg3qQnE", LS_OUTPUT)), meta: {} }]
  },
  [PARSER]: parserFrames(null)
}

/** The fixture streams: the messages of each file, in file order. */
const streams = (): Array<readonly [string, Array<unknown>]> => {
  const byFile = new Map<string, Array<unknown>>()
  for (const line of Fixtures.sdkMessages()) {
    const key = Fixtures.relative(line.file)
    byFile.set(key, [...(byFile.get(key) ?? []), line.value])
  }
  return [...byFile.entries()]
}

let emulator: AcontextEmulatorHandle

beforeEach(async () => {
  emulator = await startAcontextEmulator()
  vi.spyOn(console, "warn").mockImplementation(() => {})
  vi.spyOn(console, "log").mockImplementation(() => {})
})

afterEach(async () => {
  vi.restoreAllMocks()
  await emulator.close()
})

/** Every message of a session, read back with acx's client (format=anthropic, paged). */
const readBack = (sessionId: string) =>
  Effect.gen(function*() {
    const client = yield* AcontextClient.make({
      apiKey: AcontextClient.apiKey(emulator.apiKey),
      baseUrl: emulator.url,
      retry: false
    })
    const all = yield* Stream.runCollect(client.messages(sessionId, { pageSize: 4 }))
    return Chunk.toReadonlyArray(all).map(({ message, meta }) => ({ message, meta }))
  }).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.runPromise)

/** Replays one stream through a new facade; returns its session id and the errors it reported. */
const replay = async (messages: ReadonlyArray<unknown>, options: Omit<ClaudeAgentStorageOptions, "onError">) => {
  const errors: Array<unknown> = []
  const storage = new ClaudeAgentStorage({ ...options, onError: (error) => void errors.push(error) })
  for (const message of messages) await storage.saveMessage(message)
  await storage.close()
  return { sessionId: storage.sessionId, errors }
}

const checkSession = (expected: Expected, sessionId: string | null) => {
  if (expected.session === "generated") {
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  } else {
    expect(sessionId).toBe(expected.session)
  }
}

describe("replay of the SDK stream fixtures", () => {
  it("every fixture file has an expectation (a new fixture needs one)", () => {
    expect(streams().map(([file]) => file).sort()).toStrictEqual(Object.keys(expectations).sort())
  })

  for (const [file, messages] of streams()) {
    it(`${file}: ${messages.length} frames stored and read back as expected`, async () => {
      const expected = expectations[file]!
      const { errors, sessionId } = await replay(messages, { client: fetchClient(emulator.url, emulator.apiKey) })
      expect(errors).toStrictEqual([])
      checkSession(expected, sessionId)
      const sessions = await emulator.sessions()
      if (expected.messages.length === 0) {
        // Nothing storable: no session is created, no request made.
        expect(sessions).toStrictEqual([])
        expect(await emulator.requests()).toStrictEqual([])
        return
      }
      expect(sessions.map((s) => s.id)).toStrictEqual([sessionId])
      expect(await readBack(sessionId!)).toStrictEqual(expected.messages)
    })
  }

  it(`${PARSER} with includeThinking + native thinking: the thinking block round-trips`, async () => {
    const messages = streams().find(([file]) => file === PARSER)![1]
    const { errors, sessionId } = await replay(messages, {
      client: fetchClient(emulator.url, emulator.apiKey),
      includeThinking: true,
      thinkingFormat: "native"
    })
    expect(errors).toStrictEqual([])
    expect(await readBack(sessionId!)).toStrictEqual(
      parserFrames({ type: "thinking", thinking: "I'm thinking about the answer...", signature: "sig-123" }).messages
    )
  })

  it(`${PARSER} with replays: "skip" (the Acontext TypeScript integration's rule): the replay ack's prompt is lost`, async () => {
    const messages = streams().find(([file]) => file === PARSER)![1]
    const { sessionId } = await replay(messages, {
      client: fetchClient(emulator.url, emulator.apiKey),
      replays: "skip"
    })
    expect(await readBack(sessionId!)).toStrictEqual(parserFrames(null).messages.slice(0, -1))
  })

  // With acx's own client the same conversation is stored as with the duck client.
  it(`${GLEAM}/golden_basic_query.ndjson through client: { apiKey, baseUrl }`, async () => {
    const file = `${GLEAM}/golden_basic_query.ndjson`
    const messages = streams().find(([f]) => f === file)![1]
    const { errors, sessionId } = await replay(messages, {
      client: { apiKey: emulator.apiKey, baseUrl: emulator.url }
    })
    expect(errors.map(String)).toStrictEqual([])
    expect(await readBack(sessionId!)).toStrictEqual(expectations[file]!.messages)
  })
})
