/**
 * The upstream test vectors (acontext-api.md §4), in both shapes: the TypeScript SDK's
 * (`type` keys, content under `message`) and the Python SDK's `asdict()` shape (no `type` keys,
 * blocks identified by key presence). Session ids are the upstream UUIDs; where an upstream test
 * used a non-UUID id ("sess-1", "explicit", "auto-generated-uuid") acx needs a UUID instead
 * (ARCHITECTURE.md §5, "session ids").
 */

export const UUID_DEFAULT = "a1b2c3d4-e5f6-7890-abcd-ef1234567890"
export const UUID_DISCOVERED = "44444444-4444-4444-4444-444444444444"
export const UUID_FROM_RESULT = "55555555-5555-5555-5555-555555555555"
export const UUID_FROM_STREAM = "66666666-6666-6666-6666-666666666666"
export const UUID_FLOW = "77777777-7777-7777-7777-777777777777"
export const UUID_FIRST = "88888888-8888-8888-8888-888888888888"
export const UUID_SECOND = "99999999-9999-9999-9999-999999999999"
/** Stands in for upstream's "auto-generated-uuid": the id Acontext generates when none is given. */
export const UUID_AUTO = "0a0a0a0a-0000-4000-8000-00000000a070"

export const MODEL = "claude-sonnet-4-20250514"

type Dict = Record<string, unknown>

// ---------------------------------------------------------------------------------------------
// TypeScript SDK shapes
// ---------------------------------------------------------------------------------------------

export const TEXT: Dict = { type: "text", text: "Hello, world!" }
export const EMPTY_TEXT: Dict = { type: "text", text: "" }
export const THINKING: Dict = { type: "thinking", thinking: "Let me reason...", signature: "sig123" }
export const EMPTY_THINKING: Dict = { type: "thinking", thinking: "", signature: "sig456" }
export const TOOL_USE: Dict = { type: "tool_use", id: "tu_1", name: "calculator", input: { expr: "1+1" } }
export const TOOL_RESULT: Dict = { type: "tool_result", tool_use_id: "tu_1", content: "Result is 2" }
export const TOOL_RESULT_ARRAY: Dict = {
  type: "tool_result",
  tool_use_id: "tu_2",
  content: [{ text: "line1" }, { text: "line2" }]
}
export const TOOL_RESULT_NULL: Dict = { type: "tool_result", tool_use_id: "tu_3", content: null }
export const TOOL_RESULT_ERROR: Dict = {
  type: "tool_result",
  tool_use_id: "tu_4",
  content: "error detail",
  is_error: true
}

export const systemInit = (sessionId: string = UUID_DEFAULT): Dict => ({ type: "system", session_id: sessionId })
export const systemOther = (): Dict => ({ type: "system" })
export const userText = (text = "Hello"): Dict => ({ type: "user", message: { role: "user", content: text } })
export const userBlocks = (...blocks: Array<unknown>): Dict => ({
  type: "user",
  message: { role: "user", content: blocks }
})
export const userReplay = (text = "Hello", uuid?: string): Dict => ({
  type: "user",
  isReplay: true,
  ...(uuid === undefined ? {} : { uuid }),
  message: { role: "user", content: text }
})
export const assistant = (
  blocks: Array<unknown>,
  options: { readonly model?: string; readonly error?: unknown } = {}
): Dict => ({
  type: "assistant",
  message: { role: "assistant", content: blocks, model: options.model ?? MODEL },
  ...(options.error === undefined ? {} : { error: options.error })
})
export const resultMessage = (sessionId: string = UUID_DEFAULT): Dict => ({ type: "result", session_id: sessionId })
export const streamEvent = (sessionId: string = UUID_DEFAULT): Dict => ({ type: "stream_event", session_id: sessionId })

// ---------------------------------------------------------------------------------------------
// Python SDK `asdict()` shapes
// ---------------------------------------------------------------------------------------------

export const PY_TEXT: Dict = { text: "Hello, world!" }
export const PY_EMPTY_TEXT: Dict = { text: "" }
export const PY_THINKING: Dict = { thinking: "Let me reason...", signature: "sig123" }
export const PY_EMPTY_THINKING: Dict = { thinking: "", signature: "sig456" }
export const PY_TOOL_USE: Dict = { id: "tu_1", name: "calculator", input: { expr: "1+1" } }
export const PY_TOOL_RESULT: Dict = { tool_use_id: "tu_1", content: "Result is 2" }
export const PY_TOOL_RESULT_ARRAY: Dict = { tool_use_id: "tu_2", content: [{ text: "line1" }, { text: "line2" }] }
export const PY_TOOL_RESULT_NULL: Dict = { tool_use_id: "tu_3", content: null }
export const PY_TOOL_RESULT_ERROR: Dict = { tool_use_id: "tu_4", content: "error detail", is_error: true }

export const pySystemInit = (sessionId: string = UUID_DEFAULT): Dict => ({
  subtype: "init",
  data: { session_id: sessionId }
})
export const pySystemOther = (): Dict => ({ subtype: "heartbeat", data: {} })
export const pyUserText = (text = "Hello"): Dict => ({ content: text })
export const pyUserBlocks = (...blocks: Array<unknown>): Dict => ({ content: blocks })
export const pyAssistant = (
  blocks: Array<unknown>,
  options: { readonly model?: string; readonly error?: unknown } = {}
): Dict => ({
  content: blocks,
  model: options.model ?? MODEL,
  ...(options.error === undefined ? {} : { error: options.error })
})
export const pyResultMessage = (sessionId: string = UUID_DEFAULT): Dict => ({ subtype: "end", session_id: sessionId })
export const pyStreamEvent = (sessionId: string = UUID_DEFAULT): Dict => ({
  uuid: "evt-1",
  session_id: sessionId,
  event: "delta"
})

/** Expected-output builders shared by the test files. */
export const textBlock = (text: string) => ({ type: "text", text })
export const userBlob = (...content: Array<unknown>) => ({ role: "user", content })
export const assistantBlob = (...content: Array<unknown>) => ({ role: "assistant", content })
export const create = (use_uuid: string | null, user: string | null = null) => ({ call: "create", use_uuid, user })
export const store = (sessionId: string, blob: unknown, meta: unknown = null) => ({
  call: "store",
  sessionId,
  blob,
  format: "anthropic",
  meta
})
