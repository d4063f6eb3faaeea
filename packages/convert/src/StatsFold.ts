/**
 * A resumable fold of one transcript file into statistics by local day and model: messages by
 * role, tool calls, tokens (cache writes split 5-minute / 1-hour), dollars, active time. Made for
 * caching: the state is plain JSON ({@link serialise} / {@link restore}), files fold apart and
 * their results add up, and a file that grew is folded on from where the last fold stopped.
 *
 * Counting rules:
 * - **Each API message once**: assistant entries sharing `message.id` + `requestId` are
 *   fragments of one message; the LAST fragment's usage counts (it carries the final output
 *   count), on the day of the first. A fragment that arrives after the file was last folded
 *   replaces what its message counted then, provided the message is among the file's last
 *   {@link RECENT_MESSAGES} messages (Claude Code writes a message's fragments within a few
 *   lines of each other).
 * - **Dollars** per response by {@link Pricing.costOfResponse}; a model the table does not know
 *   is counted with its tokens and no cost (reports list it as unpriced).
 * - **Hours**: each message's figures also go to the UTC hour of its first fragment, with the
 *   first and last message time in that hour: enough to cut 5-hour billing windows exactly
 *   (`BillingWindows`; a window starts on an hour, so an hour is never split between two).
 * - **Active time**: the gaps between consecutive timestamped entries of a main transcript that
 *   are at most {@link IDLE_MS} long (a longer gap is the user away), on the day the gap ends.
 *   Subagent transcripts add no active time: they run inside their session's.
 *
 * The functions mutate the state they are given (a fold runs over hundreds of thousands of
 * lines); every function is total over any input.
 *
 * @since 0.1.0
 */
import { exceedsDepth } from "@acx/schema/JsonDepth"
import { type EntryFacts, factsOf, modelKey as modelKeyOf, UNKNOWN_MODEL as UNKNOWN } from "./internal/entryFacts.js"
import type * as Cells from "./internal/foldCells.js"
import { restoreState } from "./internal/foldRestore.js"
import { LONG_LINE, withoutLongStrings } from "./internal/longStrings.js"
import { get, isObj, setOwn } from "./internal/plain.js"
import { parseTimestamp, UNDATED } from "./internal/timestamps.js"
import * as Pricing from "./Pricing.js"

/**
 * Tokens, messages and dollars of one model.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelCell = Cells.ModelCell

/**
 * What one local day of one file holds.
 *
 * @since 0.1.0
 * @category models
 */
export type DayCell = Cells.DayCell

/**
 * What one API message counts so far: the model it is counted under (`undefined`: Claude Code's
 * `<synthetic>` message, which counts nothing) and its figures (the last fragment with usage).
 *
 * @since 0.1.0
 * @category models
 */
export type MessageFigures = Cells.MessageFigures

/**
 * What the messages of one UTC hour count: their figures by model, and the first and last
 * message time (epoch ms) in it.
 *
 * @since 0.3.0
 * @category models
 */
export type HourCell = Cells.HourCell

type Counted = Cells.Counted

/**
 * The fold of one file so far: by local day (entries without a timestamp under {@link UNDATED}),
 * by UTC hour, the subagents seen, the last timestamp, the malformed lines and the messages
 * counted (trimmed by {@link serialise}).
 *
 * @since 0.1.0
 * @category models
 */
export type FoldState = Cells.FoldState

/**
 * What the fold needs besides the lines.
 *
 * @since 0.1.0
 * @category models
 */
export interface FoldContext {
  readonly pricing: Pricing.PricingTable
  /** The local day (`YYYY-MM-DD`) of an epoch time in milliseconds. */
  readonly dayOf: (ms: number) => string
  /** A main transcript (adds active time) or a subagent's. */
  readonly kind: "main" | "subagent"
}

/**
 * The day key of entries without a usable timestamp ({@link UNDATED}), and the local day of an
 * epoch time ({@link localDayOf}).
 *
 * @since 0.1.0
 * @category constants
 */
export { localDayOf, UNDATED } from "./internal/timestamps.js"

/**
 * The longest gap between two entries that counts as active time: 5 minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const IDLE_MS = 5 * 60 * 1000

/**
 * How many of a file's last messages a serialised fold remembers, so a late fragment replaces
 * its message's figures instead of counting again.
 *
 * @since 0.1.0
 * @category constants
 */
export const RECENT_MESSAGES = 16

/**
 * An empty fold.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty = (): FoldState => ({
  days: {},
  hours: {},
  agents: [],
  anonymousSidechain: false,
  previousMs: undefined,
  malformed: 0,
  recent: new Map()
})

/**
 * A model cell with nothing in it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyModelCell = (): ModelCell => ({
  messages: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  webSearchRequests: 0,
  costUSD: 0
})

const emptyDay = (): DayCell => ({
  firstMs: Number.POSITIVE_INFINITY,
  lastMs: Number.NEGATIVE_INFINITY,
  activeMs: 0,
  user: 0,
  assistant: 0,
  toolResults: 0,
  meta: 0,
  compactions: 0,
  toolCalls: {},
  models: {}
})

// Keys come from transcripts ("__proto__" is a possible model or tool name): own properties only.
const own = <A>(record: { [key: string]: A }, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

// The cell of `key` in `record`, made by `make` when missing, remembering the last one found:
// consecutive entries fall on one day, hour and model, and a record's cells are never replaced,
// so the same record and key give the same cell (one memo per kind of record).
const lastCell = <K extends string | number, C>(make: () => C) => {
  let recordSeen: object | undefined
  let keySeen: K | undefined
  let cellSeen: C | undefined
  return (record: { [key: string]: C }, key: K): C => {
    if (record === recordSeen && key === keySeen) return cellSeen!
    const name = String(key)
    const cell = own(record, name) ?? setOwn(record, name, make())
    recordSeen = record
    keySeen = key
    cellSeen = cell
    return cell
  }
}

const dayCellOf = lastCell<string, DayCell>(emptyDay)
const dayCell = (state: FoldState, day: string): DayCell => dayCellOf(state.days, day)

/**
 * One hour in milliseconds.
 *
 * @since 0.3.0
 * @category constants
 */
export const HOUR_MS = 60 * 60 * 1000

/**
 * The start of the UTC hour an epoch time falls in (epoch ms).
 *
 * @since 0.3.0
 * @category folding
 */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS

const hourCellOf = lastCell<number, HourCell>(() => ({
  firstMs: Number.POSITIVE_INFINITY,
  lastMs: Number.NEGATIVE_INFINITY,
  models: {}
}))
const hourCell = (state: FoldState, ms: number): HourCell => hourCellOf(state.hours, hourOf(ms))

// Adds (or, `sign` −1, takes away) a message's figures in the hour of its time.
const countHour = (state: FoldState, ms: number | undefined, model: string, cell: ModelCell, sign: number): void => {
  if (ms === undefined) return
  const hour = hourCell(state, ms)
  if (ms < hour.firstMs) hour.firstMs = ms
  if (ms > hour.lastMs) hour.lastMs = ms
  const target = own(hour.models, model) ?? setOwn(hour.models, model, emptyModelCell())
  addModelCell(target, cell, sign)
}

/**
 * Adds `b` into `a` (`sign` −1 takes it away).
 *
 * @since 0.1.0
 * @category combinators
 */
export const addModelCell = (a: ModelCell, b: ModelCell, sign = 1): void => {
  a.messages += sign * b.messages
  a.input += sign * b.input
  a.output += sign * b.output
  a.cacheRead += sign * b.cacheRead
  a.cacheWrite5m += sign * b.cacheWrite5m
  a.cacheWrite1h += sign * b.cacheWrite1h
  a.webSearchRequests += sign * b.webSearchRequests
  a.costUSD += sign * b.costUSD
}

const modelCellOf = lastCell<string, ModelCell>(emptyModelCell)
const modelCell = (day: DayCell, model: string): ModelCell => modelCellOf(day.models, model)

// The cell one response counts: its figures, priced by its model's rates when the table has them.
const cellOf = (figures: Pricing.ResponseUsage, model: string, pricing: Pricing.PricingTable): ModelCell => {
  const rates = Pricing.ratesFor(pricing, model)
  return {
    messages: 1,
    input: figures.input,
    output: figures.output,
    cacheRead: figures.cacheRead,
    cacheWrite5m: figures.cacheWrite - figures.cacheWrite1h,
    cacheWrite1h: figures.cacheWrite1h,
    webSearchRequests: figures.webSearchRequests,
    costUSD: rates === undefined ? 0 : Pricing.costOfResponse(rates, figures)
  }
}

// Consecutive entries often share their timestamp, and an API message's fragments its key: the
// last of each is remembered.
let timestampSeen = ""
let msSeen: number | undefined
let keySeen: readonly [string, string, string] = ["", "", ""]

const timestampOf = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  if (text === timestampSeen) return msSeen
  const ms = parseTimestamp(text)
  timestampSeen = text
  msSeen = Number.isFinite(ms) ? ms : undefined
  return msSeen
}

// `Fragments.messageKey` of an assistant entry
const keyOf = (facts: EntryFacts): string | undefined => {
  const id = facts.messageId
  if (id === undefined) return undefined
  const request = facts.requestId
  if (id !== keySeen[0] || request !== keySeen[1]) keySeen = [id, request, JSON.stringify([id, request])]
  return keySeen[2]
}

/**
 * Parses a timestamp to epoch milliseconds (`NaN` when it is not one).
 *
 * @since 0.1.0
 * @category folding
 */
export { parseTimestamp } from "./internal/timestamps.js"

/**
 * The model key usage is counted under: the message's model, `<unknown>` when it has none;
 * `undefined` for Claude Code's `<synthetic>` messages (made locally, no usage).
 *
 * @since 0.1.0
 * @category models
 */
export const modelKey: (model: unknown) => string | undefined = modelKeyOf

// What a message counts after a fragment with this model key and usage.
const figuresOf = (
  model: string | undefined,
  usage: Pricing.ResponseUsage | undefined,
  previous: MessageFigures | undefined,
  pricing: Pricing.PricingTable
): MessageFigures => ({
  model,
  cell: usage !== undefined && model !== undefined ? cellOf(usage, model, pricing) : previous?.cell
})

/**
 * What an API message counts after one more of its fragments (`message`), given what it counted
 * before (`previous`, `undefined` for its first): the fragment's model key, and its usage priced
 * when it has one, else the figures before. The message counts them only when both are defined.
 * The one counting rule of `acx stats`, the sessions list and the session page's turns.
 *
 * @since 0.1.0
 * @category folding
 */
export const messageFigures = (
  message: unknown,
  previous: MessageFigures | undefined,
  pricing: Pricing.PricingTable
): MessageFigures => {
  const usage = get(message, "usage")
  return figuresOf(
    modelKey(get(message, "model")),
    isObj(usage) ? Pricing.responseUsage(usage) : undefined,
    previous,
    pricing
  )
}

/**
 * The model key of usage without a model.
 *
 * @since 0.1.0
 * @category constants
 */
export const UNKNOWN_MODEL: typeof UNKNOWN = UNKNOWN

/**
 * What the fold reads of one entry ({@link factsOf}, {@link foldFacts}): a reader that can tell
 * these facts of a line without parsing all of it folds the line exactly as a parse would.
 *
 * @since 0.1.0
 * @category folding
 */
export type { EntryFacts } from "./internal/entryFacts.js"

/**
 * The facts of a parsed entry (an object): {@link foldEntry} is {@link foldFacts} of them.
 *
 * @since 0.1.0
 * @category folding
 */
export { factsOf } from "./internal/entryFacts.js"

const countAssistant = (state: FoldState, facts: EntryFacts, day: string, ms: number | undefined, ctx: FoldContext) => {
  if (facts.toolNames.length > 0) {
    const cell = dayCell(state, day)
    for (const name of facts.toolNames) {
      if (Object.hasOwn(cell.toolCalls, name)) cell.toolCalls[name]!++
      else setOwn(cell.toolCalls, name, 1)
    }
  }
  const key = keyOf(facts)
  const previous = key === undefined ? undefined : state.recent.get(key)
  const figures = figuresOf(facts.model, facts.usage, previous, ctx.pricing)
  const counted: Counted = {
    day: previous?.day ?? day,
    ms: previous === undefined ? ms : previous.ms,
    model: figures.model,
    cell: figures.cell
  }
  if (previous === undefined) {
    dayCell(state, counted.day).assistant++
  } else if (previous.cell !== undefined && previous.model !== undefined) {
    addModelCell(modelCell(dayCell(state, previous.day), previous.model), previous.cell, -1)
    countHour(state, previous.ms, previous.model, previous.cell, -1)
    state.recent.delete(key!)
  }
  if (counted.cell !== undefined && counted.model !== undefined) {
    addModelCell(modelCell(dayCell(state, counted.day), counted.model), counted.cell)
    countHour(state, counted.ms, counted.model, counted.cell, 1)
  }
  if (key !== undefined) state.recent.set(key, counted)
}

/**
 * Folds the facts of one entry in (an object's: {@link factsOf}).
 *
 * @since 0.1.0
 * @category folding
 */
export const foldFacts = (state: FoldState, facts: EntryFacts, ctx: FoldContext): void => {
  const ms = facts.ms ?? timestampOf(facts.timestamp)
  const day = ms === undefined ? UNDATED : ctx.dayOf(ms)
  if (ms !== undefined) {
    const cell = dayCell(state, day)
    if (ms < cell.firstMs) cell.firstMs = ms
    if (ms > cell.lastMs) cell.lastMs = ms
    const previous = state.previousMs
    if (previous === undefined || ms > previous) {
      if (ctx.kind === "main" && previous !== undefined && ms - previous <= IDLE_MS) cell.activeMs += ms - previous
      state.previousMs = ms
    }
  }
  if (facts.agentId !== undefined) {
    if (!state.agents.includes(facts.agentId)) state.agents.push(facts.agentId)
  } else if (facts.sidechain) {
    state.anonymousSidechain = true
  }
  switch (facts.kind) {
    case "assistant":
      return countAssistant(state, facts, day, ms, ctx)
    case "user": {
      const cell = dayCell(state, day)
      if (facts.meta) cell.meta++
      else if (facts.toolResultOnly) cell.toolResults++
      else cell.user++
      return
    }
    case "system":
      if (facts.compactBoundary) dayCell(state, day).compactions++
      return
  }
}

/**
 * Folds one parsed transcript entry in. Non-objects count as malformed.
 *
 * @since 0.1.0
 * @category folding
 */
export const foldEntry = (state: FoldState, entry: unknown, ctx: FoldContext): void => {
  if (!isObj(entry)) {
    state.malformed++
    return
  }
  foldFacts(state, factsOf(entry), ctx)
}

/**
 * Folds one transcript line in: blank lines are skipped, a line that is not a JSON object counts
 * as malformed.
 *
 * @since 0.1.0
 * @category folding
 */
export const foldLine = (state: FoldState, line: string, ctx: FoldContext): void =>
  foldJson(state, line.length > LONG_LINE ? withoutLongStrings(line) : line, ctx)

/**
 * Folds one line already stripped of its long strings (see {@link withoutLongStrings}).
 *
 * @since 0.1.0
 * @category folding
 */
export const foldJson = (state: FoldState, json: string, ctx: FoldContext): void => {
  if (json.trim() === "") return
  // too deep for what comes after a parse: skipped like every reader skips it (see JsonDepth)
  if (exceedsDepth(json)) {
    state.malformed++
    return
  }
  let entry: unknown
  try {
    entry = JSON.parse(json)
  } catch {
    state.malformed++
    return
  }
  foldEntry(state, entry, ctx)
}

/**
 * Long lines' long strings skipped before parsing: {@link LONG_LINE}, {@link LONG_STRING},
 * {@link withoutLongStrings}.
 *
 * @since 0.1.0
 * @category folding
 */
export { LONG_LINE, LONG_STRING, withoutLongStrings } from "./internal/longStrings.js"

/**
 * The state as plain JSON, remembering only the last {@link RECENT_MESSAGES} messages.
 *
 * @since 0.1.0
 * @category serialisation
 */
export const serialise = (state: FoldState): unknown => {
  const recent = [...state.recent.entries()].slice(-RECENT_MESSAGES)
  return {
    days: state.days,
    hours: state.hours,
    agents: state.agents,
    anonymousSidechain: state.anonymousSidechain,
    previousMs: state.previousMs ?? null,
    malformed: state.malformed,
    recent: recent.map((
      [key, counted]
    ) => [key, counted.day, counted.model ?? null, counted.cell ?? null, counted.ms ?? null])
  }
}

/**
 * A state from {@link serialise}'s JSON (after a JSON round trip, where ±Infinity became
 * `null`); `undefined` when it is not one, so a damaged cache is refolded, never trusted.
 *
 * @since 0.1.0
 * @category serialisation
 */
export const restore = (json: unknown): FoldState | undefined => restoreState(json)
