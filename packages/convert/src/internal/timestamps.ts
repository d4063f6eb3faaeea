/**
 * Timestamps read fast: `StatsFold` reads one per transcript line. Module state (the last
 * minute parsed) is the point: consecutive entries share their minute.
 */

/**
 * `Date.parse(text)`, for every string; Claude Code's timestamps (`2026-10-31T20:53:02.783Z`)
 * without a full parse each: consecutive entries share their minute, which is parsed once, and
 * the seconds and milliseconds are added (a fold reads a timestamp per line).
 *
 * @since 0.4.0
 * @category folding
 */
export const parseTimestamp = (text: string): number => isoMs(text) ?? Date.parse(text)

const digit = (text: string, at: number): number => text.charCodeAt(at) - 48

// `YYYY-MM-DDTHH:MM:SS.mmmZ` with an hour below 24 (`T24:00:00.000Z` is midnight, `T24:00:01` none)
const ISO_SHAPE = /^\d{4}-\d\d-\d\dT(?:[01]\d|2[0-3]):\d\d:\d\d\.\d{3}Z$/

// The minute the last ISO timestamp was in (`YYYY-MM-DDTHH:MM`), and its epoch milliseconds.
let isoMinute = ""
let isoMinuteMs = 0

// `parseTimestamp` of a UTC timestamp with milliseconds; `undefined` for any other shape
const isoMs = (text: string): number | undefined => {
  if (text.length !== 24 || !ISO_SHAPE.test(text)) return undefined
  const seconds = digit(text, 17) * 10 + digit(text, 18)
  const millis = digit(text, 20) * 100 + digit(text, 21) * 10 + digit(text, 22)
  // second 60 and beyond are left to Date.parse
  if (seconds >= 60) return undefined
  const minute = text.slice(0, 16)
  if (minute !== isoMinute) {
    const ms = minuteMs(text)
    if (!Number.isFinite(ms)) return undefined
    isoMinute = minute
    isoMinuteMs = ms
  }
  return isoMinuteMs + seconds * 1000 + millis
}

// The epoch milliseconds of an ISO-shaped timestamp's minute: by arithmetic when every field is in
// the range Date.parse accepts (a day past its month's end rolls over in both), else Date.parse's
// answer (Date.UTC reads years 0 to 99 as 1900 to 1999; a listing reads thousands of minutes).
const minuteMs = (text: string): number => {
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3)
  const month = digit(text, 5) * 10 + digit(text, 6)
  const day = digit(text, 8) * 10 + digit(text, 9)
  const minute = digit(text, 14) * 10 + digit(text, 15)
  return year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && minute <= 59
    ? Date.UTC(year, month - 1, day, digit(text, 11) * 10 + digit(text, 12), minute)
    : Date.parse(`${text.slice(0, 16)}:00.000Z`)
}

/** The day key of entries without a usable timestamp. */
export const UNDATED = "undated"

/**
 * The local day (`YYYY-MM-DD`) of an epoch time, in the process's time zone; remembers the
 * last day's bounds, so consecutive entries of one day cost no date arithmetic.
 */
export const localDayOf = (): (ms: number) => string => {
  let start = Number.POSITIVE_INFINITY
  let end = Number.NEGATIVE_INFINITY
  let key = UNDATED
  return (ms) => {
    if (ms >= start && ms < end) return key
    const date = new Date(ms)
    if (Number.isNaN(date.getTime())) return UNDATED
    const y = date.getFullYear()
    const m = date.getMonth()
    const d = date.getDate()
    start = new Date(y, m, d).getTime()
    end = new Date(y, m, d + 1).getTime()
    key = `${String(y).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`
    return key
  }
}
