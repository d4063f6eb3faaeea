import {
  assistantMeta,
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  ContentBlocks,
  Decider,
  fromPythonMessage,
  getSessionIdFromMessage,
  normalizeToolResultContent,
  normalizeToolUseInput
} from "@acx/convert"
import * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import {
  anyBlock,
  anyMessage,
  assistantMessage,
  json,
  pythonableMessage,
  toPythonTwin,
  userMessage
} from "./arbitraries.js"

const runs = { numRuns: 2_000 }
const state = Either.getOrThrow(Decider.initialState())
const isUserBlob = Schema.is(AnthropicBlob.UserBlob)
const isAssistantBlob = Schema.is(AnthropicBlob.AssistantBlob)
const isMeta = Schema.is(AnthropicBlob.AssistantMeta)
const thinkingOptions: ReadonlyArray<ContentBlocks.ConversionOptions> = [
  {},
  { includeThinking: true },
  { includeThinking: true, thinkingFormat: "native" }
]

describe("property: totality (any JSON value in, no throw)", () => {
  it("every public function accepts any value", () => {
    fc.assert(
      fc.property(fc.oneof(json, anyMessage, anyBlock), (value) => {
        claudeUserMessageToAnthropicBlob(value)
        for (const options of thinkingOptions) {
          const { hasThinking } = claudeAssistantMessageToAnthropicBlob(value, options)
          assistantMeta(value, hasThinking)
          ContentBlocks.convertBlock(value, "user", options)
          ContentBlocks.convertBlock(value, "assistant", options)
          ContentBlocks.convertContentBlocks(value, "assistant", options)
          Decider.decide(state, value, options)
        }
        getSessionIdFromMessage(value)
        fromPythonMessage(value)
        normalizeToolResultContent(value)
        normalizeToolUseInput(value)
      }),
      runs
    )
  })
})

describe("property: every produced blob satisfies the output schema", () => {
  it("user blobs", () => {
    fc.assert(
      fc.property(fc.oneof(userMessage, anyMessage), (message) => {
        const blob = claudeUserMessageToAnthropicBlob(message)
        expect(blob === null || isUserBlob(blob)).toBe(true)
      }),
      runs
    )
  })

  it("assistant blobs and meta, with every thinking option", () => {
    fc.assert(
      fc.property(fc.oneof(assistantMessage, anyMessage), (message) => {
        for (const options of thinkingOptions) {
          const { blob, hasThinking } = claudeAssistantMessageToAnthropicBlob(message, options)
          expect(blob === null || isAssistantBlob(blob)).toBe(true)
          const meta = assistantMeta(message, hasThinking)
          expect(meta === null || (isMeta(meta) && Object.keys(meta).length > 0)).toBe(true)
        }
      }),
      runs
    )
  })

  it("Store decisions carry a valid blob for their role", () => {
    fc.assert(
      fc.property(anyMessage, (message) => {
        const decision = Decider.decide(state, message, { includeThinking: true, thinkingFormat: "native" })
        if (decision._tag !== "Store") return
        expect(decision.role === "user" ? isUserBlob(decision.blob) : isAssistantBlob(decision.blob)).toBe(true)
        if (decision.role === "user") expect(decision.meta).toBeNull()
      }),
      runs
    )
  })
})

describe("property: a TS-shaped message and its Python-shaped twin give identical blobs and meta", () => {
  it("blobs, meta and decisions agree", () => {
    fc.assert(
      fc.property(pythonableMessage, (message) => {
        const twin = toPythonTwin(message)
        for (const options of thinkingOptions) {
          if (message.type === "user") {
            expect(claudeUserMessageToAnthropicBlob(twin)).toEqual(claudeUserMessageToAnthropicBlob(message))
          } else {
            const ts = claudeAssistantMessageToAnthropicBlob(message, options)
            const py = claudeAssistantMessageToAnthropicBlob(twin, options)
            expect(py).toEqual(ts)
            expect(assistantMeta(twin, py.hasThinking)).toEqual(assistantMeta(message, ts.hasThinking))
          }
          expect(Decider.decide(state, twin, options)).toEqual(Decider.decide(state, message, options))
        }
      }),
      runs
    )
  })
})

describe("property: converting an already-converted blob is the identity", () => {
  it("user blobs", () => {
    fc.assert(
      fc.property(Arbitrary.make(AnthropicBlob.UserBlob), (blob) => {
        expect(claudeUserMessageToAnthropicBlob({ type: "user", message: blob })).toEqual(blob)
      }),
      runs
    )
  })

  it("assistant blobs (native thinking, so thinking blocks survive as themselves)", () => {
    fc.assert(
      fc.property(Arbitrary.make(AnthropicBlob.AssistantBlob), (blob) => {
        const options = { includeThinking: true, thinkingFormat: "native" } as const
        expect(claudeAssistantMessageToAnthropicBlob({ type: "assistant", message: blob }, options).blob).toEqual(blob)
      }),
      runs
    )
  })

  it("assistant blobs without thinking, under the default options", () => {
    const noThinking = Schema.Struct({
      role: Schema.Literal("assistant"),
      content: Schema.NonEmptyArray(Schema.Union(AnthropicBlob.TextBlock, AnthropicBlob.ToolUseBlock))
    })
    fc.assert(
      fc.property(Arbitrary.make(noThinking), (blob) => {
        expect(claudeAssistantMessageToAnthropicBlob({ type: "assistant", message: blob }).blob).toEqual(blob)
      }),
      runs
    )
  })
})

describe("property: includeThinking never removes non-thinking blocks", () => {
  it("block by block: a block kept without thinking is kept, unchanged, with it", () => {
    fc.assert(
      fc.property(anyBlock, fc.constantFrom("user" as const, "assistant" as const), (block, role) => {
        const without = ContentBlocks.convertBlock(block, role, { includeThinking: false })
        if (without === null) return
        for (const options of thinkingOptions) expect(ContentBlocks.convertBlock(block, role, options)).toEqual(without)
      }),
      runs
    )
  })

  it("message by message: the blocks without thinking are a subsequence of the blocks with it", () => {
    fc.assert(
      fc.property(assistantMessage, (message) => {
        const without = claudeAssistantMessageToAnthropicBlob(message, false).blob?.content ?? []
        for (const options of thinkingOptions.slice(1)) {
          const { blob, hasThinking } = claudeAssistantMessageToAnthropicBlob(message, options)
          const withThinking = blob?.content ?? []
          let i = 0
          for (const block of withThinking) if (i < without.length && isEqualJson(block, without[i])) i++
          expect(i).toBe(without.length)
          expect(hasThinking).toBe(withThinking.length > without.length)
        }
      }),
      runs
    )
  })
})

const isEqualJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
