/**
 * A line diff of two texts as unified-diff hunks, for showing what an edit changed: the
 * shortest edit script (jsdiff's `diffArrays`, Myers' search) on the lines between the common
 * head and tail, hunks with 3 lines of context. Its work and its output are bounded whatever the input: at most
 * {@link MAX_INPUT_LINES} lines of each side are compared, the search stops at
 * {@link MAX_EDIT_DISTANCE} changed lines, fewer on long texts ({@link SEARCH_BUDGET}; the
 * middle is then shown as one replacement, still a correct diff, only not the shortest), and at most {@link MAX_SHOWN_LINES} lines of
 * {@link MAX_LINE_CHARS} characters are kept. Whatever was left out is counted in `cut`; a diff
 * without `cut` applied to the old text ({@link apply}) gives the new one. Pure and total (the
 * decision: docs/design.md, "Edits as diffs").
 *
 * @since 0.1.0
 */
import { diffArrays } from "diff"

/**
 * At most this many lines of each side are compared (the rest is counted in `cut`).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_INPUT_LINES = 20_000

/**
 * The shortest-edit search gives up after this many changed lines: the changed middle is then
 * shown as deleted and inserted whole (a bounded search: its time grows with lines × changes).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_EDIT_DISTANCE = 500

/**
 * The search's work (lines × changes) stays under this many steps: on long texts it gives up
 * after fewer than {@link MAX_EDIT_DISTANCE} changes, so no input costs more than a few
 * milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const SEARCH_BUDGET = 2_000_000

/**
 * At most this many hunk lines are kept.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_SHOWN_LINES = 500

/**
 * A kept line longer than this many characters is cut.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LINE_CHARS = 500

/**
 * Lines of context around each change.
 *
 * @since 0.1.0
 * @category constants
 */
export const CONTEXT = 3

/**
 * One line of a hunk: kept (`" "`), deleted (`"-"`) or inserted (`"+"`).
 *
 * @since 0.1.0
 * @category models
 */
export interface DiffLine {
  readonly op: " " | "-" | "+"
  readonly text: string
}

/**
 * A hunk: where it starts in each text (1-based; for an empty side, the line before it, as
 * unified diffs write it) and how many lines of each it spans.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  readonly lines: ReadonlyArray<DiffLine>
}

/**
 * What a shown diff left out: lines of either text not compared (over {@link MAX_INPUT_LINES}),
 * hunk lines not kept (over {@link MAX_SHOWN_LINES}), kept lines cut (over
 * {@link MAX_LINE_CHARS}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Cut {
  readonly uncompared: number
  readonly hiddenLines: number
  readonly longLines: number
}

/**
 * A diff as shown: its hunks, and `cut` when anything was left out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Diff {
  readonly hunks: ReadonlyArray<Hunk>
  readonly cut: Cut | undefined
}

/**
 * A text's lines (`split("\n")`: joined with `"\n"` they are the text again).
 *
 * @since 0.1.0
 * @category lines
 */
export const lines = (text: string): Array<string> => text.split("\n")

type Op = 0 | 1 | 2 // kept, deleted, inserted

const repeat = (op: Op, count: number): Array<Op> => new Array<Op>(count).fill(op)

/**
 * jsdiff's Myers search over the lines: the edit script from `a` to `b`, or `undefined` when it
 * takes more than `maxD` changes.
 */
const shortestEdit = (a: Array<string>, b: Array<string>, maxD: number): Array<Op> | undefined => {
  const changes = diffArrays(a, b, { maxEditLength: maxD })
  return changes?.flatMap((change) => repeat(change.added ? 2 : change.removed ? 1 : 0, change.count))
}

/**
 * The edit script from `a` to `b`: common head and tail kept, the middle by the bounded search,
 * else deleted and inserted whole.
 */
const editScript = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Op> => {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const x = a.slice(head, a.length - tail)
  const y = b.slice(head, b.length - tail)
  const maxD = Math.min(MAX_EDIT_DISTANCE, Math.floor(SEARCH_BUDGET / Math.max(1, x.length + y.length)))
  const middle = shortestEdit(x, y, maxD) ?? [...repeat(1, x.length), ...repeat(2, y.length)]
  return [...repeat(0, head), ...middle, ...repeat(0, tail)]
}

/**
 * The hunks of an edit script: each change with {@link CONTEXT} lines around it, changes closer
 * than twice that in one hunk.
 */
const hunksOf = (ops: ReadonlyArray<Op>, a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Hunk> => {
  // where each op stands in a and b
  const oldAt = new Int32Array(ops.length + 1)
  const newAt = new Int32Array(ops.length + 1)
  for (let i = 0; i < ops.length; i++) {
    oldAt[i + 1] = oldAt[i]! + (ops[i] === 2 ? 0 : 1)
    newAt[i + 1] = newAt[i]! + (ops[i] === 1 ? 0 : 1)
  }
  const hunks: Array<Hunk> = []
  let i = 0
  while (i < ops.length) {
    if (ops[i] === 0) {
      i++
      continue
    }
    const start = Math.max(0, i - CONTEXT)
    let end = i // one past the last change of the hunk
    let j = i
    while (j < ops.length) {
      if (ops[j] !== 0) {
        end = j + 1
        j++
      } else if (j - end >= 2 * CONTEXT) break
      else j++
    }
    const stop = Math.min(ops.length, end + CONTEXT)
    const lines: Array<DiffLine> = []
    for (let at = start; at < stop; at++) {
      const op = ops[at]
      lines.push(
        op === 0
          ? { op: " ", text: a[oldAt[at]!]! }
          : op === 1
          ? { op: "-", text: a[oldAt[at]!]! }
          : { op: "+", text: b[newAt[at]!]! }
      )
    }
    const oldLines = oldAt[stop]! - oldAt[start]!
    const newLines = newAt[stop]! - newAt[start]!
    hunks.push({
      oldStart: oldLines === 0 ? oldAt[start]! : oldAt[start]! + 1,
      oldLines,
      newStart: newLines === 0 ? newAt[start]! : newAt[start]! + 1,
      newLines,
      lines
    })
    i = stop
  }
  return hunks
}

/**
 * A text cut to at most `max` characters, never through a surrogate pair.
 *
 * @since 0.1.0
 * @category lines
 */
export const cutChars = (text: string, max: number): string => {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

// The hunks kept within MAX_SHOWN_LINES lines, long lines cut.
const shown = (
  hunks: ReadonlyArray<Hunk>,
  maxLines: number
): { hunks: Array<Hunk>; hiddenLines: number; longLines: number } => {
  const kept: Array<Hunk> = []
  let room = Math.max(0, Math.min(MAX_SHOWN_LINES, Math.floor(maxLines)))
  let hiddenLines = 0
  let longLines = 0
  for (const hunk of hunks) {
    if (room === 0) {
      hiddenLines += hunk.lines.length
      continue
    }
    const lines = hunk.lines.slice(0, room).map((line) => {
      if (line.text.length <= MAX_LINE_CHARS) return line
      longLines++
      return { op: line.op, text: cutChars(line.text, MAX_LINE_CHARS) }
    })
    hiddenLines += hunk.lines.length - lines.length
    room -= lines.length
    kept.push({ ...hunk, lines })
  }
  return { hunks: kept, hiddenLines, longLines }
}

/**
 * The diff from `before` to `after`, line by line, within the caps above (`maxLines`: keep fewer
 * hunk lines than {@link MAX_SHOWN_LINES}, for a budget shared by several diffs).
 *
 * @since 0.1.0
 * @category diffing
 */
export const diff = (before: string, after: string, maxLines: number = MAX_SHOWN_LINES): Diff => {
  const allOld = lines(String(before))
  const allNew = lines(String(after))
  const a = allOld.length > MAX_INPUT_LINES ? allOld.slice(0, MAX_INPUT_LINES) : allOld
  const b = allNew.length > MAX_INPUT_LINES ? allNew.slice(0, MAX_INPUT_LINES) : allNew
  const uncompared = allOld.length - a.length + allNew.length - b.length
  const kept = shown(hunksOf(editScript(a, b), a, b), Number.isNaN(maxLines) ? 0 : maxLines)
  const cut = uncompared > 0 || kept.hiddenLines > 0 || kept.longLines > 0
    ? { uncompared, hiddenLines: kept.hiddenLines, longLines: kept.longLines }
    : undefined
  return { hunks: kept.hunks, cut }
}

/**
 * The hunks applied to a text: the new text, or `undefined` when a kept or deleted line is not
 * where its hunk says (hunks in order, not overlapping).
 *
 * @since 0.1.0
 * @category diffing
 */
export const apply = (text: string, hunks: ReadonlyArray<Hunk>): string | undefined => {
  const source = lines(text)
  const out: Array<string> = []
  let at = 0 // lines of source consumed
  for (const hunk of hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1
    if (start < at || start > source.length) return undefined
    for (; at < start; at++) out.push(source[at]!)
    for (const line of hunk.lines) {
      if (line.op === "+") {
        out.push(line.text)
        continue
      }
      if (source[at] !== line.text) return undefined
      if (line.op === " ") out.push(line.text)
      at++
    }
  }
  for (; at < source.length; at++) out.push(source[at]!)
  return out.join("\n")
}

/**
 * A hunk's header, `@@ -oldStart,oldLines +newStart,newLines @@`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const hunkHeader = (hunk: Hunk): string =>
  `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`

/**
 * What a {@link Cut} left out, in words ("diff cut: 12 lines not shown, 2 long lines cut"), or
 * `undefined` when nothing was.
 *
 * @since 0.1.0
 * @category rendering
 */
export const cutNote = (cut: Cut | undefined): string | undefined => {
  if (cut === undefined) return undefined
  const parts = [
    cut.uncompared > 0 ? `${cut.uncompared} lines past the first ${MAX_INPUT_LINES} not compared` : undefined,
    cut.hiddenLines > 0 ? `${cut.hiddenLines} lines not shown` : undefined,
    cut.longLines > 0 ? `${cut.longLines} lines over ${MAX_LINE_CHARS} characters cut` : undefined
  ].filter((part) => part !== undefined)
  return `diff cut: ${parts.join(", ")}`
}
