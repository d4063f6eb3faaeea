/** Plain-text formatting shared by the commands: tables, sizes, durations, counts. */

/** A column: its heading and whether its cells are right-aligned (numbers). */
export interface Column {
  readonly title: string
  readonly align?: "left" | "right"
}

/** Pads every column to its widest cell; the last left-aligned column is not padded. */
export const table = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = columns.map((column, i) => Math.max(column.title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const render = (cells: ReadonlyArray<string>) =>
    columns.map((column, i) => {
      const cell = cells[i] ?? ""
      const width = widths[i] ?? 0
      if (column.align === "right") return cell.padStart(width)
      return i === columns.length - 1 ? cell : cell.padEnd(width)
    }).join("  ").trimEnd()
  return [render(columns.map((column) => column.title)), ...rows.map(render)].join("\n")
}

export const bytes = (size: number): string => {
  if (size < 1024) return `${size} B`
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`
  return `${(size / 1024 / 1024).toFixed(1)} MB`
}

export const count = (value: number): string => {
  if (value < 10_000) return String(value)
  if (value < 1_000_000) return `${(value / 1000).toFixed(1)}k`
  return `${(value / 1_000_000).toFixed(2)}M`
}

export const duration = (millis: number): string => {
  if (!Number.isFinite(millis) || millis <= 0) return "-"
  const seconds = Math.round(millis / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`
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
