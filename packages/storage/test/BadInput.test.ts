/**
 * 10 000 random values through the Promise facade's `saveMessage`, with a recording client that
 * validates every stored blob: arbitrary JSON (`Arbitrary.make(JsonValue)`), `fc.anything()`,
 * and values shaped like SDK messages (TypeScript and Python) with random content, random
 * blocks and random fields. Nothing may throw, no promise may be left rejected, and every blob
 * acx stores must satisfy `AnthropicBlob` (with `AssistantMeta` or null meta).
 */
import * as JsonSchema from "@acx/schema/Json"
import { ClaudeAgentStorage, type ClaudeAgentStorageOptions } from "@acx/storage/promise"
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { ApiError, ok, recordingClient, type StoreAnswer, throws } from "./utils/recordingClient.js"

const SEED = 20260611
const UUIDS = ["a1b2c3d4-e5f6-7890-abcd-ef1234567890", "44444444-4444-4444-4444-444444444444"] as const

const json = Arbitrary.make(JsonSchema.JsonValue)
const anything = fc.anything({ maxDepth: 3, withBigInt: true, withDate: true })
/** Mostly plausible, sometimes junk. */
/**
 * Null-prototype objects are covered by their own test below.
 */
const field = <A>(plausible: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: anything })

const blockType = fc.constantFrom(
  "text",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "image",
  "document",
  "server_tool_use",
  "web_search_tool_result",
  "unknown_block"
)

const tsBlock = fc.record({
  type: field(blockType),
  text: field(fc.string()),
  thinking: field(fc.string()),
  signature: field(fc.string()),
  data: field(fc.string()),
  id: field(fc.string()),
  name: field(fc.string()),
  input: field(fc.oneof(fc.object(), fc.json(), fc.string())),
  tool_use_id: field(fc.string()),
  content: field(fc.oneof(
    fc.string(),
    fc.array(fc.record({ type: field(fc.constant("text")), text: field(fc.string()) }, { requiredKeys: [] }))
  )),
  is_error: field(fc.boolean()),
  source: field(fc.record({
    type: field(fc.constantFrom("base64", "url", "file")),
    media_type: field(fc.string()),
    data: field(fc.string()),
    url: field(fc.webUrl())
  }, { requiredKeys: [] })),
  citations: field(fc.array(json, { maxLength: 2 }))
}, { requiredKeys: [] })

/** Python-SDK blocks have no `type`: keys identify them. */
const pyBlock = fc.oneof(
  fc.record({ text: field(fc.string()) }, { requiredKeys: [] }),
  fc.record({ thinking: field(fc.string()), signature: field(fc.string()) }, { requiredKeys: [] }),
  fc.record({ id: field(fc.string()), name: field(fc.string()), input: field(fc.object()) }, { requiredKeys: [] }),
  fc.record({ tool_use_id: field(fc.string()), content: field(fc.string()), is_error: field(fc.boolean()) }, {
    requiredKeys: []
  }),
  anything
)

const content = (block: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 3, arbitrary: fc.array(block, { maxLength: 5 }) }, { weight: 1, arbitrary: fc.string() }, {
    weight: 1,
    arbitrary: anything
  })

const sessionId = fc.oneof(fc.constantFrom(...UUIDS), fc.uuid(), fc.string(), anything)

const tsMessage = fc.record({
  type: field(fc.constantFrom("user", "assistant", "system", "result", "stream_event", "tool_progress")),
  subtype: field(fc.constantFrom("init", "success", "status")),
  message: field(fc.record({
    role: field(fc.constantFrom("user", "assistant")),
    content: content(tsBlock),
    model: field(fc.string())
  }, { requiredKeys: [] })),
  isReplay: field(fc.boolean()),
  uuid: field(fc.oneof(fc.uuid(), fc.constantFrom("u-1", "u-2"))),
  session_id: sessionId,
  error: field(fc.constantFrom("rate_limit", "authentication_failed", "")),
  parent_tool_use_id: field(fc.string())
}, { requiredKeys: [] })

const pyMessage = fc.oneof(
  fc.record({ content: content(pyBlock), model: field(fc.string()), error: field(fc.string()) }, {
    requiredKeys: ["content"]
  }),
  fc.record({ content: content(pyBlock) }),
  fc.record({
    subtype: field(fc.constantFrom("init", "heartbeat")),
    data: field(fc.record({ session_id: sessionId }))
  }),
  fc.record({ subtype: field(fc.string()), session_id: sessionId }),
  fc.record({ uuid: field(fc.string()), session_id: sessionId, event: anything })
)

const samples = (arbitrary: fc.Arbitrary<unknown>, n: number, seed: number): Array<unknown> =>
  fc.sample(arbitrary, { numRuns: n, seed })

const inputs = [
  ...samples(json, 2500, SEED),
  ...samples(anything, 1500, SEED + 1),
  ...samples(tsMessage, 4000, SEED + 2),
  ...samples(pyMessage, 2000, SEED + 3)
]

const unhandled: Array<unknown> = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)

beforeEach(() => {
  process.on("unhandledRejection", onUnhandled)
  vi.spyOn(console, "warn").mockImplementation(() => {})
  vi.spyOn(console, "log").mockImplementation(() => {})
})

afterEach(() => {
  process.off("unhandledRejection", onUnhandled)
  vi.restoreAllMocks()
})

const variants: ReadonlyArray<readonly [string, Omit<ClaudeAgentStorageOptions, "client">]> = [
  ["defaults", {}],
  ["includeThinking, native thinking, explicit session, replays skipped", {
    includeThinking: true,
    thinkingFormat: "native",
    sessionId: UUIDS[0],
    replays: "skip"
  }]
]

describe("bad input", () => {
  it("the inputs are really 10 000 values, many of them shaped like SDK messages", () => {
    expect(inputs).toHaveLength(10_000)
    const typed = inputs.filter((m) => typeof m === "object" && m !== null && "type" in m)
    expect(typed.length).toBeGreaterThan(3000)
  })

  for (const [name, options] of variants) {
    it(`${name}: no throw, no unhandled rejection, every stored blob valid`, async () => {
      const errors: Array<unknown> = []
      // Every 7th store fails (a thrown ApiError), to run the error path as well.
      const client = recordingClient({
        storeMessage: (_request, index): StoreAnswer => (index % 7 === 6 ? throws(new ApiError(500)) : ok)
      })
      const storage = new ClaudeAgentStorage({ ...options, client, onError: (error) => void errors.push(error) })
      let thrown = 0
      for (const input of inputs) {
        try {
          await storage.saveMessage(input)
        } catch {
          thrown++
        }
      }
      await storage.close()
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(thrown).toBe(0)
      expect(unhandled).toStrictEqual([])
      expect(client.invalid).toStrictEqual([])
      // The run exercised the interesting paths: many stores, creates, failures.
      expect(client.stores().length).toBeGreaterThan(400)
      expect(client.creates().length).toBeGreaterThanOrEqual(1)
      expect(errors.length).toBeGreaterThan(50)
      expect(errors.every((e) => e instanceof ApiError)).toBe(true)
      const roles = new Set(client.stores().map((c) => (c.blob as { role: string }).role))
      expect([...roles].sort()).toStrictEqual(["assistant", "user"])
    }, 60_000)
  }

  // Regression: a `type` with no string form (a null-prototype object) once made `save` throw
  // while building its span attribute. The Decider skips it (Unrecognized); nothing is stored.
  it("a message whose `type` has no string form (null-prototype object) does not make saveMessage reject", async () => {
    const client = recordingClient()
    const storage = new ClaudeAgentStorage({ client })
    try {
      await expect(storage.saveMessage({ type: Object.create(null) })).resolves.toBeUndefined()
      await expect(storage.saveMessage({ type: [Object.create(null)] })).resolves.toBeUndefined()
    } finally {
      await storage.close()
    }
    expect(client.calls).toStrictEqual([])
  })

  it("the same broad run WITH null-prototype objects: every rejection is that TypeError, nothing else", async () => {
    const withNullPrototype = samples(
      fc.anything({ maxDepth: 3, withNullPrototype: true, withBigInt: true, withDate: true }),
      1500,
      SEED + 1
    )
    const client = recordingClient()
    const storage = new ClaudeAgentStorage({ client })
    const rejections: Array<unknown> = []
    for (const input of withNullPrototype) {
      await storage.saveMessage(input).catch((error) => void rejections.push(error))
    }
    await storage.close()
    expect(client.invalid).toStrictEqual([])
    expect(unhandled).toStrictEqual([])
    for (const rejection of rejections) {
      expect(rejection).toBeInstanceOf(TypeError)
      expect((rejection as TypeError).message).toBe("Cannot convert object to primitive value")
    }
  })
})
