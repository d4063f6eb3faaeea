/**
 * How the stand-in's realistic conversations are written: a builder that collects the scenario's
 * steps, the frames `query()` yields and the transcript entries, and the primitives every turn is
 * made of (an assistant frame per content block, a tool call and its result, on the main thread or
 * in a subagent), each writing the frame and its entry together.
 */
import { randomBytes, randomUUID } from "node:crypto"
import type { StandInFrame, StandInStep } from "../StandInScenario.js"
import { STANDIN_CLAUDE_CODE_VERSION } from "../StandInScenario.js"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export const base62 = (length: number): string => Array.from(randomBytes(length), (byte) => BASE62[byte % 62]).join("")

export interface Builder {
  readonly sessionId: string
  readonly cwd: string
  readonly model: string
  readonly mirror: boolean
  readonly steps: Array<StandInStep>
  readonly frames: Array<StandInFrame>
  readonly main: Array<StandInFrame>
  readonly subagents: Record<string, Array<StandInFrame>>
  readonly subagentIds: Array<string>
  pendingMain: Array<StandInFrame>
  lastMainUuid: string | null
  clock: number
}

export const emitFrame = (b: Builder, frame: StandInFrame): StandInFrame => {
  b.steps.push({ emit: frame })
  b.frames.push(frame)
  return frame
}

export const tick = (b: Builder, ms: number): string => {
  b.clock += ms
  return new Date(b.clock).toISOString()
}

export const entryBase = (b: Builder, parentUuid: string | null, timestamp: string) => ({
  parentUuid,
  isSidechain: false,
  userType: "external",
  entrypoint: "sdk-ts",
  cwd: b.cwd,
  sessionId: b.sessionId,
  version: STANDIN_CLAUDE_CODE_VERSION,
  gitBranch: "main",
  timestamp
})

export const addMainEntry = (b: Builder, entry: StandInFrame): void => {
  b.pendingMain.push(entry)
  if (typeof entry.uuid === "string") b.lastMainUuid = entry.uuid
}

export const flushMain = (b: Builder): void => {
  if (b.pendingMain.length === 0) return
  if (b.mirror) b.steps.push({ mirror: { entries: b.pendingMain } })
  b.main.push(...b.pendingMain)
  b.pendingMain = []
}

export interface ApiMessage {
  readonly id: string
  readonly requestId: string
  readonly usage: StandInFrame
}

export const apiMessage = (inputTokens: number, outputTokens: number): ApiMessage => {
  const variation = randomBytes(1)[0] % 7
  const cacheCreation = 1_200 + variation * 137
  return {
    id: `msg_01${base62(22)}`,
    requestId: `req_011C${base62(20)}`,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: 18_432 + variation * 911,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: cacheCreation },
      output_tokens: outputTokens,
      service_tier: "standard"
    }
  }
}

export interface Thread {
  /** `null` on the main thread, the `Task` tool_use id in a subagent. */
  readonly parentToolUseId: string | null
  /** The subagent's id and entries, in a subagent. */
  readonly agent?: { readonly id: string; readonly entries: Array<StandInFrame>; lastUuid: string | null }
}

export const record = (b: Builder, thread: Thread, entry: StandInFrame): void => {
  if (thread.agent === undefined) {
    addMainEntry(b, entry)
  } else {
    thread.agent.entries.push(entry)
    if (typeof entry.uuid === "string") thread.agent.lastUuid = entry.uuid
  }
}

export const baseFor = (b: Builder, thread: Thread, timestamp: string) =>
  thread.agent === undefined
    ? entryBase(b, b.lastMainUuid, timestamp)
    : { ...entryBase(b, thread.agent.lastUuid, timestamp), isSidechain: true, agentId: thread.agent.id }

/** One assistant frame (and entry) per content block; the blocks of a response share its id. */
export const assistant = (b: Builder, thread: Thread, api: ApiMessage, block: StandInFrame): StandInFrame => {
  const message = {
    model: b.model,
    id: api.id,
    type: "message",
    role: "assistant",
    content: [block],
    stop_reason: null,
    stop_sequence: null,
    usage: api.usage
  }
  const frame = emitFrame(b, {
    type: "assistant",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 900)),
    type: "assistant",
    message,
    requestId: api.requestId,
    uuid: frame.uuid
  })
  return frame
}

export const toolResult = (
  b: Builder,
  thread: Thread,
  toolUse: { readonly id: string; readonly assistantUuid: unknown },
  content: string | ReadonlyArray<StandInFrame>,
  toolUseResult: unknown,
  isError = false
): StandInFrame => {
  const message = {
    role: "user",
    content: [{ tool_use_id: toolUse.id, type: "tool_result", content, ...(isError ? { is_error: true } : {}) }]
  }
  const frame = emitFrame(b, {
    type: "user",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID(),
    tool_use_result: toolUseResult
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 1_400)),
    type: "user",
    message,
    uuid: frame.uuid,
    toolUseResult,
    sourceToolAssistantUUID: toolUse.assistantUuid
  })
  return frame
}

export const toolUse = (
  b: Builder,
  thread: Thread,
  api: ApiMessage,
  name: string,
  input: StandInFrame
): { readonly id: string; readonly assistantUuid: unknown } => {
  const id = `toolu_01${base62(22)}`
  const frame = assistant(b, thread, api, { type: "tool_use", id, name, input })
  return { id, assistantUuid: frame.uuid }
}

export const text = (value: string): StandInFrame => ({ type: "text", text: value })

export const MAIN: Thread = { parentToolUseId: null }
