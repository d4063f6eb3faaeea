/**
 * The real SDK end to end: `query()` from @anthropic-ai/claude-agent-sdk runs against the
 * stand-in CLI playing a realistic multi-turn conversation (init, replayed prompts, thinking,
 * tool_use/tool_result, a subagent, progress and rate-limit frames, results); its stream is
 * persisted through ClaudeAgentStorage's `tap` into the Acontext emulator over real HTTP; the
 * conversation read back equals the one expected from acx's conversion rules.
 */
import { Decider } from "@acx/convert"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import { makeStandInCli, promptStream, realisticConversation } from "@acx/testing"
import * as AcontextEmulator from "@acx/testing/AcontextEmulator"
import { query } from "@anthropic-ai/claude-agent-sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Stream } from "effect"

type Block = Record<string, unknown>
type Blob = { readonly role: string; readonly content: ReadonlyArray<Block> }

/** What Acontext's anthropic converter returns for a stored blob (see docs/acontext.md). */
const readBack = (blob: Blob): Blob => ({
  role: blob.role,
  content: blob.content.map((block) => {
    if (block["type"] !== "tool_result") return block
    const content = block["content"]
    const text = typeof content === "string"
      ? content
      : (content as ReadonlyArray<{ readonly text: string }>).map((item) => item.text).join("")
    return {
      type: "tool_result",
      tool_use_id: block["tool_use_id"],
      content: [{ type: "text", text }],
      is_error: block["is_error"] === true
    }
  })
})

/** What acx should store for these frames: the Decider folded over them, assuming every I/O succeeds. */
const expectedStores = (frames: ReadonlyArray<unknown>, options: Decider.DeciderOptions) => {
  let state = Either.getOrThrow(Decider.initialState())
  const stores: Array<{ readonly blob: Blob; readonly meta: unknown }> = []
  for (const frame of frames) {
    const decision = Decider.decide(state, frame, options)
    if (decision._tag === "ResolveSession") {
      state = Decider.evolve(state, Decider.StorageEvent.SessionResolved({ id: decision.id }))
    } else if (decision._tag === "Store") {
      if (!state.ensured && state.sessionId !== null) {
        state = Decider.evolve(state, Decider.StorageEvent.SessionEnsured({ id: state.sessionId }))
      }
      stores.push({ blob: decision.blob, meta: decision.meta ?? {} })
      state = Decider.evolve(state, Decider.StorageEvent.MessageStored({ role: decision.role, uuid: decision.uuid }))
    }
  }
  return stores
}

const Emulator = AcontextEmulator.layer()
const Client = Layer.unwrapEffect(
  Effect.map(
    AcontextEmulator.AcontextEmulator,
    (emulator) => AcontextClient.layer({ apiKey: AcontextClient.apiKey(emulator.apiKey), baseUrl: emulator.url })
  )
).pipe(Layer.provide(NodeHttpClient.layerUndici))

const run = (options: ClaudeAgentStorage.ClaudeAgentStorageOptions) =>
  Effect.gen(function*() {
    const conversation = realisticConversation({
      prompts: ["The date tests fail in CI, fix them", "Now make overdue invoices use whole days"],
      subagent: true,
      thinking: true
    })
    const cli = yield* makeStandInCli({ scenario: conversation.scenario })
    const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
    const client = yield* AcontextClient.AcontextClient

    const yielded = yield* Stream.fromAsyncIterable(
      query({ prompt: promptStream(conversation.promptMessages), options: { ...cli.queryOptions } }),
      (error) => error
    ).pipe(storage.tap, Stream.runCollect)

    const sessionId = yield* storage.sessionId
    const stored = sessionId === null ? [] : Chunk.toArray(yield* Stream.runCollect(client.messages(sessionId)))
    return { conversation, yielded: Chunk.toArray(yielded), sessionId, stored }
  }).pipe(
    Effect.scoped,
    Effect.provide(
      ClaudeAgentStorage.layer({ ...options, onError: "fail" }).pipe(
        Layer.provideMerge(Client),
        Layer.provideMerge(Emulator)
      )
    )
  )

describe("the real SDK's query() through ClaudeAgentStorage.tap into Acontext", () => {
  it.live(
    "default options: every prompt once, thinking dropped, tools and the subagent turn stored in order",
    () =>
      Effect.gen(function*() {
        const { conversation, sessionId, stored, yielded } = yield* run({})
        // tap passes the stream through unchanged
        expect(yielded).toEqual(conversation.expectedFrames)
        // the Acontext session is the Claude session
        expect(sessionId).toBe(conversation.sessionId)
        const expected = expectedStores(conversation.expectedFrames, {})
        expect(stored.map(({ message, meta }) => ({ message, meta }))).toEqual(
          expected.map(({ blob, meta }) => ({ message: readBack(blob), meta }))
        )
        // the conversation has the shape a reader expects: both prompts, tool round trips, a final answer
        const texts = stored.flatMap(({ message }) => (message as Blob).content)
        expect(
          texts.filter((b) =>
            b["type"] === "text" && b["text"] === conversation.promptMessages[0]!.message.content[0].text
          )
        )
          .toHaveLength(1)
        expect(texts.some((b) => b["type"] === "tool_use")).toBe(true)
        expect(texts.some((b) => b["type"] === "tool_result")).toBe(true)
        expect(texts.some((b) => b["type"] === "thinking")).toBe(false)
        expect((stored.at(-1)!.message as Blob).role).toBe("assistant")
      }),
    30_000
  )

  it.live(
    "native thinking: thinking blocks are stored with their signatures and flagged in meta",
    () =>
      Effect.gen(function*() {
        const options = { includeThinking: true, thinkingFormat: "native" } as const
        const { conversation, stored } = yield* run(options)
        const expected = expectedStores(conversation.expectedFrames, options)
        expect(stored.map(({ message, meta }) => ({ message, meta }))).toEqual(
          expected.map(({ blob, meta }) => ({ message: readBack(blob), meta }))
        )
        const thinking = stored.filter(({ message }) => (message as Blob).content.some((b) => b["type"] === "thinking"))
        expect(thinking.length).toBeGreaterThan(0)
        expect(thinking.every(({ meta }) => meta["has_thinking"] === true)).toBe(true)
      }),
    30_000
  )
})
