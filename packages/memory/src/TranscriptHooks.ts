/**
 * The hook calls Claude Code would have made for a past session, read back from its transcript —
 * pure: entries in, hook inputs out, and through {@link captures} the same {@link Capture}s the
 * live hooks record (`HookCapture.capture`: `<private>` parts stripped, secrets redacted, values
 * cut, `skipTools` and `excludeProjects` honoured). `acx memory backfill` records these, so a
 * session Claude Code ran before the hooks were installed reaches the memory by the path a live
 * one takes, with nothing a live one would not keep.
 *
 * What is derived, in transcript order:
 * - `UserPromptSubmit` for each prompt a user typed (`SessionMetadata.promptOf`: not meta
 *   entries, compact summaries, tool results, command output or a subagent's prompt; not the
 *   `[Request interrupted by user]` note Claude Code writes when a turn is interrupted);
 * - `PostToolUse` for each tool call whose result is in the transcript, its `tool_response` the
 *   entry's `toolUseResult` (what Claude Code hands the hook) else the result's content;
 *   `PostToolUseFailure` when the result is an error, its text the `error`; a call with no result
 *   (an interrupted turn) fired no hook and gives nothing;
 * - `Stop` after each turn with the turn's last assistant text, and one `SessionEnd` (reason
 *   `backfill`) at the end.
 *
 * Each call carries a `prompt_id`: the prompt entry's own `promptId`, else its `uuid`, so two
 * readings of one transcript give the same idempotency keys, and the same words on two turns
 * stay two prompts. Sidechain entries (a subagent's turns inlined) are left out, as the main
 * session's hooks do not see them.
 *
 * Plain TypeScript with no Effect import. Total: any entries give a list, malformed ones fewer
 * calls.
 *
 * @since 0.3.0
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as ToolResult from "@acx/convert/ToolResult"
import { isObject } from "@acx/schema/Json"
import type { Capture } from "./HookCapture.js"
import { capture } from "./HookCapture.js"
import type { MemoryConfig } from "./MemoryConfig.js"

/**
 * One hook call as Claude Code would have made it: the event, its stdin as an object, and when
 * (epoch ms; the entry's `timestamp`, else the previous call's time).
 *
 * @since 0.3.0
 * @category models
 */
export interface HookCall {
  readonly event: "UserPromptSubmit" | "PostToolUse" | "PostToolUseFailure" | "Stop" | "SessionEnd"
  readonly input: Readonly<Record<string, unknown>>
  readonly at: number
}

/**
 * Where a past session is: its id and transcript file. `cwd` is the project when the caller knows
 * it; otherwise the first entry that names one gives it.
 *
 * @since 0.3.0
 * @category models
 */
export interface PastSessionRef {
  readonly sessionId: string
  readonly transcriptPath: string
  readonly cwd?: string | undefined
}

const field = (value: unknown, key: string): unknown => isObject(value) ? value[key] : undefined

const str = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

const blocks = (entry: unknown): ReadonlyArray<unknown> => {
  const content = field(field(entry, "message"), "content")
  return Array.isArray(content) ? content : []
}

const timeOf = (entry: unknown, fallback: number): number => {
  const stamp = str(field(entry, "timestamp"))
  const time = stamp === undefined ? Number.NaN : Date.parse(stamp)
  return Number.isFinite(time) ? time : fallback
}

/**
 * The first `cwd` an entry names: the directory Claude Code ran in (the memory's project).
 *
 * @since 0.3.0
 * @category deriving
 */
export const projectOf = (entries: ReadonlyArray<unknown>): string | undefined => {
  for (const entry of entries) {
    const cwd = str(field(entry, "cwd"))
    if (cwd !== undefined) return cwd
  }
  return undefined
}

/** What Claude Code writes as a user entry when the user interrupts a turn: no prompt was submitted. */
const INTERRUPTION = /^\[Request interrupted by user/

interface PendingCall {
  readonly name: string
  readonly input: unknown
}

/**
 * The hook calls of one past session, in the order Claude Code would have made them (see the
 * module documentation). `fallbackTime` dates calls before the first entry with a timestamp.
 *
 * @since 0.3.0
 * @category deriving
 */
export const hookCalls = (
  session: PastSessionRef,
  entries: ReadonlyArray<unknown>,
  fallbackTime = 0
): Array<HookCall> => {
  const cwd = session.cwd ?? projectOf(entries)
  const base = { session_id: session.sessionId, transcript_path: session.transcriptPath, cwd }
  const calls: Array<HookCall> = []
  const toolCalls = new Map<string, PendingCall>()
  let turn: string | undefined
  let lastText: string | undefined
  let at = fallbackTime
  const stop = () => {
    if (turn === undefined) return
    calls.push({
      event: "Stop",
      at,
      input: {
        ...base,
        hook_event_name: "Stop",
        prompt_id: turn,
        stop_hook_active: false,
        ...(lastText === undefined ? {} : { last_assistant_message: lastText })
      }
    })
    turn = undefined
    lastText = undefined
  }
  for (const entry of entries) {
    if (!isObject(entry) || entry["isSidechain"] === true) continue
    at = timeOf(entry, at)
    if (entry["type"] === "assistant") {
      for (const block of blocks(entry)) {
        const type = field(block, "type")
        const id = str(field(block, "id"))
        const name = str(field(block, "name"))
        if (type === "tool_use" && id !== undefined && name !== undefined) {
          toolCalls.set(id, { name, input: field(block, "input") ?? {} })
        }
        const text = str(field(block, "text"))
        if (type === "text" && text !== undefined && text.trim() !== "") lastText = text
      }
      continue
    }
    if (entry["type"] !== "user") continue
    const prompt = SessionMetadata.promptOf(entry)
    if (prompt !== undefined && !INTERRUPTION.test(prompt)) {
      stop()
      turn = str(entry["promptId"]) ?? str(entry["uuid"]) ?? `entry ${calls.length}`
      calls.push({
        event: "UserPromptSubmit",
        at,
        input: { ...base, hook_event_name: "UserPromptSubmit", prompt_id: turn, prompt }
      })
      continue
    }
    for (const block of blocks(entry)) {
      if (field(block, "type") !== "tool_result") continue
      const id = str(field(block, "tool_use_id"))
      const call = id === undefined ? undefined : toolCalls.get(id)
      if (id === undefined || call === undefined) continue
      toolCalls.delete(id)
      const common = {
        ...base,
        ...(turn === undefined ? {} : { prompt_id: turn }),
        tool_name: call.name,
        tool_use_id: id,
        tool_input: call.input
      }
      const text = ToolResult.toolResultText(field(block, "content"))
      calls.push(
        field(block, "is_error") === true
          ? {
            event: "PostToolUseFailure",
            at,
            input: { ...common, hook_event_name: "PostToolUseFailure", error: text }
          }
          : {
            event: "PostToolUse",
            at,
            input: { ...common, hook_event_name: "PostToolUse", tool_response: entry["toolUseResult"] ?? text }
          }
      )
    }
  }
  stop()
  if (calls.length > 0) {
    calls.push({
      event: "SessionEnd",
      at,
      input: { ...base, hook_event_name: "SessionEnd", prompt_id: "backfill", reason: "backfill" }
    })
  }
  return calls
}

/**
 * A capture the memory records, with the time the hook would have run.
 *
 * @since 0.3.0
 * @category models
 */
export interface TimedCapture {
  readonly capture: Capture
  readonly at: number
}

/**
 * The captures of one past session: each of {@link hookCalls} through the live hook's
 * `HookCapture.capture` (so the same privacy rules, cuts and skips apply), the skipped ones left
 * out. Empty for a session without an absolute `cwd` or in an excluded project.
 *
 * @since 0.3.0
 * @category deriving
 */
export const captures = (
  session: PastSessionRef,
  entries: ReadonlyArray<unknown>,
  config: MemoryConfig,
  fallbackTime = 0
): Array<TimedCapture> =>
  hookCalls(session, entries, fallbackTime).flatMap((call): Array<TimedCapture> => {
    const result = capture(call.event, call.input, JSON.stringify(call.input), config)
    return result._tag === "Capture" ? [{ capture: result, at: call.at }] : []
  })
