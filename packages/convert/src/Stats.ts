/**
 * Per-session and per-project statistics of Claude Code transcripts: messages by role, tool
 * calls by name, tokens, models, duration, subagents and compactions.
 *
 * Inputs are `unknown`: parsed JSON lines in file order. Every function here is total.
 *
 * @since 0.1.0
 */
import { mergeAssistantFragments } from "./Fragments.js"
import { get, isObj } from "./internal/json.js"
import { addTotals, emptyTotals, SYNTHETIC_MODEL, type TokenTotals, usageOf } from "./Usage.js"

/**
 * Statistics of one session (or, from {@link projectStats}, of several).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStats {
  readonly messages: {
    /** User entries with content other than tool results, not `isMeta`/`isCompactSummary`. */
    readonly user: number
    /** Assistant messages after fragment merging. */
    readonly assistant: number
    /** User entries whose content is only `tool_result` blocks. */
    readonly toolResults: number
    /** User entries flagged `isMeta` or `isCompactSummary`. */
    readonly meta: number
  }
  readonly toolCalls: Readonly<Record<string, number>>
  readonly tokens: TokenTotals
  readonly tokensByModel: Readonly<Record<string, TokenTotals>>
  /** Assistant messages (after merging) per model, `<synthetic>` excluded. */
  readonly models: Readonly<Record<string, number>>
  readonly firstTimestamp: string | undefined
  readonly lastTimestamp: string | undefined
  /** Sum of each session's last − first timestamp, in milliseconds (0 when unknown). */
  readonly durationMs: number
  /** Distinct `agentId`s (plus one for sidechain entries without `agentId`). */
  readonly subagents: number
  /** `system` entries with `subtype: "compact_boundary"`. */
  readonly compactions: number
  readonly sessions: number
}

const isToolResultOnly = (content: unknown): boolean =>
  Array.isArray(content) && content.length > 0 && content.every((block) => get(block, "type") === "tool_result")

const increment = (map: Map<string, number>, key: string, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by)
}

/**
 * Statistics of one session's transcript entries (main and, when included, subagent entries).
 * Assistant fragments are merged first; usage follows {@link usageOf}. Malformed entries are
 * skipped; timestamps that do not parse are ignored.
 *
 * @since 0.1.0
 * @category analytics
 */
export const sessionStats = (entries: ReadonlyArray<unknown>): SessionStats => {
  const merged = mergeAssistantFragments(entries)
  let user = 0
  let assistant = 0
  let toolResults = 0
  let meta = 0
  let compactions = 0
  let first: { readonly text: string; readonly ms: number } | undefined
  let last: { readonly text: string; readonly ms: number } | undefined
  const toolCalls = new Map<string, number>()
  const models = new Map<string, number>()
  const agents = new Set<string>()
  let anonymousSidechain = false
  for (const entry of merged) {
    const timestamp = entry.timestamp
    if (typeof timestamp === "string") {
      const ms = Date.parse(timestamp)
      if (Number.isFinite(ms)) {
        if (first === undefined || ms < first.ms) first = { text: timestamp, ms }
        if (last === undefined || ms > last.ms) last = { text: timestamp, ms }
      }
    }
    if (typeof entry.agentId === "string" && entry.agentId !== "") agents.add(entry.agentId)
    else if (entry.isSidechain === true) anonymousSidechain = true
    const content = get(entry.message, "content")
    if (entry.type === "user") {
      if (entry.isMeta === true || entry.isCompactSummary === true) meta++
      else if (isToolResultOnly(content)) toolResults++
      else user++
    } else if (entry.type === "assistant") {
      assistant++
      const model = get(entry.message, "model")
      if (typeof model === "string" && model !== "" && model !== SYNTHETIC_MODEL) increment(models, model)
      if (Array.isArray(content)) {
        for (const block of content) {
          const name = get(block, "name")
          if (get(block, "type") === "tool_use" && typeof name === "string") increment(toolCalls, name)
        }
      }
    } else if (entry.type === "system" && entry.subtype === "compact_boundary") {
      compactions++
    }
  }
  const usage = usageOf(entries)
  return {
    messages: { user, assistant, toolResults, meta },
    toolCalls: Object.fromEntries(toolCalls),
    tokens: usage.total,
    tokensByModel: usage.byModel,
    models: Object.fromEntries(models),
    firstTimestamp: first?.text,
    lastTimestamp: last?.text,
    durationMs: first !== undefined && last !== undefined ? last.ms - first.ms : 0,
    subagents: agents.size + (anonymousSidechain ? 1 : 0),
    compactions,
    sessions: 1
  }
}

const num = (value: unknown): number => typeof value === "number" && Number.isFinite(value) ? value : 0

const sumRecords = <A>(
  records: ReadonlyArray<unknown>,
  add: (a: A, b: A) => A,
  read: (value: unknown) => A
): Record<string, A> => {
  const out = new Map<string, A>()
  for (const record of records) {
    if (!isObj(record)) continue
    for (const [key, raw] of Object.entries(record)) {
      const value = read(raw)
      const previous = out.get(key)
      out.set(key, previous === undefined ? value : add(previous, value))
    }
  }
  return Object.fromEntries(out)
}

const plus = (a: number, b: number): number => a + b

/**
 * Sums session statistics into project statistics: counts, tool calls, tokens and models add
 * up, `durationMs` is the sum of session durations, `subagents` the sum per session, and the
 * first/last timestamps span all sessions. Malformed items and fields count as zero.
 *
 * @since 0.1.0
 * @category analytics
 */
export const projectStats = (sessions: ReadonlyArray<SessionStats>): SessionStats => {
  const list: ReadonlyArray<unknown> = Array.isArray(sessions) ? sessions.filter(isObj) : []
  let first: { readonly text: string; readonly ms: number } | undefined
  let last: { readonly text: string; readonly ms: number } | undefined
  for (const session of list) {
    for (const text of [get(session, "firstTimestamp"), get(session, "lastTimestamp")]) {
      if (typeof text !== "string") continue
      const ms = Date.parse(text)
      if (!Number.isFinite(ms)) continue
      if (first === undefined || ms < first.ms) first = { text, ms }
      if (last === undefined || ms > last.ms) last = { text, ms }
    }
  }
  const sum = (...keys: ReadonlyArray<string>): number =>
    list.reduce<number>((acc, session) => acc + num(keys.reduce<unknown>((value, key) => get(value, key), session)), 0)
  return {
    messages: {
      user: sum("messages", "user"),
      assistant: sum("messages", "assistant"),
      toolResults: sum("messages", "toolResults"),
      meta: sum("messages", "meta")
    },
    toolCalls: sumRecords(list.map((s) => get(s, "toolCalls")), plus, num),
    tokens: list.reduce<TokenTotals>((acc, s) => addTotals(acc, readTotals(get(s, "tokens"))), emptyTotals),
    tokensByModel: sumRecords(list.map((s) => get(s, "tokensByModel")), addTotals, readTotals),
    models: sumRecords(list.map((s) => get(s, "models")), plus, num),
    firstTimestamp: first?.text,
    lastTimestamp: last?.text,
    durationMs: sum("durationMs"),
    subagents: sum("subagents"),
    compactions: sum("compactions"),
    sessions: sum("sessions")
  }
}

const readTotals = (value: unknown): TokenTotals => ({
  input: num(get(value, "input")),
  output: num(get(value, "output")),
  cacheRead: num(get(value, "cacheRead")),
  cacheWrite: num(get(value, "cacheWrite"))
})
