/**
 * The quota readings file: every `rate_limits` reading Claude Code passed to a statusline
 * command, kept so the 5-hour and 7-day windows have a history. Claude Code sends, for
 * subscribers, `rate_limits: { five_hour, seven_day }`, each `{ used_percentage, resets_at }`
 * (`resets_at` in epoch seconds); the statusline runs several times a second, so a reading is
 * recorded only when it differs from the last one recorded for its window ({@link isNew}).
 *
 * The file is `$ACX_HOME/quota/readings.jsonl` ({@link DIRECTORY}/{@link FILE}), one JSON object
 * per line, exactly `{"at":<epoch ms observed>,"window":"five_hour"|"seven_day",
 * "usedPercentage":<number>,"resetsAt":<epoch s>}` ({@link encode}). The statusline appends; the
 * stats and the page read ({@link decodeLine}, {@link decodeText}).
 *
 * Pure and total, without imports: the statusline's entry loads it on its hot path.
 *
 * @since 0.3.0
 */

/**
 * A quota window Claude Code reports.
 *
 * @since 0.3.0
 * @category models
 */
export type Window = "five_hour" | "seven_day"

/**
 * Every window, in the order Claude Code sends them.
 *
 * @since 0.3.0
 * @category constants
 */
export const windows: ReadonlyArray<Window> = ["five_hour", "seven_day"]

/**
 * One recorded reading.
 *
 * @since 0.3.0
 * @category models
 */
export interface Reading {
  /** When it was observed, epoch milliseconds. */
  readonly at: number
  readonly window: Window
  /** The share of the window's quota used, in percent (may pass 100). */
  readonly usedPercentage: number
  /** When the window resets, epoch seconds (as Claude Code sends it). */
  readonly resetsAt: number
}

/**
 * The readings file's directory under `$ACX_HOME`.
 *
 * @since 0.3.0
 * @category constants
 */
export const DIRECTORY = "quota"

/**
 * The readings file's name in {@link DIRECTORY}.
 *
 * @since 0.3.0
 * @category constants
 */
export const FILE = "readings.jsonl"

/**
 * Lines longer than this are no reading (an encoded reading is under 120 characters): a
 * damaged or foreign file is not parsed whole, line by line.
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_LINE = 1024

type Plain = { readonly [key: string]: unknown }

const isObj = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value)

const field = (value: unknown, key: string): unknown =>
  isObj(value) && Object.hasOwn(value, key) ? value[key] : undefined

const isWindow = (value: unknown): value is Window => value === "five_hour" || value === "seven_day"

const isPercentage = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0

const isEpoch = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0

const reading = (at: number, window: Window, used: unknown, resets: unknown): Reading | undefined =>
  isEpoch(at) && isPercentage(used) && isEpoch(resets)
    ? { at, window, usedPercentage: used, resetsAt: resets }
    : undefined

/**
 * The readings of a statusline input (Claude Code's JSON, parsed), observed at `nowMs`: one per
 * window whose `used_percentage` is a number ≥ 0 and `resets_at` an epoch time in seconds.
 * Anything else (no `rate_limits`, an API-key user, a malformed window) gives no reading.
 *
 * @since 0.3.0
 * @category decoding
 */
export const fromStatusline = (input: unknown, nowMs: number): ReadonlyArray<Reading> => {
  const limits = field(input, "rate_limits")
  const out: Array<Reading> = []
  for (const window of windows) {
    const raw = field(limits, window)
    const next = reading(nowMs, window, field(raw, "used_percentage"), field(raw, "resets_at"))
    if (next !== undefined) out.push(next)
  }
  return out
}

/**
 * A reading as one line of the file (without the newline), its keys in the file's order.
 *
 * @since 0.3.0
 * @category encoding
 */
export const encode = (reading: Reading): string =>
  JSON.stringify({
    at: reading.at,
    window: reading.window,
    usedPercentage: reading.usedPercentage,
    resetsAt: reading.resetsAt
  })

/**
 * A line of the file as a reading; `undefined` for a blank, long, malformed or foreign line
 * (keys beyond the four are ignored, so a later writer may add some).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeLine = (line: string): Reading | undefined => {
  if (typeof line !== "string" || line.length > MAX_LINE) return undefined
  const text = line.trim()
  if (!text.startsWith("{")) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const window = field(value, "window")
  const at = field(value, "at")
  if (!isWindow(window) || !isEpoch(at)) return undefined
  return reading(at, window, field(value, "usedPercentage"), field(value, "resetsAt"))
}

/**
 * Every reading of the file's text, in file order; lines that are no reading are skipped.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeText = (text: string): ReadonlyArray<Reading> => {
  if (typeof text !== "string") return []
  const out: Array<Reading> = []
  for (const line of text.split("\n")) {
    const next = decodeLine(line)
    if (next !== undefined) out.push(next)
  }
  return out
}

/**
 * Whether `next` is to be recorded after `last`, the last reading recorded for its window: when
 * there is none, or the percentage or the reset time changed. The same figures seen again (the
 * statusline runs under every prompt) are not recorded twice.
 *
 * @since 0.3.0
 * @category recording
 */
export const isNew = (last: Reading | undefined, next: Reading): boolean =>
  last === undefined ||
  last.window !== next.window ||
  !Object.is(last.usedPercentage, next.usedPercentage) ||
  !Object.is(last.resetsAt, next.resetsAt)

/**
 * The latest reading of each window (the greatest `at`; the later line when two tie).
 *
 * @since 0.3.0
 * @category recording
 */
export const latest = (readings: ReadonlyArray<Reading>): { readonly [W in Window]?: Reading } => {
  const out: { [W in Window]?: Reading } = {}
  for (const next of readings) {
    const current = out[next.window]
    if (current === undefined || next.at >= current.at) out[next.window] = next
  }
  return out
}

/**
 * The readings of `next` to record after `readings` (see {@link isNew}), and the latest readings
 * once they are: what the statusline appends, given what the file holds.
 *
 * @since 0.3.0
 * @category recording
 */
export const toRecord = (
  readings: ReadonlyArray<Reading>,
  next: ReadonlyArray<Reading>
): ReadonlyArray<Reading> => {
  const last: { [W in Window]?: Reading } = { ...latest(readings) }
  const out: Array<Reading> = []
  for (const reading of next) {
    if (!isNew(last[reading.window], reading)) continue
    out.push(reading)
    last[reading.window] = reading
  }
  return out
}

/**
 * Which readings a summary covers: one window's, observed in `[startMs, endMs)`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Range {
  readonly window: Window
  readonly startMs: number
  readonly endMs: number
}

/**
 * What the readings of a range say: the first and last observed (by `at`, file order on ties)
 * and the peak percentage.
 *
 * @since 0.3.0
 * @category models
 */
export interface Summary {
  readonly window: Window
  readonly count: number
  readonly first: Reading
  readonly last: Reading
  readonly peakPercentage: number
}

/**
 * The summary of the readings in `range`; `undefined` when none falls in it.
 *
 * @since 0.3.0
 * @category summaries
 */
export const summarize = (readings: ReadonlyArray<Reading>, range: Range): Summary | undefined => {
  let first: Reading | undefined
  let last: Reading | undefined
  let peak = Number.NEGATIVE_INFINITY
  let count = 0
  for (const next of readings) {
    if (next.window !== range.window || !(next.at >= range.startMs && next.at < range.endMs)) continue
    count++
    if (first === undefined || next.at < first.at) first = next
    if (last === undefined || next.at >= last.at) last = next
    if (next.usedPercentage > peak) peak = next.usedPercentage
  }
  return first === undefined || last === undefined
    ? undefined
    : { window: range.window, count, first, last, peakPercentage: peak }
}
