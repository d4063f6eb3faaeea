/** Plain-text formatting shared by the commands: tables, sizes, durations, counts. */
import * as Money from "@acx/convert/Money"
import * as TerminalText from "@acx/convert/TerminalText"

/** A column: its heading and whether its cells are right-aligned (numbers). */
export interface Column {
  readonly title: string
  readonly align?: "left" | "right"
}

// About how many characters a piece of streamed output holds (a write each).
const CHUNK = 64 * 1024

/**
 * Pads every column to its widest cell; the last left-aligned column is not padded. A cell's
 * control characters (a title's terminal escapes) are shown as `?` (`TerminalText.line`).
 */
export const table = (columns: ReadonlyArray<Column>, cells: ReadonlyArray<ReadonlyArray<string>>): string =>
  [...tableChunks(columns, cells)].join("")

/**
 * {@link table} in pieces of about 64 KiB, each ending where a line does (joined, they are the
 * table): output written as it is rendered, never held whole.
 */
export function* tableChunks(
  columns: ReadonlyArray<Column>,
  cells: ReadonlyArray<ReadonlyArray<string>>
): Generator<string, void, undefined> {
  const rows = cells.map((row) => row.map(TerminalText.line))
  const widths = columns.map((column) => column.title.length)
  for (const row of rows) {
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, (row[i] ?? "").length)
  }
  const render = (cells: ReadonlyArray<string>) => tableLine(columns, widths, cells)
  let chunk = render(columns.map((column) => column.title))
  for (const row of rows) {
    chunk += `\n${render(row)}`
    if (chunk.length >= CHUNK) {
      yield chunk
      chunk = ""
    }
  }
  yield chunk
}

/**
 * One line of a table whose column widths are given (a cell wider than its column pushes the rest
 * of the line): what {@link table} prints for a row, and what a table printed row by row on a
 * terminal prints with fixed widths. The cells are printable already.
 */
export const tableLine = (
  columns: ReadonlyArray<Column>,
  widths: ReadonlyArray<number>,
  cells: ReadonlyArray<string>
): string => {
  const last = columns.length - 1
  let line = ""
  for (let i = 0; i <= last; i++) {
    const cell = cells[i] ?? ""
    const width = widths[i] ?? 0
    const text = columns[i]!.align === "right" ? cell.padStart(width) : i === last ? cell : cell.padEnd(width)
    line = i === 0 ? text : `${line}  ${text}`
  }
  return line.trimEnd()
}

export const bytes = (size: number): string => {
  if (size < 1024) return `${size} B`
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`
  return `${(size / 1024 / 1024).toFixed(1)} MB`
}

/** A count for people: exact below 10 000, then k, M, B, T with three significant digits or so ("2.95B"). */
export const count = (value: number): string => {
  if (!Number.isFinite(value)) return "-"
  const sign = value < 0 ? "-" : ""
  const size = Math.abs(value)
  if (size < 10_000) return `${sign}${Math.round(size)}`
  const units: ReadonlyArray<readonly [number, string, number]> = [[1e3, "k", 1], [1e6, "M", 2], [1e9, "B", 2], [
    1e12,
    "T",
    2
  ]]
  for (const [i, [divisor, unit, digits]] of units.entries()) {
    const scaled = (size / divisor).toFixed(digits)
    // 999 950 rounds to "1000.0k": that is "1.00M"
    if (Number(scaled) < 1000 || i === units.length - 1) return `${sign}${scaled}${unit}`
  }
  return `${sign}${size}`
}

/** US dollars (`Money.usd`, the page's rule too): "$1,234.56", "<$0.01"; "unpriced" for `null`. */
export const usd = (value: number | null): string => value === null ? "unpriced" : Money.usd(value)

/** A duration: "42s", "7m 05s", "3h 20m", "2d 04h". */
export const duration = (millis: number): string => {
  if (!Number.isFinite(millis) || millis <= 0) return "-"
  const seconds = Math.round(millis / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, "0")}m`
  return `${Math.floor(hours / 24)}d ${String(hours % 24).padStart(2, "0")}h`
}

const pad2 = (value: number) => String(value).padStart(2, "0")

/** `YYYY-MM-DD HH:MM` in local time; `-` for 0. */
export const date = (epochMillis: number): string => {
  if (epochMillis <= 0) return "-"
  const d = new Date(epochMillis)
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${
    pad2(d.getMinutes())
  }`
}

/** One line, at most `max` characters. */
export const clip = (text: string, max: number): string => {
  // a long text (a pasted prompt): when its head alone gives more than `max` characters, the rest
  // is cut off whatever it holds, and is not read
  if (text.length > 4 * max) {
    const head = text.slice(0, 4 * max).replace(/\s+/g, " ").trimStart()
    if (head.length >= max + 2) return `${head.slice(0, max - 1)}…`
  }
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Pretty JSON for `--json` output. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2)

/**
 * {@link json} of an array of JSON values (what `JSON.stringify` writes of them: no `undefined`,
 * function or `toJSON` among them) in pieces of about 64 KiB: joined, they are its text; output
 * written as it is rendered, never held whole.
 */
export function* jsonChunks(items: ReadonlyArray<unknown>): Generator<string, void, undefined> {
  if (items.length === 0) {
    yield "[]"
    return
  }
  let chunk = "["
  for (let i = 0; i < items.length; i++) {
    // an item's own lines, one level deeper (a JSON text holds no raw newline but between its tokens)
    chunk += `${i === 0 ? "\n  " : ",\n  "}${JSON.stringify(items[i], null, 2).replaceAll("\n", "\n  ")}`
    if (chunk.length >= CHUNK) {
      yield chunk
      chunk = ""
    }
  }
  yield `${chunk}\n]`
}
