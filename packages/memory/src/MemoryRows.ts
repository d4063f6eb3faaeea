/**
 * The memory's rows, one type per concept (an observation, a session summary, a prompt, a queued
 * event, a project's counts, a day's spend), as every reader receives them whatever the backend:
 * camelCase fields, times in epoch milliseconds, JSON list columns already decoded. Pure: the
 * lenient list readers a backend storing lists as text uses are here too.
 *
 * @since 0.1.0
 */

/**
 * A queued hook event (a prompt, a tool call, a failed tool call, the end-of-session mark).
 *
 * @since 0.1.0
 * @category rows
 */
export interface EventRow {
  readonly id: number
  readonly sessionId: string
  readonly project: string
  readonly kind: "prompt" | "tool" | "tool_failure" | "summarise"
  /** `prompt:…`, `tool:<session>:<tool_use_id>`, …: what makes a repeated hook a no-op. */
  readonly idempotencyKey: string
  readonly toolName: string | null
  /** The stored JSON payload. */
  readonly payload: string
  readonly createdAt: number
  readonly state: "pending" | "done" | "failed"
  readonly attempts: number
  readonly lastError: string | null
}

/**
 * A Claude Code session as the memory knows it.
 *
 * @since 0.1.0
 * @category rows
 */
export interface SessionRow {
  readonly id: string
  readonly project: string
  readonly status: "active" | "completed" | "interrupted" | "failed"
  readonly observerSessionId: string | null
  /** The observer conversation's usage (JSON of `AgentUsage.ConversationUsage`). */
  readonly observerUsage: string | null
  readonly observerLocalReason: string | null
  readonly promptCount: number
  readonly startedAt: number
  readonly lastEventAt: number
  readonly endedAt: number | null
  readonly lastError: string | null
}

/**
 * An observation the observer (or the local fallback) kept.
 *
 * @since 0.1.0
 * @category rows
 */
export interface ObservationRow {
  readonly id: number
  readonly sessionId: string
  readonly project: string
  readonly type: string
  readonly title: string
  readonly subtitle: string | null
  readonly narrative: string
  readonly facts: ReadonlyArray<string>
  readonly concepts: ReadonlyArray<string>
  readonly filesRead: ReadonlyArray<string>
  readonly filesModified: ReadonlyArray<string>
  /** The events it was distilled from. */
  readonly eventIds: ReadonlyArray<number>
  readonly source: "model" | "local"
  readonly createdAt: number
}

/**
 * A session's summary.
 *
 * @since 0.1.0
 * @category rows
 */
export interface SummaryRow {
  readonly id: number
  readonly sessionId: string
  readonly project: string
  readonly request: string
  readonly investigated: string
  readonly learned: string
  readonly completed: string
  readonly nextSteps: string
  readonly notes: string
  readonly filesRead: ReadonlyArray<string>
  readonly filesEdited: ReadonlyArray<string>
  readonly eventIds: ReadonlyArray<number>
  readonly source: "model" | "local"
  readonly createdAt: number
}

/**
 * A prompt the user typed (as the hook stored it: redacted, cut when long).
 *
 * @since 0.1.0
 * @category rows
 */
export interface PromptRow {
  readonly id: number
  readonly sessionId: string
  readonly project: string
  /** Its number in its session (1 for the first). */
  readonly promptNumber: number
  readonly text: string
  readonly createdAt: number
}

/**
 * A project the memory knows, with what it keeps of it.
 *
 * @since 0.1.0
 * @category rows
 */
export interface ProjectRow {
  /** The absolute directory Claude Code ran in. */
  readonly project: string
  readonly observations: number
  readonly summaries: number
  readonly sessions: number
  /** Epoch ms of its newest observation or summary (`null`: none yet). */
  readonly lastAt: number | null
}

/**
 * A UTC day's observer calls summed.
 *
 * @since 0.1.0
 * @category rows
 */
export interface SpendRow {
  /** `2026-11-24`. */
  readonly day: string
  readonly calls: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheCreationTokens: number
  readonly costUsd: number
}

/**
 * A JSON list column read leniently: its strings (anything else, or text that is not JSON, gives
 * what can be kept).
 *
 * @since 0.1.0
 * @category decoding
 */
export const stringList = (text: unknown): Array<string> => {
  if (typeof text !== "string") return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : []
  } catch {
    return []
  }
}

/**
 * A JSON list of event ids read leniently.
 *
 * @since 0.1.0
 * @category decoding
 */
export const idList = (text: unknown): Array<number> => {
  if (typeof text !== "string") return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed.filter((item): item is number => Number.isSafeInteger(item)) : []
  } catch {
    return []
  }
}

/**
 * Which observations, summaries or prompts to list: every condition given holds. Forgotten
 * entries are left out unless `includeForgotten`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListQuery {
  readonly project?: string | undefined
  readonly sessionId?: string | undefined
  /** Observations of this type only (ignored for summaries and prompts). */
  readonly type?: string | undefined
  /** Ids below this one. */
  readonly before?: number | undefined
  /** Ids above this one. */
  readonly after?: number | undefined
  /** Only these ids (an empty list selects nothing). */
  readonly ids?: ReadonlyArray<number> | undefined
  /** At most this many (none: all). */
  readonly limit?: number | undefined
  /** By id: `newest` first or `oldest` first. */
  readonly order: "newest" | "oldest"
  readonly includeForgotten?: boolean | undefined
}

/**
 * Which queued events to list.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventQuery {
  readonly sessionId?: string | undefined
  readonly state?: EventRow["state"] | undefined
  /** Only these ids (an empty list selects nothing). */
  readonly ids?: ReadonlyArray<number> | undefined
  readonly limit?: number | undefined
  readonly order: "newest" | "oldest"
}
