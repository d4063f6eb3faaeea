/**
 * `TextDiff`: a diff without `cut`, applied to the old text, gives the new one; its hunks hold
 * changes with at most 3 lines of context; a small change in a long text is a short diff; huge
 * inputs (5 MB on one line, 100 000 lines, nothing in common) stay bounded and say what was cut.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as TextDiff from "../src/TextDiff.js"

// Texts from few distinct lines, so the two sides share lines in every order.
const line = fc.constantFrom("a", "b", "c", "", "  d", "e;", "\u{1F41B}", "\ud800", "<script>")
const text = fc.array(line, { maxLength: 40 }).map((lines) => lines.join("\n"))

const shownLines = (diff: TextDiff.Diff) => diff.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)

describe("TextDiff", () => {
  it("applied to the old text gives the new one (no cut)", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = TextDiff.diff(before, after)
        expect(diff.cut).toBeUndefined()
        expect(TextDiff.apply(before, diff.hunks)).toBe(after)
      }),
      { numRuns: 500 }
    )
  })

  it("counts each hunk's lines in its header and keeps at most 3 lines of context at its ends", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        for (const hunk of TextDiff.diff(before, after).hunks) {
          expect(hunk.lines.filter((l) => l.op !== "+").length).toBe(hunk.oldLines)
          expect(hunk.lines.filter((l) => l.op !== "-").length).toBe(hunk.newLines)
          const changed = hunk.lines.map((l, i) => (l.op === " " ? -1 : i)).filter((i) => i >= 0)
          expect(changed.length).toBeGreaterThan(0)
          expect(changed[0]!).toBeLessThanOrEqual(TextDiff.CONTEXT)
          expect(hunk.lines.length - 1 - changed[changed.length - 1]!).toBeLessThanOrEqual(TextDiff.CONTEXT)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("is empty for equal texts and the shortest script for one changed line", () => {
    fc.assert(
      fc.property(text, (same) => {
        expect(TextDiff.diff(same, same)).toEqual({ hunks: [], cut: undefined })
      })
    )
    const before = Array.from({ length: 100 }, (_, i) => `line ${i}`)
    const after = before.map((l, i) => (i === 50 ? "changed" : l))
    const diff = TextDiff.diff(before.join("\n"), after.join("\n"))
    expect(diff.hunks).toHaveLength(1)
    expect(TextDiff.hunkHeader(diff.hunks[0]!)).toBe("@@ -48,7 +48,7 @@")
    expect(diff.hunks[0]!.lines.map((l) => l.op + l.text)).toEqual([
      " line 47",
      " line 48",
      " line 49",
      "-line 50",
      "+changed",
      " line 51",
      " line 52",
      " line 53"
    ])
  })

  it("writes an empty side's start as the line before, as unified diffs do", () => {
    const diff = TextDiff.diff("a\nb", "a\nx\nb")
    expect(diff.hunks.map(TextDiff.hunkHeader)).toEqual(["@@ -1,2 +1,3 @@"])
    expect(TextDiff.hunkHeader(TextDiff.diff("", "x").hunks[0]!)).toBe("@@ -1,1 +1,1 @@")
    const insertOnly = TextDiff.diff("a\nb\nc\nd\ne\nf\ng\nh", "a\nb\nc\nd\ne\nf\ng\nh\ni")
    expect(TextDiff.apply("a\nb\nc\nd\ne\nf\ng\nh", insertOnly.hunks)).toBe("a\nb\nc\nd\ne\nf\ng\nh\ni")
  })

  it("stays bounded on huge inputs and says what it cut", () => {
    // 5 MB on one line: one line each way, cut to MAX_LINE_CHARS
    const huge = "x".repeat(5_000_000)
    const one = TextDiff.diff(huge, "y")
    expect(shownLines(one)).toBe(2)
    expect(one.hunks[0]!.lines[0]!.text).toHaveLength(TextDiff.MAX_LINE_CHARS)
    expect(one.cut).toEqual({ uncompared: 0, hiddenLines: 0, longLines: 1 })
    expect(TextDiff.cutNote(one.cut)).toBe("diff cut: 1 lines over 500 characters cut")

    // 100 000 lines with nothing in common: only MAX_INPUT_LINES compared, MAX_SHOWN_LINES kept
    const many = Array.from({ length: 100_000 }, (_, i) => `old ${i}`).join("\n")
    const other = Array.from({ length: 100_000 }, (_, i) => `new ${i}`).join("\n")
    const big = TextDiff.diff(many, other)
    expect(shownLines(big)).toBe(TextDiff.MAX_SHOWN_LINES)
    expect(big.cut?.uncompared).toBe(2 * (100_000 - TextDiff.MAX_INPUT_LINES))
    expect(big.cut?.hiddenLines).toBe(2 * TextDiff.MAX_INPUT_LINES - TextDiff.MAX_SHOWN_LINES)
    expect(TextDiff.cutNote(big.cut)).toMatch(/^diff cut: 160000 lines past the first 20000 not compared/)
  })

  it("past the search's bound, the middle is deleted and inserted whole", () => {
    // about 700 changes: more than MAX_EDIT_DISTANCE
    const before = Array.from({ length: 240 }, (_, i) => `a${i}`)
    const after = Array.from({ length: 240 }, (_, i) => (i % 2 === 0 ? `a${i}` : `b${i}`))
    const diff = TextDiff.diff(
      [...before, ...after.map((l) => l + "!")].join("\n"),
      [...after, ...before.map((l) => l + "?")].join("\n")
    )
    // the common head as context, then the 479 old lines deleted, then the 479 new ones inserted
    const ops = diff.hunks[0]!.lines.map((l) => l.op).join("")
    expect(ops).toBe(" " + "-".repeat(479) + "+".repeat(TextDiff.MAX_SHOWN_LINES - 480))
    expect(diff.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 480, newStart: 1, newLines: 480 })
    expect(diff.cut).toEqual({ uncompared: 0, hiddenLines: 959 - TextDiff.MAX_SHOWN_LINES, longLines: 0 })
  })

  it("keeps CRLF line ends in the line text and tells them from LF ends", () => {
    const before = "one\r\ntwo\r\nthree\r\n"
    const after = "one\r\ntwo\nthree\r\n"
    const diff = TextDiff.diff(before, after)
    expect(diff.hunks.flatMap((hunk) => hunk.lines.map((l) => l.op + l.text))).toEqual([
      " one\r",
      "-two\r",
      "+two",
      " three\r",
      " "
    ])
    expect(TextDiff.apply(before, diff.hunks)).toBe(after)
    expect(TextDiff.diff("a\r\nb\r\n", "a\r\nb\r\n")).toEqual({ hunks: [], cut: undefined })
  })

  it("shows a missing or added final newline as a change of the last line", () => {
    const added = TextDiff.diff("a\nb", "a\nb\n")
    expect(added.hunks.map(TextDiff.hunkHeader)).toEqual(["@@ -1,2 +1,3 @@"])
    expect(added.hunks[0]!.lines.map((l) => l.op + l.text)).toEqual([" a", " b", "+"])
    const removed = TextDiff.diff("a\nb\n", "a\nb")
    expect(removed.hunks[0]!.lines.map((l) => l.op + l.text)).toEqual([" a", " b", "-"])
    expect(TextDiff.apply("a\nb\n", removed.hunks)).toBe("a\nb")
    const lastLine = TextDiff.diff("a\nb", "a\nc")
    expect(lastLine.hunks[0]!.lines.map((l) => l.op + l.text)).toEqual([" a", "-b", "+c"])
  })

  it("on a long text, gives up the search after fewer changes (SEARCH_BUDGET) and stays correct", () => {
    // 20 000 lines each side, every 50th changed: 800 changes, over the 50 the budget allows here
    const before = Array.from({ length: TextDiff.MAX_INPUT_LINES }, (_, i) => `line ${i}`)
    const after = before.map((l, i) => (i % 50 === 1 ? `${l} changed` : l))
    const diff = TextDiff.diff(before.join("\n"), after.join("\n"), Number.POSITIVE_INFINITY)
    // the changed middle (from the first change to the last) is one replacement
    expect(diff.hunks).toHaveLength(1)
    const ops = diff.hunks[0]!.lines.map((l) => l.op).join("")
    expect(ops.startsWith(" -")).toBe(true)
    expect(diff.cut?.hiddenLines).toBeGreaterThan(0)
    // a few changes in the same text are still the shortest script
    const few = before.map((l, i) => (i === 10 || i === 19_000 ? `${l} changed` : l))
    const short = TextDiff.diff(before.join("\n"), few.join("\n"))
    expect(short.cut).toBeUndefined()
    expect(short.hunks.map(TextDiff.hunkHeader)).toEqual(["@@ -8,7 +8,7 @@", "@@ -18998,7 +18998,7 @@"])
    expect(TextDiff.apply(before.join("\n"), short.hunks)).toBe(few.join("\n"))
  })

  it("never cuts a surrogate pair in half", () => {
    const long = "a".repeat(TextDiff.MAX_LINE_CHARS - 1) + "\u{1F41B}"
    const cut = TextDiff.diff(long, "").hunks[0]!.lines[0]!.text
    expect(cut).toBe("a".repeat(TextDiff.MAX_LINE_CHARS - 1))
  })

  it("rejects hunks that do not fit the text", () => {
    const diff = TextDiff.diff("a\nb\nc", "a\nx\nc")
    expect(TextDiff.apply("q\nr\ns", diff.hunks)).toBeUndefined()
    expect(TextDiff.apply("a", diff.hunks)).toBeUndefined()
  })
})
