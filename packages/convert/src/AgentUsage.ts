/**
 * Usage of an agent conversation, per turn and in total, folded from its {@link AgentEvent}s:
 * tokens by model and US dollars, counted the way the SDK reports them.
 *
 * - **Tokens**: a turn's result reports the session's tokens by model (`modelUsage`, side calls
 *   such as titles included), cumulative like its dollars: read the same way, a turn's tokens are
 *   the rise. A result without them (an older CLI) falls back on the responses' own reports: each
 *   response reports its usage on every assistant message line it spans, and within a turn the
 *   last report of a message id counts, once (those lines may carry a preliminary output count).
 * - **Dollars**: a result's `total_cost_usd` is cumulative for the session's process — a second
 *   turn of the same `query()` reports the running total, and a resumed session starts from the
 *   total its transcript saved — so it is read, never summed. A turn's cost is the rise of the
 *   conversation's total. A total lower than the last one means a process that did not carry the
 *   saved total: what was spent before is kept, and the new total added on top.
 *
 * Pure and total: any events in, a usage out (non-finite or negative figures count as 0, figures
 * past 2^53 are capped).
 *
 * @since 0.1.0
 */
import type { AgentEvent } from "./AgentEvent.js"
import { addTotals, emptyTotals, type TokenTotals } from "./Usage.js"

/**
 * Tokens by model and what they cost.
 *
 * @since 0.1.0
 * @category models
 */
export interface UsageFigures {
  readonly tokens: TokenTotals
  readonly tokensByModel: { readonly [model: string]: TokenTotals }
  readonly costUsd: number
}

/**
 * The conversation's usage: totals, the last completed turn, and the turn in progress.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConversationUsage extends UsageFigures {
  readonly turns: number
  readonly lastTurn: UsageFigures | undefined
  /** The responses of the turn in progress, by message id (the last report of each). */
  readonly pending: ReadonlyArray<{ readonly key: string; readonly model: string; readonly tokens: TokenTotals }>
  /** The session process's last cumulative `total_cost_usd`, and what was spent before it. */
  readonly processTotalUsd: number
  readonly earlierUsd: number
  /** The process's last cumulative tokens by model, and the tokens counted before it. */
  readonly processByModel: { readonly [model: string]: TokenTotals }
  readonly earlierByModel: { readonly [model: string]: TokenTotals }
}

/**
 * No usage yet.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: ConversationUsage = {
  tokens: emptyTotals,
  tokensByModel: {},
  costUsd: 0,
  turns: 0,
  lastTurn: undefined,
  pending: [],
  processTotalUsd: 0,
  earlierUsd: 0,
  processByModel: {},
  earlierByModel: {}
}

const UNKNOWN_MODEL = "unknown"

// A figure as counted: non-finite or negative is 0; past 2^53 it is capped (no real figure is
// that large, and sums of capped figures stay finite).
const figure = (value: number): number =>
  Number.isFinite(value) && value > 0 ? Math.min(value, Number.MAX_SAFE_INTEGER) : 0

const clean = (tokens: TokenTotals): TokenTotals => ({
  input: figure(tokens.input),
  output: figure(tokens.output),
  cacheRead: figure(tokens.cacheRead),
  cacheWrite: figure(tokens.cacheWrite)
})

// Maps, then own properties: a model named "toString" or "__proto__" is a model like any other.
const sumByModel = (
  entries: Iterable<readonly [model: string, tokens: TokenTotals]>
): { readonly [model: string]: TokenTotals } => {
  const sums = new Map<string, TokenTotals>()
  for (const [model, tokens] of entries) sums.set(model, addTotals(sums.get(model) ?? emptyTotals, tokens))
  return Object.fromEntries(sums)
}

const byModel = (
  entries: ReadonlyArray<{ readonly model: string; readonly tokens: TokenTotals }>
): { readonly [model: string]: TokenTotals } => sumByModel(entries.map(({ model, tokens }) => [model, tokens] as const))

const mergeByModel = (
  a: { readonly [model: string]: TokenTotals },
  b: { readonly [model: string]: TokenTotals }
): { readonly [model: string]: TokenTotals } => sumByModel([...Object.entries(a), ...Object.entries(b)])

/**
 * The usage after one more event (only `Usage` and `TurnComplete` change it).
 *
 * @since 0.1.0
 * @category combinators
 */
export const step = (usage: ConversationUsage, event: AgentEvent): ConversationUsage => {
  if (event._tag === "Usage") {
    // a report without a message id is its own response
    const key = event.messageId ?? `#${usage.pending.length}`
    const entry = { key, model: event.model ?? UNKNOWN_MODEL, tokens: clean(event.tokens) }
    const rest = usage.pending.filter((pending) => pending.key !== key)
    return { ...usage, pending: [...rest, entry] }
  }
  if (event._tag !== "TurnComplete") return usage
  const total = figure(event.totalCostUsd)
  // a process that did not carry the saved total: keep what was spent, start a new base
  const earlierUsd = total < usage.processTotalUsd ? usage.earlierUsd + usage.processTotalUsd : usage.earlierUsd
  const costUsd = earlierUsd + total
  const cumulative = cleanByModel(event.tokensByModel)
  const counted = cumulative.size > 0
    ? fromCumulative(usage, cumulative)
    : { ...usage, tokensByModel: mergeByModel(usage.tokensByModel, byModel(usage.pending)) }
  const turnByModel = difference(counted.tokensByModel, usage.tokensByModel)
  const turnTokens = Object.values(turnByModel).reduce(addTotals, emptyTotals)
  const lastTurn: UsageFigures = {
    tokens: turnTokens,
    tokensByModel: turnByModel,
    costUsd: Math.max(0, costUsd - usage.costUsd)
  }
  return {
    ...counted,
    tokens: addTotals(usage.tokens, turnTokens),
    costUsd,
    turns: usage.turns + 1,
    lastTurn,
    pending: [],
    processTotalUsd: total,
    earlierUsd
  }
}

const cleanByModel = (byModel: { readonly [model: string]: TokenTotals }): Map<string, TokenTotals> =>
  new Map(Object.entries(byModel).map(([model, tokens]) => [model, clean(tokens)] as const))

const below = (a: TokenTotals, b: TokenTotals): boolean =>
  a.input < b.input || a.output < b.output || a.cacheRead < b.cacheRead || a.cacheWrite < b.cacheWrite

/** The conversation's tokens by model from a process's cumulative reading. */
const fromCumulative = (
  usage: ConversationUsage,
  cumulative: Map<string, TokenTotals>
): Pick<ConversationUsage, "tokensByModel" | "processByModel" | "earlierByModel"> => {
  // a reading below the last one (a model missing, a figure lower) is a process that did not
  // carry the saved figures: what was counted before is kept, the new reading added on top
  const reset = Object.entries(usage.processByModel).some(([model, last]) => {
    const now = cumulative.get(model)
    return now === undefined || below(now, last)
  })
  // the first reading after turns counted from responses alone starts a new base too
  const earlierByModel = Object.keys(usage.processByModel).length === 0
    ? usage.tokensByModel
    : reset
    ? mergeByModel(usage.earlierByModel, usage.processByModel)
    : usage.earlierByModel
  const processByModel = Object.fromEntries(cumulative)
  return { tokensByModel: mergeByModel(earlierByModel, processByModel), processByModel, earlierByModel }
}

/** `after - before` per model, never negative, models without a rise left out. */
const difference = (
  after: { readonly [model: string]: TokenTotals },
  before: { readonly [model: string]: TokenTotals }
): { readonly [model: string]: TokenTotals } => {
  const rises = new Map<string, TokenTotals>()
  for (const [model, now] of Object.entries(after)) {
    const was = Object.hasOwn(before, model) ? before[model]! : emptyTotals
    const rise = {
      input: Math.max(0, now.input - was.input),
      output: Math.max(0, now.output - was.output),
      cacheRead: Math.max(0, now.cacheRead - was.cacheRead),
      cacheWrite: Math.max(0, now.cacheWrite - was.cacheWrite)
    }
    if (rise.input + rise.output + rise.cacheRead + rise.cacheWrite > 0) rises.set(model, rise)
  }
  return Object.fromEntries(rises)
}

/**
 * The usage of a whole event sequence.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ofEvents = (events: Iterable<AgentEvent>, from: ConversationUsage = empty): ConversationUsage => {
  let usage = from
  for (const event of events) usage = step(usage, event)
  return usage
}
