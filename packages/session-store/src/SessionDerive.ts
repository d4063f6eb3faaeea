/**
 * What a store derives from the entries of one append, beside the entries themselves: the
 * session's listing metadata and counts, each API message's usage, and the texts of the
 * full-text index. Pure and total: the SQL stores run it inside their append transaction (and
 * their migration runs it over entries stored before), then write what it returns.
 *
 * The rules are acx's own, not new ones:
 * - metadata: `@acx/convert/SessionMetadata`'s fold over the main transcript (title, first and
 *   last prompt, cwd, branch, first and last time), its state kept as JSON between appends;
 * - counts and usage: `@acx/convert/StatsFold`'s counting rule, what `acx stats` counts — user
 *   messages (not meta, compact summaries or tool results), assistant messages once per
 *   `Fragments.messageKey` within one transcript file (main or subagent; a keyless assistant
 *   entry counts alone), tool calls per `tool_use` block, and a message's figures from
 *   `StatsFold.messageFigures` (the last fragment with usage wins, on the time of the first);
 * - a subagent's entries count toward their parent session's counts and last activity; the
 *   listing metadata (title, prompts, cwd, branch, first/last time) comes from the main
 *   transcript only, as the config-dir listing reads it.
 *
 * @since 0.2.0
 */
import * as Fragments from "@acx/convert/Fragments"
import * as Pricing from "@acx/convert/Pricing"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StatsFold from "@acx/convert/StatsFold"
import { toolResultText } from "@acx/convert/ToolResult"

/**
 * The longest text one indexed field keeps: 8 192 UTF-16 code units (a cut never splits a
 * surrogate pair). A tool's 2 MB output is found by its start; what is beyond the cap is still
 * in the entry, just not searchable.
 *
 * @since 0.2.0
 * @category constants
 */
export const FIELD_CAP = 8192

/**
 * Who a searchable text is from: the user's prompt, the assistant's text or thinking, or a tool
 * call's input or result.
 *
 * @since 0.2.0
 * @category models
 */
export type TextRole = "user" | "assistant" | "tool"

/**
 * One row of the full-text index: one field of one entry.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextRow {
  readonly uuid: string | null
  readonly role: TextRole
  /** The entry's `timestamp` in epoch ms, `null` without one. */
  readonly timeMs: number | null
  readonly text: string
}

/**
 * A session's counts, over its main transcript and its subagents.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionCounts {
  readonly entries: number
  readonly userMessages: number
  readonly assistantMessages: number
  readonly toolCalls: number
}

/**
 * What an API message counts: its model (`null` for Claude Code's `<synthetic>` messages, which
 * count nothing) and figures (`null` before a fragment with usage).
 *
 * @since 0.2.0
 * @category models
 */
export interface MessageUsage {
  /** `Fragments.messageKey`, or `entry:<uuid>` for an assistant entry without `message.id`. */
  readonly messageKey: string
  readonly messageId: string | null
  readonly requestId: string | null
  readonly model: string | null
  readonly cell: StatsFold.ModelCell | null
  /** The first fragment's `timestamp` in epoch ms (kept when later fragments arrive). */
  readonly timeMs: number | null
  /** The first fragment's uuid. */
  readonly uuid: string | null
}

/**
 * What one append derives, given what the store held before.
 *
 * @since 0.2.0
 * @category models
 */
export interface Derived {
  /** The main transcript's metadata fold after the batch; unchanged for a subagent's batch. */
  readonly metadata: SessionMetadata.MetadataState
  /** What the batch adds to the session's counts. */
  readonly counts: SessionCounts
  /** The newest entry time of the batch (epoch ms), `null` when none has a timestamp. */
  readonly lastActivityMs: number | null
  /** Messages to write (insert or replace), in first-appearance order. */
  readonly usage: ReadonlyArray<MessageUsage>
  readonly texts: ReadonlyArray<TextRow>
}

/**
 * The usage rows the store already holds for some message keys of the same transcript file.
 *
 * @since 0.2.0
 * @category models
 */
export type KnownMessages = ReadonlyMap<string, MessageUsage>

type Obj = { readonly [key: string]: unknown }
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value)
const get = (value: unknown, key: string): unknown => isObj(value) ? value[key] : undefined
const str = (value: unknown): string | null => typeof value === "string" && value !== "" ? value : null

const timeOf = (entry: Obj): number | null => {
  const text = entry["timestamp"]
  if (typeof text !== "string") return null
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : null
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * A field as the index keeps it: U+0000 (which Postgres text cannot hold) as a space, cut at
 * {@link FIELD_CAP} without splitting a surrogate pair, an unpaired surrogate as U+FFFD;
 * `undefined` for blank text.
 *
 * @since 0.2.0
 * @category indexing
 */
export const indexable = (text: string): string | undefined => {
  let cut = text.length > FIELD_CAP ? text.slice(0, FIELD_CAP) : text
  const last = cut.charCodeAt(cut.length - 1)
  if (cut.length === FIELD_CAP && last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1)
  // well-formed (an unpaired surrogate as U+FFFD): Postgres and JSON parameters need it
  const whole = cut.replace(LONE_SURROGATE, "\uFFFD")
  const clean = whole.includes("\u0000") ? whole.replaceAll("\u0000", " ") : whole
  return clean.trim() === "" ? undefined : clean
}

const stringifyInput = (input: unknown): string => {
  if (typeof input === "string") return input
  try {
    return JSON.stringify(input) ?? ""
  } catch {
    return ""
  }
}

/**
 * The searchable fields of one entry, in block order: a user entry's prompt text (meta entries
 * are not something anyone typed or read) and tool results; an assistant entry's text, thinking
 * and tool inputs (as JSON). Other entry types hold nothing to search.
 *
 * @since 0.2.0
 * @category indexing
 */
export const textsOf = (entry: unknown): Array<TextRow> => {
  if (!isObj(entry)) return []
  const type = entry["type"]
  if ((type !== "user" && type !== "assistant") || entry["isMeta"] === true) return []
  const base = { uuid: str(entry["uuid"]), timeMs: timeOf(entry) }
  const rows: Array<TextRow> = []
  const push = (role: TextRole, raw: string) => {
    const text = indexable(raw)
    if (text !== undefined) rows.push({ ...base, role, text })
  }
  const content = get(entry["message"], "content")
  if (typeof content === "string") {
    push(type, content)
    return rows
  }
  if (!Array.isArray(content)) return rows
  for (const block of content) {
    switch (get(block, "type")) {
      case "text": {
        const text = get(block, "text")
        if (typeof text === "string") push(type, text)
        break
      }
      case "thinking": {
        const thinking = get(block, "thinking")
        if (typeof thinking === "string") push("assistant", thinking)
        break
      }
      case "tool_use":
        push("tool", stringifyInput(get(block, "input")))
        break
      case "tool_result":
        push("tool", toolResultText(get(block, "content")))
        break
    }
  }
  return rows
}

const isToolResultOnly = (content: unknown): boolean =>
  Array.isArray(content) && content.length > 0 && content.every((block) => get(block, "type") === "tool_result")

const toolCallsOf = (entry: Obj): number => {
  const content = get(entry["message"], "content")
  if (!Array.isArray(content)) return 0
  let calls = 0
  for (const block of content) {
    if (get(block, "type") === "tool_use" && typeof get(block, "name") === "string") calls++
  }
  return calls
}

/**
 * The key a message's usage row is stored under: `Fragments.messageKey`, else (an assistant
 * entry without `message.id`, which counts alone) `entry:<uuid>`, else `entry:<fallback>`.
 *
 * @since 0.2.0
 * @category usage
 */
export const usageKeyOf = (entry: unknown, fallback: string): string | undefined => {
  if (!isObj(entry) || entry["type"] !== "assistant") return undefined
  return Fragments.messageKey(entry) ?? `entry:${str(entry["uuid"]) ?? fallback}`
}

/**
 * The message keys of a batch's assistant entries, for reading the rows the store already holds
 * ({@link KnownMessages}) before {@link derive}.
 *
 * @since 0.2.0
 * @category usage
 */
export const messageKeysOf = (entries: ReadonlyArray<unknown>): Array<string> => {
  const keys = new Set<string>()
  for (const entry of entries) {
    const key = Fragments.messageKey(entry)
    if (key !== undefined) keys.add(key)
  }
  return [...keys]
}

/**
 * Derives what one append of stored `entries` (in order) adds. `main`: the batch belongs to the
 * main transcript (its metadata is folded); `metadata`: the session's fold so far; `known`: the
 * stored usage rows of this transcript file for the batch's message keys; `batchId` makes the
 * keys of keyless, uuid-less assistant entries unique.
 *
 * @since 0.2.0
 * @category deriving
 */
export const derive = (input: {
  readonly entries: ReadonlyArray<unknown>
  readonly main: boolean
  readonly metadata: SessionMetadata.MetadataState
  readonly known: KnownMessages
  readonly batchId: string
}): Derived => {
  const { entries, known } = input
  const usage = new Map<string, MessageUsage>()
  const texts: Array<TextRow> = []
  let userMessages = 0
  let assistantMessages = 0
  let toolCalls = 0
  let lastActivityMs: number | null = null
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    if (!isObj(entry)) continue
    const ms = timeOf(entry)
    if (ms !== null && (lastActivityMs === null || ms > lastActivityMs)) lastActivityMs = ms
    for (const row of textsOf(entry)) texts.push(row)
    if (entry["type"] === "user") {
      const content = get(entry["message"], "content")
      if (entry["isMeta"] !== true && entry["isCompactSummary"] !== true && !isToolResultOnly(content)) {
        userMessages++
      }
      continue
    }
    if (entry["type"] !== "assistant") continue
    toolCalls += toolCallsOf(entry)
    const key = usageKeyOf(entry, `${input.batchId}:${i}`)!
    const previous = usage.get(key) ?? known.get(key)
    if (previous === undefined) assistantMessages++
    const figures = StatsFold.messageFigures(
      entry["message"],
      previous === undefined ? undefined : { model: previous.model ?? undefined, cell: previous.cell ?? undefined },
      Pricing.builtinPricing
    )
    usage.set(key, {
      messageKey: key,
      messageId: previous?.messageId ?? str(get(entry["message"], "id")),
      requestId: previous?.requestId ?? str(entry["requestId"]),
      model: figures.model ?? null,
      cell: figures.cell ?? null,
      timeMs: previous === undefined ? ms : previous.timeMs,
      uuid: previous === undefined ? str(entry["uuid"]) : previous.uuid
    })
  }
  return {
    metadata: input.main ? SessionMetadata.foldEntries(input.metadata, entries) : input.metadata,
    counts: { entries: entries.length, userMessages, assistantMessages, toolCalls },
    lastActivityMs,
    usage: [...usage.values()],
    texts
  }
}
