/**
 * The pure part of the model double: choosing the answer for a request from a script, and
 * rendering an answer as the Anthropic Messages API does (a JSON message, or its SSE stream).
 *
 * @internal
 */
import type * as Api from "../ModelScript.js"

/** @internal */
export const estimateTokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4))

/** @internal */
export const isError = (answer: Api.ModelAnswer): answer is Api.ModelError => "error" in answer

const isStep = (entry: Api.ModelAnswer | Api.ScriptStep): entry is Api.ScriptStep => "reply" in entry

/** The default `when` of a list step: any request of the agent loop (one that offers tools). */
const agentRequest = (request: Api.ModelRequest): boolean => !isSideCallRequest(request)

/** @internal */
export const isSideCallRequest = (request: Api.ModelRequest): boolean => {
  const tools = request.body["tools"]
  return !Array.isArray(tools) || tools.length === 0
}

/** @internal */
export interface ScriptState {
  readonly script: Api.Script
  /** Uses left per list step (a list script only). */
  readonly left: Array<number>
}

/** @internal */
export const initialState = (script: Api.Script): ScriptState => ({
  script,
  left: typeof script === "function"
    ? []
    : script.map((entry) => (isStep(entry) ? entry.times ?? 1 : 1))
})

/** @internal */
export const SIDE_CALL_TEXT = "A session with the model double"

/** @internal */
export const unscripted = (request: Api.ModelRequest): Api.ModelError => ({
  error: {
    status: 400,
    type: "invalid_request_error",
    message: `model double: no scripted reply for this request (${
      JSON.stringify(lastUserText(request) ?? "").slice(0, 120)
    }); add a step to the script`
  }
})

/** Picks the answer and consumes the step it came from (mutates `state.left`). @internal */
export const choose = (state: ScriptState, request: Api.ModelRequest): Api.ModelAnswer => {
  const { script } = state
  if (typeof script === "function") return script(request)
  for (let index = 0; index < script.length; index++) {
    if (state.left[index]! <= 0) continue
    const entry = script[index]!
    const when = isStep(entry) ? entry.when ?? agentRequest : agentRequest
    if (!when(request)) continue
    state.left[index] = state.left[index]! - 1
    if (!isStep(entry)) return entry
    return typeof entry.reply === "function" ? entry.reply(request) : entry.reply
  }
  return isSideCallRequest(request) ? { content: SIDE_CALL_TEXT } : unscripted(request)
}

/** The text of the last user message (its text blocks joined), if any. @internal */
export const lastUserText = (request: Api.ModelRequest): string | undefined => {
  const messages = request.body["messages"]
  if (!Array.isArray(messages)) return undefined
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as { role?: unknown; content?: unknown } | undefined
    if (message?.role !== "user") continue
    if (typeof message.content === "string") return message.content
    if (!Array.isArray(message.content)) return undefined
    const texts = message.content.flatMap((block: { type?: unknown; text?: unknown }) =>
      block?.type === "text" && typeof block.text === "string" ? [block.text] : []
    )
    return texts.length === 0 ? undefined : texts.join("\n")
  }
  return undefined
}

/** @internal */
export const lastUserBlocks = (request: Api.ModelRequest): ReadonlyArray<{ readonly type?: unknown }> => {
  const messages = request.body["messages"]
  if (!Array.isArray(messages)) return []
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined
  return last?.role === "user" && Array.isArray(last.content) ? last.content : []
}

/** A reply with every default filled in. @internal */
export interface RenderedMessage {
  readonly id: string
  readonly type: "message"
  readonly role: "assistant"
  readonly model: string
  readonly content: ReadonlyArray<Record<string, unknown>>
  readonly stop_reason: string
  readonly stop_sequence: null
  readonly usage: {
    readonly input_tokens: number
    readonly output_tokens: number
    readonly cache_creation_input_tokens: number
    readonly cache_read_input_tokens: number
    readonly cache_creation?: {
      readonly ephemeral_5m_input_tokens: number
      readonly ephemeral_1h_input_tokens: number
    }
  }
}

/** @internal */
export const render = (
  reply: Api.ModelReply,
  request: Api.ModelRequest,
  ids: { readonly message: string; readonly toolUse: () => string }
): RenderedMessage => {
  const blocks: ReadonlyArray<Api.ReplyBlock> = typeof reply.content === "string"
    ? [{ type: "text", text: reply.content }]
    : reply.content
  const content = blocks.map((block): Record<string, unknown> => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text }
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: block.signature ?? "double-signature" }
      case "tool_use":
        return { type: "tool_use", id: block.id ?? ids.toolUse(), name: block.name, input: block.input }
    }
  })
  const model = reply.model ?? (typeof request.body["model"] === "string" ? request.body["model"] : "claude-double")
  const usage = reply.usage ?? {}
  return {
    id: ids.message,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: reply.stopReason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens ?? estimateTokens(request.body["messages"]),
      output_tokens: usage.outputTokens ?? estimateTokens(content),
      cache_creation_input_tokens: usage.cacheCreationInputTokens ?? 0,
      cache_read_input_tokens: usage.cacheReadInputTokens ?? 0,
      ...(usage.cacheCreation1hInputTokens === undefined ? {} : {
        cache_creation: {
          ephemeral_5m_input_tokens: (usage.cacheCreationInputTokens ?? 0) - usage.cacheCreation1hInputTokens,
          ephemeral_1h_input_tokens: usage.cacheCreation1hInputTokens
        }
      })
    }
  }
}

const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** Splits a text in two (when it has two characters or more), to exercise the client's joining. */
const halves = (text: string): ReadonlyArray<string> =>
  text.length < 2 ? [text] : [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))]

/** The SSE body of a streamed message, as the Messages API sends it. @internal */
export const sse = (message: RenderedMessage): string => {
  const parts: Array<string> = [
    event("message_start", {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } }
    })
  ]
  message.content.forEach((block, index) => {
    const start = block["type"] === "text"
      ? { type: "text", text: "" }
      : block["type"] === "thinking"
      ? { type: "thinking", thinking: "", signature: "" }
      : { type: "tool_use", id: block["id"], name: block["name"], input: {} }
    parts.push(event("content_block_start", { type: "content_block_start", index, content_block: start }))
    const deltas: Array<Record<string, unknown>> = block["type"] === "text"
      ? halves(String(block["text"])).map((text) => ({ type: "text_delta", text }))
      : block["type"] === "thinking"
      ? [
        ...halves(String(block["thinking"])).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: block["signature"] }
      ]
      : halves(JSON.stringify(block["input"])).map((partial_json) => ({ type: "input_json_delta", partial_json }))
    for (const delta of deltas) parts.push(event("content_block_delta", { type: "content_block_delta", index, delta }))
    parts.push(event("content_block_stop", { type: "content_block_stop", index }))
  })
  parts.push(event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    // cumulative, as the API reports it today: the client keeps the last figures it saw
    usage: message.usage
  }))
  parts.push(event("message_stop", { type: "message_stop" }))
  return parts.join("")
}
