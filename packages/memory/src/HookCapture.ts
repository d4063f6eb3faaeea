/**
 * What a Claude Code hook's stdin asks the memory to record — pure: the checked input in, a
 * {@link Capture} (or why nothing is recorded) out, with private parts removed, secrets redacted
 * and large values cut before anything leaves this function.
 *
 * Plain TypeScript with no Effect import: it runs in the hook process on every tool call. The
 * checks are the few fields the memory uses (the full shapes are `@acx/schema`'s `Hook`
 * schemas); everything else the CLI sends is passed over.
 *
 * @since 0.1.0
 */
import * as Redact from "@acx/convert/Redact"
import type { KnownHookEvent } from "@acx/schema/HookEvents"
import { KNOWN_HOOK_EVENTS } from "@acx/schema/HookEvents"
import * as path from "node:path"
import { crypto } from "./internal/lazyCrypto.js"
import type { MemoryConfig } from "./MemoryConfig.js"
import { isExcluded } from "./MemoryConfig.js"

/**
 * The events the memory listens to: six of the hook events acx models (not
 * PreSkillShellCommand: a hook on it guards a command, and the memory guards nothing).
 *
 * @since 0.1.0
 * @category constants
 */
export const MEMORY_HOOK_EVENTS: ReadonlyArray<MemoryHookEvent> = KNOWN_HOOK_EVENTS.filter(
  (event): event is MemoryHookEvent => event !== "PreSkillShellCommand"
)

/**
 * @since 0.1.0
 * @category models
 */
export type MemoryHookEvent = Exclude<KnownHookEvent, "PreSkillShellCommand">

/**
 * @since 0.1.0
 * @category guards
 */
export const isMemoryHookEvent = (name: string): name is MemoryHookEvent =>
  (MEMORY_HOOK_EVENTS as ReadonlyArray<string>).includes(name)

/**
 * A queued unit of work for the worker.
 *
 * @since 0.1.0
 * @category models
 */
export interface QueuedEvent {
  readonly kind: "prompt" | "tool" | "tool_failure" | "summarise"
  /** Equal for two deliveries of the same event: the second is not stored. */
  readonly idempotencyKey: string
  readonly toolName: string | undefined
  /** JSON, already redacted and cut. */
  readonly payload: string
}

/**
 * What one hook invocation records.
 *
 * @since 0.1.0
 * @category models
 */
export interface Capture {
  readonly _tag: "Capture"
  readonly event: MemoryHookEvent
  readonly sessionId: string
  /** The absolute directory Claude Code ran in. */
  readonly project: string
  readonly transcriptPath: string | undefined
  /** UserPromptSubmit: the prompt as stored (redacted). */
  readonly prompt: string | undefined
  readonly queued: QueuedEvent | undefined
  /** SessionEnd: why the session ended. */
  readonly endReason: string | undefined
  /** SessionStart: the context to inject is wanted. */
  readonly wantsContext: boolean
}

/**
 * Nothing is recorded: `warning` is the one line for stderr (`undefined`: a quiet skip, e.g. a
 * tool on the skip list).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skip {
  readonly _tag: "Skip"
  readonly warning: string | undefined
  /** The event, when the input was well-formed enough to tell (its output shape depends on it). */
  readonly event: MemoryHookEvent | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type CaptureResult = Capture | Skip

const skip = (warning: string | undefined, event?: MemoryHookEvent): Skip => ({ _tag: "Skip", warning, event })

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const stringField = (input: Record<string, unknown>, name: string): string | undefined => {
  const value = input[name]
  return typeof value === "string" ? value : undefined
}

/** How many items of an array are kept before the rest is cut. */
export const MAX_ARRAY_ITEMS = 200

/**
 * A JSON value with every string longer than `maxChars` cut (a marker says how many characters
 * went) and every array longer than {@link MAX_ARRAY_ITEMS} cut the same way. Total.
 *
 * @since 0.1.0
 * @category cutting
 */
export const cut = (value: unknown, maxChars: number, depth = 0): unknown => {
  if (typeof value === "string") {
    return value.length > maxChars
      ? `${value.slice(0, maxChars)}\n[… cut: ${value.length - maxChars} more characters]`
      : value
  }
  if (typeof value !== "object" || value === null || depth > 64) return value
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_ARRAY_ITEMS).map((item) => cut(item, maxChars, depth + 1))
    return value.length > MAX_ARRAY_ITEMS ? [...kept, `[… cut: ${value.length - MAX_ARRAY_ITEMS} more items]`] : kept
  }
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: cut(item, maxChars, depth + 1), enumerable: true, writable: true })
  }
  return out
}

/** Redacted, then cut: cutting first could split a secret and leave half of it unrecognised. */
const clean = (value: unknown, config: MemoryConfig): unknown => cut(Redact.value(value), config.maxToolOutputChars)

/** The fields that say which event it is: kept as they are, never redacted. */
const IDENTITY_FIELDS = ["hook_event_name", "session_id", "cwd", "transcript_path", "tool_name", "tool_use_id"]

/**
 * A hook input as the spool may keep it: every string redacted and every `<private>` part
 * removed ({@link Redact.value}), the fields naming the event kept as they are. {@link capture}
 * reads it the same as the input it came from (the redactor is idempotent), so nothing the
 * memory records is lost, and nothing it would not record is written.
 *
 * @since 0.2.0
 * @category capturing
 */
export const spoolable = (input: Record<string, unknown>): Record<string, unknown> => {
  const redacted = Redact.value(input) as Record<string, unknown>
  for (const field of IDENTITY_FIELDS) {
    if (Object.hasOwn(input, field)) {
      Object.defineProperty(redacted, field, { value: input[field], enumerable: true, writable: true })
    }
  }
  return redacted
}

const hash = (text: string): string => crypto().createHash("sha256").update(text).digest("hex").slice(0, 32)

/**
 * Where in its session a hook call was made, beyond its payload: Claude Code's `prompt_id` (one
 * per user prompt, on every event of its turn) when the call carries one; else `position`, the
 * transcript's size in bytes when the hook ran (the caller reads it: this module does no I/O);
 * else nothing. Two calls of one turn share it; the same payload on a later turn does not.
 *
 * @since 0.1.0
 * @category identity
 */
export const turnOf = (input: Record<string, unknown>, position: number | undefined): string => {
  const promptId = stringField(input, "prompt_id")
  if (promptId !== undefined && promptId !== "") return `prompt_id ${promptId}`
  return position === undefined ? "" : `transcript ${position}`
}

/**
 * Whether an event's identity needs the transcript's position ({@link turnOf}): an event with no
 * id of its own (no `tool_use_id`) in a call without a `prompt_id`.
 *
 * @since 0.1.0
 * @category identity
 */
export const needsPosition = (input: unknown): boolean =>
  isObject(input) && (stringField(input, "prompt_id") ?? "") === "" &&
  (input["hook_event_name"] === "UserPromptSubmit" || input["hook_event_name"] === "Stop" ||
    input["hook_event_name"] === "SessionEnd")

/**
 * Reads one hook invocation: `event` is the argument (`acx hook PostToolUse`), `input` the parsed
 * stdin, `raw` its text, `position` the transcript's size when the hook ran (see
 * {@link turnOf}). A tool event's identity is its `tool_use_id`; any other event's is its
 * session, its turn and its payload, so only a re-delivery of the same call is a duplicate.
 * Total: any input gives a capture or a skip with its reason.
 *
 * @since 0.1.0
 * @category capturing
 */
export const capture = (
  event: string,
  input: unknown,
  raw: string,
  config: MemoryConfig,
  position?: number | undefined
): CaptureResult => {
  if (!isMemoryHookEvent(event)) {
    return skip(`"${event}" is not an event acx memory records (${MEMORY_HOOK_EVENTS.join(", ")})`)
  }
  if (!isObject(input)) return skip("stdin is not a JSON object: nothing recorded", event)
  const name = stringField(input, "hook_event_name")
  if (name !== event) {
    return skip(
      name === undefined
        ? "stdin has no hook_event_name: nothing recorded"
        : `stdin's hook_event_name "${name}" is not ${event}: nothing recorded`,
      event
    )
  }
  const sessionId = stringField(input, "session_id")
  if (sessionId === undefined || sessionId.trim() === "") {
    return skip("stdin has no session_id: nothing recorded", event)
  }
  const cwd = stringField(input, "cwd")
  if (cwd === undefined || !path.isAbsolute(cwd)) {
    return skip("stdin has no absolute cwd (the project): nothing recorded", event)
  }
  const project = path.resolve(cwd)
  if (isExcluded(config, project)) return skip(undefined, event)
  const transcript = stringField(input, "transcript_path")
  // not for tool events, which have an id of their own: hashing a large payload costs
  const identity = () => hash(`${sessionId}\n${turnOf(input, position)}\n${raw}`)
  const base = {
    _tag: "Capture" as const,
    event,
    sessionId,
    project,
    transcriptPath: transcript === undefined || transcript === "" ? undefined : transcript,
    prompt: undefined,
    queued: undefined,
    endReason: undefined,
    wantsContext: false
  }
  switch (event) {
    case "SessionStart":
      return { ...base, wantsContext: true }
    case "UserPromptSubmit": {
      const prompt = stringField(input, "prompt")
      if (prompt === undefined) return skip("UserPromptSubmit without a prompt: nothing recorded", event)
      const stored = Redact.text(prompt).trim()
      // a prompt that was all <private> is not recorded at all
      if (stored === "") return skip(undefined, event)
      return {
        ...base,
        prompt: stored,
        queued: {
          kind: "prompt",
          idempotencyKey: `prompt:${identity()}`,
          toolName: undefined,
          payload: JSON.stringify({ prompt: cut(stored, config.maxToolOutputChars) })
        }
      }
    }
    case "PostToolUse":
    case "PostToolUseFailure": {
      const toolName = stringField(input, "tool_name")
      const toolUseId = stringField(input, "tool_use_id")
      if (toolName === undefined || toolUseId === undefined || toolUseId === "") {
        return skip(`${event} without tool_name and tool_use_id: nothing recorded`, event)
      }
      if (config.skipTools.includes(toolName)) return skip(undefined, event)
      const failed = event === "PostToolUseFailure"
      const error = stringField(input, "error")
      if (failed && error === undefined) return skip("PostToolUseFailure without an error: nothing recorded", event)
      const payload = failed
        ? {
          tool_input: clean(input["tool_input"], config),
          error: cut(Redact.text(error!), config.maxToolOutputChars),
          ...(input["is_interrupt"] === true ? { is_interrupt: true } : {})
        }
        : { tool_input: clean(input["tool_input"], config), tool_response: clean(input["tool_response"], config) }
      return {
        ...base,
        queued: {
          kind: failed ? "tool_failure" : "tool",
          // one tool call succeeds or fails once: both events share the key
          idempotencyKey: `tool:${sessionId}:${toolUseId}`,
          toolName,
          payload: JSON.stringify(payload)
        }
      }
    }
    case "Stop": {
      const last = stringField(input, "last_assistant_message")
      return {
        ...base,
        queued: {
          kind: "summarise",
          idempotencyKey: `stop:${identity()}`,
          toolName: undefined,
          payload: JSON.stringify({
            trigger: "Stop",
            ...(last === undefined ? {} : { last_assistant_message: cut(Redact.text(last), config.maxToolOutputChars) })
          })
        }
      }
    }
    case "SessionEnd": {
      const reason = stringField(input, "reason") ?? "other"
      return {
        ...base,
        endReason: reason,
        queued: {
          kind: "summarise",
          // a resumed session ends again; the worker skips an end when a Stop already
          // summarised everything
          idempotencyKey: `end:${identity()}`,
          toolName: undefined,
          payload: JSON.stringify({ trigger: "SessionEnd", reason })
        }
      }
    }
  }
}
