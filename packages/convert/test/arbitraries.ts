/**
 * Generators for the property tests: SDK-shaped messages whose blocks mix valid, malformed and
 * unknown content, built from Schema arbitraries (`Arbitrary.make`) of @acx/schema.
 */
import * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import { JsonValue } from "@acx/schema/Json"
import * as PythonMessage from "@acx/schema/PythonMessage"
import * as SdkMessage from "@acx/schema/SdkMessage"
import { Arbitrary, FastCheck as fc } from "effect"

export const json: fc.Arbitrary<unknown> = Arbitrary.make(JsonValue)
export const jsonObject: fc.Arbitrary<unknown> = fc.dictionary(fc.string(), json, { maxKeys: 4 })

const maybe = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | unknown> => fc.oneof({ weight: 4, arbitrary: arb }, json)

const textBlock = fc.record({ type: fc.constant("text"), text: maybe(fc.string()) })
export const thinkingBlock = fc.record(
  { type: fc.constant("thinking"), thinking: maybe(fc.string()), signature: maybe(fc.string()) },
  { requiredKeys: ["type", "thinking"] }
)
const redactedThinkingBlock = fc.record({ type: fc.constant("redacted_thinking"), data: maybe(fc.string()) })
const toolInput = fc.oneof(jsonObject, json, jsonObject.map((o) => JSON.stringify(o)), fc.string())
const toolUseBlock = fc.record(
  { type: fc.constant("tool_use"), id: maybe(fc.string()), name: maybe(fc.string()), input: toolInput },
  { requiredKeys: ["type", "id", "name"] }
)
const toolResultItem = fc.oneof(
  fc.record({ type: fc.constant("text"), text: maybe(fc.string()) }),
  fc.string(),
  Arbitrary.make(AnthropicBlob.ImageBlock),
  json
)
const toolResultBlock = fc.record(
  {
    type: fc.constant("tool_result"),
    tool_use_id: maybe(fc.string()),
    content: fc.oneof(json, fc.array(toolResultItem, { maxLength: 4 })),
    is_error: json
  },
  { requiredKeys: ["type", "tool_use_id"] }
)
const attachmentBlock = fc.oneof(
  Arbitrary.make(AnthropicBlob.ImageBlock),
  Arbitrary.make(AnthropicBlob.DocumentBlock),
  fc.record({
    type: fc.constantFrom("image", "document"),
    source: fc.oneof(
      json,
      fc.record(
        {
          type: fc.constantFrom("base64", "url", "file", "text"),
          media_type: maybe(fc.string()),
          data: maybe(fc.string()),
          url: maybe(fc.string())
        },
        { requiredKeys: ["type"] }
      )
    )
  })
)
const unknownBlock = fc.record({ type: fc.string(), text: fc.string(), id: fc.string(), input: json })

/** Any block an SDK message might carry, and some it never should. */
export const anyBlock: fc.Arbitrary<unknown> = fc.oneof(
  textBlock,
  thinkingBlock,
  redactedThinkingBlock,
  toolUseBlock,
  toolResultBlock,
  attachmentBlock,
  unknownBlock,
  json
)

export const content: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.string() },
  { weight: 4, arbitrary: fc.array(anyBlock, { maxLength: 6 }) },
  { weight: 1, arbitrary: json }
)

export const userMessage = fc.record(
  {
    type: fc.constant("user"),
    message: fc.record({ role: fc.constant("user"), content }, { requiredKeys: [] }),
    uuid: fc.uuid(),
    session_id: fc.uuid(),
    isReplay: fc.boolean(),
    parent_tool_use_id: fc.constant(null)
  },
  { requiredKeys: ["type", "message"] }
)

export const assistantMessage = fc.record(
  {
    type: fc.constant("assistant"),
    message: fc.record({ role: fc.constant("assistant"), model: maybe(fc.string()), content }, { requiredKeys: [] }),
    uuid: fc.uuid(),
    session_id: fc.uuid(),
    error: json,
    parent_tool_use_id: fc.constant(null)
  },
  { requiredKeys: ["type", "message"] }
)

const otherMessage = fc.record(
  {
    type: fc.constantFrom("system", "result", "stream_event", "tool_progress", "rate_limit_event", "brand_new"),
    subtype: fc.string(),
    session_id: fc.oneof(fc.uuid(), fc.string(), json),
    uuid: fc.uuid()
  },
  { requiredKeys: ["type"] }
)

/** Messages generated from @acx/schema's own schemas of the SDK and Python SDK shapes. */
export const schemaMessage: fc.Arbitrary<unknown> = fc.oneof(
  Arbitrary.make(SdkMessage.UserMessage),
  Arbitrary.make(SdkMessage.UserMessageReplay),
  Arbitrary.make(SdkMessage.AssistantMessage),
  Arbitrary.make(SdkMessage.KnownSdkMessage),
  Arbitrary.make(PythonMessage.KnownPythonMessage)
)

/** Any SDK-like message (TS or Python shaped), or any JSON value at all. */
export const anyMessage: fc.Arbitrary<unknown> = fc.oneof(
  schemaMessage,
  userMessage,
  assistantMessage,
  otherMessage,
  fc.record({ content, model: maybe(fc.string()), error: json }, { requiredKeys: ["content"] }),
  fc.record({ subtype: fc.string(), data: fc.oneof(jsonObject, json) }),
  json
)

// Blocks the Python SDK can represent (identified by key presence), in their TS shape.
const pythonableBlock = fc.oneof(
  fc.record({ type: fc.constant("text"), text: maybe(fc.string()) }),
  fc.record({ type: fc.constant("thinking"), thinking: maybe(fc.string()), signature: fc.string() }),
  fc.record({ type: fc.constant("tool_use"), id: maybe(fc.string()), name: maybe(fc.string()), input: toolInput }),
  fc.record(
    {
      type: fc.constant("tool_result"),
      tool_use_id: maybe(fc.string()),
      content: fc.oneof(json, fc.array(toolResultItem, { maxLength: 4 })),
      is_error: json
    },
    { requiredKeys: ["type", "tool_use_id"] }
  )
)

const pythonableContent = fc.oneof(fc.string(), fc.array(pythonableBlock, { maxLength: 6 }))

/** A TS-shaped message whose content the Python SDK could also have produced. */
export const pythonableMessage = fc.oneof(
  fc.record({
    type: fc.constant("user" as const),
    message: fc.record({ role: fc.constant("user"), content: pythonableContent })
  }),
  fc.record({
    type: fc.constant("assistant" as const),
    message: fc.record({
      role: fc.constant("assistant"),
      model: fc.oneof(fc.string(), fc.constant(null)),
      content: fc.array(pythonableBlock, { maxLength: 6 })
    }),
    error: fc.oneof(fc.constantFrom(null, "rate_limit", "unknown"), json)
  })
)

const withoutType = (block: unknown): unknown => {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return block
  const { type: _type, ...rest } = block as Record<string, unknown>
  return rest
}

/** The Python SDK's `asdict()` twin of a TS-shaped message (see `pythonableMessage`). */
export const toPythonTwin = (message: {
  readonly type: "user" | "assistant"
  readonly message: { readonly content: unknown; readonly model?: unknown }
  readonly error?: unknown
}): Record<string, unknown> => {
  const content = Array.isArray(message.message.content)
    ? message.message.content.map(withoutType)
    : message.message.content
  return message.type === "assistant"
    ? { content, model: message.message.model ?? null, parent_tool_use_id: null, error: message.error ?? null }
    : { content, uuid: null, parent_tool_use_id: null, tool_use_result: null }
}
