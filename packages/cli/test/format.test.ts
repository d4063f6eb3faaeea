/**
 * `format.usd` (`Money.usd`, the page's rule too) formats with one cached `Intl.NumberFormat`:
 * the same text as `toLocaleString` with the same options, which it replaced (each call built a
 * formatter), for any amount; the sign before the dollar sign.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as format from "../src/internal/format.js"

describe("format.usd", () => {
  it("is toLocaleString's text for any amount", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.double({ min: 0, max: 1e6 })), (value) => {
        const expected = !Number.isFinite(value)
          ? "-"
          : value > 0 && value < 0.005
          ? "<$0.01"
          : `${value <= -0.005 ? "-" : ""}$${
            Math.abs(value).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
          }`
        expect(format.usd(value)).toBe(expected)
      }),
      { numRuns: 2000 }
    )
    expect(format.usd(null)).toBe("unpriced")
    expect(format.usd(1234.5)).toBe("$1,234.50")
  })
})

// `format.table` as it was written before it streamed: the reference its pieces must join to.
const tableAsBefore = (
  columns: ReadonlyArray<format.Column>,
  cells: ReadonlyArray<ReadonlyArray<string>>
): string => {
  const rows = cells.map((row) => row.map((cell) => cell.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")))
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

const CHUNK = 64 * 1024

describe("format.tableChunks, format.jsonChunks", () => {
  const cell = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", " ", "\u001b]52;c;x\u0007", "é😀", "\t\n"))
  const columns = fc.array(
    fc.record({ title: fc.string({ maxLength: 8 }), align: fc.constantFrom("left" as const, "right" as const) }),
    { minLength: 1, maxLength: 5 }
  )

  it("property: the pieces of a table join to the table as it was rendered whole", () => {
    fc.assert(
      fc.property(columns, fc.array(fc.array(cell, { maxLength: 6 }), { maxLength: 30 }), (cols, cells) => {
        expect([...format.tableChunks(cols, cells)].join("")).toBe(tableAsBefore(cols, cells))
        expect(format.table(cols, cells)).toBe(tableAsBefore(cols, cells))
      }),
      { numRuns: 1000 }
    )
  })

  it("property: the pieces of a JSON array join to JSON.stringify(value, null, 2)", () => {
    const item = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 6 })
    )
    fc.assert(
      fc.property(fc.array(item, { maxLength: 12 }), (items) => {
        expect([...format.jsonChunks(items)].join("")).toBe(JSON.stringify(items, null, 2))
      }),
      { numRuns: 1000 }
    )
    expect([...format.jsonChunks([])]).toEqual(["[]"])
  })

  it("a long listing comes in pieces of about 64 KiB, each ending a row", () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ sessionId: `s-${i}`, title: "x".repeat(i % 97) }))
    const json = [...format.jsonChunks(rows)]
    expect(json.join("")).toBe(JSON.stringify(rows, null, 2))
    const cells = rows.map((row) => [row.sessionId, row.title])
    const table = [...format.tableChunks([{ title: "SESSION" }, { title: "TITLE" }], cells)]
    expect(table.join("")).toBe(tableAsBefore([{ title: "SESSION" }, { title: "TITLE" }], cells))
    for (const pieces of [json, table]) {
      expect(pieces.length).toBeGreaterThan(2)
      for (const piece of pieces.slice(0, -1)) {
        expect(piece.length).toBeGreaterThanOrEqual(CHUNK)
        expect(piece.length).toBeLessThan(CHUNK + 400)
      }
    }
    // a JSON piece ends after a row's closing brace, a table piece after a row's last cell
    for (const piece of json.slice(0, -1)) expect(piece.endsWith("}")).toBe(true)
    for (const piece of table.slice(0, -1)) expect(piece.endsWith("\n")).toBe(false)
  })
})

describe("format.clip", () => {
  it("property: a long text is clipped as the whole text collapsed and trimmed is", () => {
    const clipAsBefore = (text: string, max: number) => {
      const line = text.replace(/\s+/g, " ").trim()
      return line.length > max ? `${line.slice(0, max - 1)}…` : line
    }
    const piece = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(" ", "  ", "\n\t", " ".repeat(300), "\u00a0", "\u2028", "\ufeff", "😀", "x".repeat(90))
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 1, max: 70 }), (pieces, max) => {
        const text = pieces.join("")
        expect(format.clip(text, max)).toBe(clipAsBefore(text, max))
      }),
      { numRuns: 3000 }
    )
  })
})
