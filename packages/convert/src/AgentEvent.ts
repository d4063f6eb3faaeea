/**
 * What an agent conversation shows a caller, one SDK message at a time: `mapSdkMessage` turns
 * every Claude Agent SDK message into `AgentEvent`s — text and thinking as they stream (partial
 * messages) and complete, tool calls and their results, subagent and tool progress, usage per
 * model response, the turn's result, status, retries and compaction notices. It is pure and
 * total: it reads the raw message (TypeScript shape, any SDK version), never throws, and gives
 * an `Unknown` event for anything it does not know, so a newer SDK cannot break a caller's loop.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { get, isObj, type Obj } from "./internal/json.js"
import { toolResultText } from "./ToolResult.js"
import { type TokenTotals, totalsOf } from "./Usage.js"

/**
 * An event of an agent conversation. `parentToolUseId` is the Task tool call a subagent's
 * event belongs to (`null` in the main conversation).
 *
 * @since 0.1.0
 * @category models
 */
export type AgentEvent = Data.TaggedEnum<{
  /** `system/init`: the session (re)started; a later init may carry a new session id. */
  SessionStarted: {
    readonly sessionId: string
    readonly model: string | undefined
    readonly cwd: string | undefined
    readonly tools: ReadonlyArray<string>
  }
  /** A prompt: the user's text (the CLI's replay, or a user message with text). */
  UserPrompt: { readonly text: string; readonly uuid: string | undefined; readonly parentToolUseId: string | null }
  /** Streamed text (partial messages). */
  TextDelta: { readonly text: string; readonly parentToolUseId: string | null }
  /** Streamed thinking (partial messages). */
  ThinkingDelta: { readonly thinking: string; readonly parentToolUseId: string | null }
  /** A complete text block of the model. */
  Text: { readonly text: string; readonly messageId: string | undefined; readonly parentToolUseId: string | null }
  /** A complete thinking block. */
  Thinking: { readonly thinking: string; readonly parentToolUseId: string | null }
  /** The model asked for a tool. */
  ToolUse: {
    readonly id: string
    readonly name: string
    readonly input: unknown
    readonly parentToolUseId: string | null
  }
  /** A tool's result; `text` is its content as text (images and other blocks left out). */
  ToolResult: {
    readonly toolUseId: string
    readonly text: string
    readonly isError: boolean
    readonly parentToolUseId: string | null
  }
  /** The usage a model response reported (one per assistant message line; a response spans several). */
  Usage: {
    readonly messageId: string | undefined
    readonly model: string | undefined
    readonly tokens: TokenTotals
    readonly parentToolUseId: string | null
  }
  /** A tool still running (`tool_progress`). */
  ToolProgress: { readonly toolUseId: string; readonly toolName: string; readonly elapsedSeconds: number }
  /** A subagent or background task started, progressed, changed or finished. */
  SubagentProgress: {
    readonly phase: "started" | "progress" | "updated" | "finished"
    readonly taskId: string | undefined
    readonly toolUseId: string | undefined
    readonly description: string | undefined
    readonly status: string | undefined
    readonly summary: string | undefined
  }
  /** `system/status` (e.g. compacting), or the session's state (`idle`, `running`, …). */
  Status: { readonly status: string }
  /**
   * The CLI retries a failed API call: this is retry `attempt` of `maxRetries`, made after
   * `delayMs`; `status` is the HTTP status (none when no answer came, e.g. connection refused)
   * and `error` the CLI's name for the failure (`overloaded`, `rate_limit`, `unknown`, …).
   */
  ApiRetry: {
    readonly attempt: number | undefined
    readonly maxRetries: number | undefined
    readonly delayMs: number | undefined
    readonly status: number | undefined
    readonly error: string | undefined
  }
  /**
   * The CLI's own message for an API call that failed for good (its retries spent): its text
   * (`API Error: …`), not the model's words, so it is not a `Text`.
   */
  ApiError: {
    readonly text: string
    readonly status: number | undefined
    readonly error: string | undefined
    readonly parentToolUseId: string | null
  }
  /** The conversation was compacted. */
  Compaction: { readonly trigger: string | undefined; readonly preTokens: number | undefined }
  /**
   * The turn ended: success, or an error subtype with its messages. `tokens` are the turn's (the
   * result's `usage`); `totalCostUsd`, `costByModel` and `tokensByModel` (the result's
   * `modelUsage`, side calls included) are cumulative for the session, as the CLI reports them.
   */
  TurnComplete: {
    readonly sessionId: string | undefined
    readonly subtype: string
    readonly isError: boolean
    readonly result: string | undefined
    readonly errors: ReadonlyArray<string>
    readonly totalCostUsd: number
    readonly tokens: TokenTotals
    readonly costByModel: { readonly [model: string]: number }
    readonly tokensByModel: { readonly [model: string]: TokenTotals }
    readonly numTurns: number
    readonly durationMs: number
  }
  /** A message this function does not map (a newer SDK, a frame of no interest to a caller). */
  Unknown: { readonly type: string; readonly subtype: string | undefined; readonly message: unknown }
}>

/**
 * Constructors and matchers of {@link AgentEvent}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const AgentEvent = Data.taggedEnum<AgentEvent>()

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined
const parentOf = (message: Obj): string | null => str(message["parent_tool_use_id"]) ?? null
const blocksOf = (content: unknown): ReadonlyArray<unknown> =>
  Array.isArray(content) ? content : typeof content === "string" ? [{ type: "text", text: content }] : []

const isApiErrorMessage = (message: Obj): boolean =>
  message["is_api_error_message"] === true || message["isApiErrorMessage"] === true

const apiErrorEvents = (message: Obj): Array<AgentEvent> => {
  const text = blocksOf(get(get(message, "message"), "content"))
    .flatMap((block) => (isObj(block) && block["type"] === "text" ? [str(block["text"]) ?? ""] : []))
    .join("\n")
  return [AgentEvent.ApiError({
    text,
    status: num(message["api_error_status"]),
    error: str(message["api_error_type"]) ?? str(message["api_error"]) ?? str(message["error"]),
    parentToolUseId: parentOf(message)
  })]
}

const assistantEvents = (message: Obj): Array<AgentEvent> => {
  if (isApiErrorMessage(message)) return apiErrorEvents(message)
  const parentToolUseId = parentOf(message)
  const inner = get(message, "message")
  const messageId = str(get(inner, "id"))
  const events: Array<AgentEvent> = []
  for (const block of blocksOf(get(inner, "content"))) {
    if (!isObj(block)) continue
    switch (block["type"]) {
      case "text": {
        const text = str(block["text"])
        if (text !== undefined && text !== "") events.push(AgentEvent.Text({ text, messageId, parentToolUseId }))
        break
      }
      case "thinking": {
        const thinking = str(block["thinking"])
        if (thinking !== undefined && thinking !== "") events.push(AgentEvent.Thinking({ thinking, parentToolUseId }))
        break
      }
      case "tool_use":
      case "server_tool_use":
      case "mcp_tool_use":
        events.push(AgentEvent.ToolUse({
          id: str(block["id"]) ?? "",
          name: str(block["name"]) ?? "",
          input: block["input"],
          parentToolUseId
        }))
        break
    }
  }
  const usage = get(inner, "usage")
  if (isObj(usage)) {
    events.push(AgentEvent.Usage({
      messageId,
      model: str(get(inner, "model")),
      tokens: totalsOf(usage),
      parentToolUseId
    }))
  }
  return events
}

const userEvents = (message: Obj): Array<AgentEvent> => {
  const parentToolUseId = parentOf(message)
  const uuid = str(message["uuid"])
  const content = get(get(message, "message"), "content")
  const events: Array<AgentEvent> = []
  const texts: Array<string> = []
  for (const block of blocksOf(content)) {
    if (!isObj(block)) continue
    if (block["type"] === "text") {
      const text = str(block["text"])
      if (text !== undefined && text !== "") texts.push(text)
    } else if (block["type"] === "tool_result") {
      events.push(AgentEvent.ToolResult({
        toolUseId: str(block["tool_use_id"]) ?? "",
        text: toolResultText(block["content"]),
        isError: block["is_error"] === true,
        parentToolUseId
      }))
    }
  }
  // Claude Code's own reminders and meta lines are not the user's words.
  if (texts.length > 0 && message["isSynthetic"] !== true) {
    events.unshift(AgentEvent.UserPrompt({ text: texts.join("\n"), uuid, parentToolUseId }))
  }
  return events
}

const streamEvents = (message: Obj): Array<AgentEvent> => {
  const delta = get(get(message, "event"), "delta")
  if (get(get(message, "event"), "type") !== "content_block_delta" || !isObj(delta)) return []
  const parentToolUseId = parentOf(message)
  if (delta["type"] === "text_delta") {
    const text = str(delta["text"])
    return text === undefined || text === "" ? [] : [AgentEvent.TextDelta({ text, parentToolUseId })]
  }
  if (delta["type"] === "thinking_delta") {
    const thinking = str(delta["thinking"])
    return thinking === undefined || thinking === "" ? [] : [AgentEvent.ThinkingDelta({ thinking, parentToolUseId })]
  }
  return []
}

const costByModel = (modelUsage: unknown): { readonly [model: string]: number } => {
  if (!isObj(modelUsage)) return {}
  // own properties only (a model named "__proto__" is a model like any other)
  return Object.fromEntries(
    Object.entries(modelUsage).flatMap(([model, usage]) => {
      const cost = num(get(usage, "costUSD"))
      return cost === undefined ? [] : [[model, cost] as const]
    })
  )
}

const modelTokens = (usage: unknown): TokenTotals => {
  const figure = (key: string) => num(get(usage, key)) ?? 0
  return totalsOf({
    input_tokens: figure("inputTokens"),
    output_tokens: figure("outputTokens"),
    cache_read_input_tokens: figure("cacheReadInputTokens"),
    cache_creation_input_tokens: figure("cacheCreationInputTokens")
  })
}

const tokensByModel = (modelUsage: unknown): { readonly [model: string]: TokenTotals } =>
  isObj(modelUsage)
    ? Object.fromEntries(
      Object.entries(modelUsage).flatMap((
        [model, usage]
      ) => (isObj(usage) ? [[model, modelTokens(usage)] as const] : []))
    )
    : {}

// The CLI's words for an API call that failed, as it puts them in a result's text.
const API_ERROR_TEXT = /^API Error\b/

const resultEvent = (message: Obj): AgentEvent => {
  const errors = get(message, "errors")
  return AgentEvent.TurnComplete({
    sessionId: str(message["session_id"]),
    subtype: str(message["subtype"]) ?? "unknown",
    // a turn the API never answered ends as subtype "success" with is_error: the text says it
    isError: message["is_error"] === true || (str(message["subtype"]) ?? "success") !== "success" ||
      message["terminal_reason"] === "api_error" || API_ERROR_TEXT.test(str(message["result"]) ?? ""),
    result: str(message["result"]),
    errors: Array.isArray(errors) ? errors.filter((error): error is string => typeof error === "string") : [],
    totalCostUsd: num(message["total_cost_usd"]) ?? 0,
    tokens: totalsOf(message["usage"]),
    costByModel: costByModel(message["model_usage"] ?? message["modelUsage"]),
    tokensByModel: tokensByModel(message["model_usage"] ?? message["modelUsage"]),
    numTurns: num(message["num_turns"]) ?? 0,
    durationMs: num(message["duration_ms"]) ?? 0
  })
}

const TASK_PHASES: { readonly [subtype: string]: "started" | "progress" | "updated" | "finished" } = {
  task_started: "started",
  task_progress: "progress",
  task_updated: "updated",
  task_notification: "finished"
}

const systemEvents = (message: Obj): Array<AgentEvent> | undefined => {
  const subtype = str(message["subtype"])
  switch (subtype) {
    case "init": {
      const sessionId = str(message["session_id"])
      if (sessionId === undefined) return undefined
      const tools = message["tools"]
      return [AgentEvent.SessionStarted({
        sessionId,
        model: str(message["model"]),
        cwd: str(message["cwd"]),
        tools: Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === "string") : []
      })]
    }
    case "status": {
      const status = str(message["status"])
      return status === undefined ? [] : [AgentEvent.Status({ status })]
    }
    case "session_state_changed": {
      const state = str(message["state"])
      return state === undefined ? [] : [AgentEvent.Status({ status: state })]
    }
    case "api_retry":
      return [AgentEvent.ApiRetry({
        attempt: num(message["attempt"]),
        maxRetries: num(message["max_retries"]),
        delayMs: num(message["retry_delay_ms"]),
        status: num(message["error_status"]),
        error: str(message["error"]) ?? str(get(message["error"], "message"))
      })]
    case "compact_boundary": {
      const metadata = message["compact_metadata"]
      return [
        AgentEvent.Compaction({ trigger: str(get(metadata, "trigger")), preTokens: num(get(metadata, "pre_tokens")) })
      ]
    }
    case "task_started":
    case "task_progress":
    case "task_updated":
    case "task_notification": {
      const patch = get(message, "patch")
      return [AgentEvent.SubagentProgress({
        phase: TASK_PHASES[subtype]!,
        taskId: str(message["task_id"]),
        toolUseId: str(message["tool_use_id"]),
        description: str(message["description"]) ?? str(get(patch, "description")),
        status: str(message["status"]) ?? str(get(patch, "status")),
        summary: str(message["summary"])
      })]
    }
    default:
      return undefined
  }
}

const mapKnown = (message: Obj): Array<AgentEvent> | undefined => {
  switch (message["type"]) {
    case "assistant":
      return assistantEvents(message)
    case "user":
      return userEvents(message)
    case "stream_event":
      return streamEvents(message)
    case "result":
      return [resultEvent(message)]
    case "tool_progress":
      return [AgentEvent.ToolProgress({
        toolUseId: str(message["tool_use_id"]) ?? "",
        toolName: str(message["tool_name"]) ?? "",
        elapsedSeconds: num(message["elapsed_time_seconds"]) ?? 0
      })]
    case "system":
      return systemEvents(message)
    default:
      return undefined
  }
}

const unknown = (message: unknown): AgentEvent => {
  let type = typeof message as string
  let subtype: string | undefined
  try {
    if (isObj(message)) {
      type = str(message["type"]) ?? "object"
      subtype = str(message["subtype"])
    }
  } catch {
    // a getter that throws: still an Unknown event
  }
  return AgentEvent.Unknown({ type, subtype, message })
}

/**
 * The events an SDK message stands for, in order (none for a message a caller has no use for,
 * such as a partial message's `message_start`). Total: any value in, events out; a message it
 * cannot read becomes one `Unknown` event.
 *
 * @since 0.1.0
 * @category conversions
 */
export const mapSdkMessage = (message: unknown): ReadonlyArray<AgentEvent> => {
  try {
    if (!isObj(message)) return [unknown(message)]
    return mapKnown(message) ?? [unknown(message)]
  } catch {
    return [unknown(message)]
  }
}
