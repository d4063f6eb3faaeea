/** Plain-text formatting shared by the commands: tables, sizes, durations, counts. */
import * as Money from "@acx/convert/Money"
import * as TerminalText from "@acx/convert/TerminalText"

/** A column: its heading and whether its cells are right-aligned (numbers). */
export interface Column {
  readonly title: string
  readonly align?: "left" | "right"
}

/**
 * Pads every column to its widest cell; the last left-aligned column is not padded. A cell's
 * control characters (a title's terminal escapes) are shown as `?` (`TerminalText.line`).
 */
export const table = (columns: ReadonlyArray<Column>, cells: ReadonlyArray<ReadonlyArray<string>>): string => {
  const rows = cells.map((row) => row.map(TerminalText.line))
  const widths = columns.map((column, i) => Math.max(column.title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const render = (cells: ReadonlyArray<string>) => tableLine(columns, widths, cells)
  return [render(columns.map((column) => column.title)), ...rows.map(render)].join("\n")
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
): string =>
  columns.map((column, i) => {
    const cell = cells[i] ?? ""
    const width = widths[i] ?? 0
    if (column.align === "right") return cell.padStart(width)
    return i === columns.length - 1 ? cell : cell.padEnd(width)
  }).join("  ").trimEnd()

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
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Pretty JSON for `--json` output. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2)
