/**
 * 5-hour billing windows ("blocks") of folded transcripts, the one rule `acx stats --by block`,
 * the statusline and the web page's "now" panel share.
 *
 * The rule (ccusage's `blocks`, on half-open intervals):
 * - a window starts at the UTC hour of the first message not yet in a window, and lasts 5 hours:
 *   `[start, start + 5 h)`;
 * - a message at or after its window's end opens the next window (at its own hour).
 *
 * ccusage also opens a window after a gap of 5 hours since the last message; that never decides
 * anything on its own (the last message is at or after the window's start, so such a message is
 * past the window's end too). ccusage compares with `>` (a message exactly 5 h after the start
 * stays in the old window); acx uses `≥` (windows are half-open, as the quota Claude Code reports
 * resets at `resets_at`). A gap is the time between a window's end and the next window's start
 * when there is any (ccusage's gap starts 5 h after the last message).
 *
 * A message counts at the time of its first fragment, with its last fragment's usage (the
 * counting rule of {@link StatsFold}); folds keep them by UTC hour ({@link StatsFold.HourCell}),
 * which is exact: a window starts on an hour, so no hour is split between two windows.
 *
 * Pure and total, and without Effect: the statusline's entry loads it.
 *
 * @since 0.3.0
 */
import { addModelCell, emptyModelCell, HOUR_MS, type HourCell, type ModelCell } from "./StatsFold.js"

/**
 * A window's length: 5 hours.
 *
 * @since 0.3.0
 * @category constants
 */
export const WINDOW_MS = 5 * HOUR_MS

/**
 * One window: its bounds, its first and last message, and its figures by model and in all.
 *
 * @since 0.3.0
 * @category models
 */
export interface Block {
  readonly _tag: "Block"
  /** Epoch ms, on a UTC hour. */
  readonly startMs: number
  /** `startMs` + {@link WINDOW_MS} (exclusive). */
  readonly endMs: number
  readonly firstMs: number
  readonly lastMs: number
  readonly models: { readonly [model: string]: ModelCell }
  readonly total: ModelCell
}

/**
 * Time no window covers, between one window's end and the next one's start.
 *
 * @since 0.3.0
 * @category models
 */
export interface Gap {
  readonly _tag: "Gap"
  readonly startMs: number
  readonly endMs: number
}

/**
 * The hour cells of many folds (files), summed by hour.
 *
 * @since 0.3.0
 * @category combinators
 */
export const mergeHours = (
  folds: Iterable<{ readonly hours: { readonly [hourMs: string]: HourCell } }>
): Map<number, HourCell> => {
  const out = new Map<number, HourCell>()
  for (const fold of folds) {
    for (const [key, cell] of Object.entries(fold.hours)) {
      const hour = Number(key)
      if (!Number.isFinite(hour)) continue
      let target = out.get(hour)
      if (target === undefined) {
        out.set(hour, target = { firstMs: cell.firstMs, lastMs: cell.lastMs, models: {} })
      }
      if (cell.firstMs < target.firstMs) target.firstMs = cell.firstMs
      if (cell.lastMs > target.lastMs) target.lastMs = cell.lastMs
      for (const [model, figures] of Object.entries(cell.models)) {
        let sum = Object.hasOwn(target.models, model) ? target.models[model] : undefined
        if (sum === undefined) {
          sum = emptyModelCell()
          Object.defineProperty(target.models, model, { value: sum, enumerable: true, writable: true })
        }
        addModelCell(sum, figures)
      }
    }
  }
  return out
}

const messagesIn = (cell: HourCell): number => {
  let n = 0
  for (const figures of Object.values(cell.models)) n += figures.messages
  return n
}

interface Open {
  startMs: number
  firstMs: number
  lastMs: number
  models: Map<string, ModelCell>
}

const close = (open: Open): Block => {
  const total = emptyModelCell()
  const models: { [model: string]: ModelCell } = {}
  for (const model of [...open.models.keys()].sort()) {
    const cell = open.models.get(model)!
    addModelCell(total, cell)
    Object.defineProperty(models, model, { value: cell, enumerable: true })
  }
  return {
    _tag: "Block",
    startMs: open.startMs,
    endMs: open.startMs + WINDOW_MS,
    firstMs: open.firstMs,
    lastMs: open.lastMs,
    models,
    total
  }
}

/**
 * The windows of the messages in `hours` (see {@link mergeHours}), oldest first. Hours without a
 * message (or with times that are no epoch ms) are left out.
 *
 * @since 0.3.0
 * @category windows
 */
export const blocksOf = (hours: ReadonlyMap<number, HourCell>): ReadonlyArray<Block> => {
  const out: Array<Block> = []
  let open: Open | undefined
  for (const hour of [...hours.keys()].sort((a, b) => a - b)) {
    const cell = hours.get(hour)!
    if (messagesIn(cell) <= 0 || !Number.isFinite(cell.firstMs) || !Number.isFinite(cell.lastMs)) continue
    if (open === undefined || hour >= open.startMs + WINDOW_MS) {
      if (open !== undefined) out.push(close(open))
      open = { startMs: hour, firstMs: cell.firstMs, lastMs: cell.lastMs, models: new Map() }
    }
    if (cell.firstMs < open.firstMs) open.firstMs = cell.firstMs
    if (cell.lastMs > open.lastMs) open.lastMs = cell.lastMs
    for (const [model, figures] of Object.entries(cell.models)) {
      let sum = open.models.get(model)
      if (sum === undefined) open.models.set(model, sum = emptyModelCell())
      addModelCell(sum, figures)
    }
  }
  if (open !== undefined) out.push(close(open))
  return out
}

/**
 * The windows with the gaps between them, oldest first.
 *
 * @since 0.3.0
 * @category windows
 */
export const withGaps = (blocks: ReadonlyArray<Block>): ReadonlyArray<Block | Gap> => {
  const out: Array<Block | Gap> = []
  let previous: Block | undefined
  for (const block of blocks) {
    if (previous !== undefined && block.startMs > previous.endMs) {
      out.push({ _tag: "Gap", startMs: previous.endMs, endMs: block.startMs })
    }
    out.push(block)
    previous = block
  }
  return out
}

/**
 * Whether a window is the one `nowMs` falls in.
 *
 * @since 0.3.0
 * @category windows
 */
export const isActive = (block: Block, nowMs: number): boolean => nowMs >= block.startMs && nowMs < block.endMs

/**
 * The window `nowMs` falls in, of the folds' messages; `undefined` when none is open (no message
 * in the last 5 hours, or none since the last window ended). For the statusline of API-key users:
 * the current window's cost, and with {@link burnRate} its burn rate.
 *
 * @since 0.3.0
 * @category windows
 */
export const currentBlock = (
  folds: Iterable<{ readonly hours: { readonly [hourMs: string]: HourCell } }>,
  nowMs: number
): Block | undefined => {
  const last = blocksOf(mergeHours(folds)).at(-1)
  return last !== undefined && isActive(last, nowMs) ? last : undefined
}

/**
 * Tokens of every kind: input, output, cache reads and writes.
 *
 * @since 0.3.0
 * @category windows
 */
export const tokensOf = (cell: ModelCell): number =>
  cell.input + cell.output + cell.cacheRead + cell.cacheWrite5m + cell.cacheWrite1h

/**
 * A window's burn rate: dollars and tokens per hour.
 *
 * @since 0.3.0
 * @category models
 */
export interface Burn {
  readonly costPerHour: number
  readonly tokensPerHour: number
}

/**
 * The least time a window's messages must span (first to last) before it has a burn rate and a
 * projection: 10 minutes. A shorter burst (one prompt, a few seconds) would extrapolate a few
 * cents into hundreds of dollars an hour.
 *
 * @since 0.5.0
 * @category constants
 */
export const MIN_RATE_SPAN_MS = 10 * 60_000

/**
 * The burn rate over the window's messages (from its first to its last, as ccusage); `undefined`
 * until they span {@link MIN_RATE_SPAN_MS}.
 *
 * @since 0.3.0
 * @category windows
 */
export const burnRate = (block: Block): Burn | undefined => {
  const spanMs = block.lastMs - block.firstMs
  if (!(spanMs >= MIN_RATE_SPAN_MS) || !Number.isFinite(spanMs)) return undefined
  const hours = spanMs / HOUR_MS
  return { costPerHour: block.total.costUSD / hours, tokensPerHour: tokensOf(block.total) / hours }
}

/**
 * What an active window comes to at its end at its current burn rate, and the time left.
 *
 * @since 0.3.0
 * @category models
 */
export interface Projection {
  readonly costUSD: number
  readonly tokens: number
  /** Until the window's end (its reset). */
  readonly remainingMs: number
}

/**
 * The projection of a window at `nowMs`: what it has cost, and its burn rate over the time left;
 * `undefined` unless it is active and has a burn rate ({@link MIN_RATE_SPAN_MS} of activity).
 *
 * @since 0.3.0
 * @category windows
 */
export const projection = (block: Block, nowMs: number): Projection | undefined => {
  const burn = burnRate(block)
  if (burn === undefined || !isActive(block, nowMs)) return undefined
  const remainingMs = block.endMs - nowMs
  const hours = remainingMs / HOUR_MS
  return {
    costUSD: block.total.costUSD + burn.costPerHour * hours,
    tokens: tokensOf(block.total) + burn.tokensPerHour * hours,
    remainingMs
  }
}
