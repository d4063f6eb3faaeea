/**
 * The warning lines `acx sessions` and `acx stats` print on stderr about a config directory, in
 * one place and without Effect: a path a listing left out ({@link skippedWarning}), a transcript
 * the stats fold skipped or a stats cache it could not write ({@link statsWarnings}), and the
 * malformed lines it skipped ({@link malformedWarning}). The CLI's full path and its plain readers
 * print these words, so they read the same whichever prints them.
 *
 * @since 0.5.0
 */
import { plural } from "@acx/convert/Plural"
import * as TerminalText from "@acx/convert/TerminalText"
import type * as ConfigTree from "./ConfigTree.js"
import type * as StatsOutput from "./StatsOutput.js"

/**
 * The warning line for a path a listing left out; a link left out says the option that reads it.
 *
 * @since 0.5.0
 * @category warnings
 */
export const skippedWarning = (skipped: ConfigTree.Skipped): string =>
  `acx: warning: skipped ${TerminalText.line(skipped.path)}: ${TerminalText.line(skipped.description)}${
    skipped.reason === "Symlink" ? " (--follow-symlinks reads it)" : ""
  }`

/**
 * A transcript and how many of its lines were malformed.
 *
 * @since 0.5.0
 * @category models
 */
export interface MalformedFile {
  readonly file: string
  readonly lines: number
  /** The byte offset of the first, when known. */
  readonly firstOffset?: number | undefined
}

const MALFORMED_FILES_SHOWN = 5

/**
 * The one warning line for malformed lines skipped over several files: the total, then the
 * files with their counts (the first five, then how many more); `undefined` when none were.
 *
 * @since 0.5.0
 * @category warnings
 */
export const malformedWarning = (files: ReadonlyArray<MalformedFile>): string | undefined => {
  const bad = files.filter((file) => file.lines > 0)
  if (bad.length === 0) return undefined
  const total = bad.reduce((sum, file) => sum + file.lines, 0)
  const shown = bad.slice(0, MALFORMED_FILES_SHOWN).map((file) =>
    `${TerminalText.line(file.file)} (${file.lines}${
      file.firstOffset === undefined ? "" : `, first at byte ${file.firstOffset}`
    })`
  )
  const more = bad.length > MALFORMED_FILES_SHOWN ? ` and ${bad.length - MALFORMED_FILES_SHOWN} more` : ""
  return `acx: warning: ${plural(total, "malformed line")} skipped in ${plural(bad.length, "file")}: ${
    shown.join(", ")
  }${more}`
}

/**
 * What `acx stats` warns about a fold: `before` the report, a line per transcript skipped (gone,
 * not a regular file, unreadable) and the stats cache that could not be written; `after` it, the
 * malformed lines skipped (one line, or `undefined`).
 *
 * @since 0.5.0
 * @category warnings
 */
export const statsWarnings = (
  result: StatsOutput.StatsResult
): { readonly before: ReadonlyArray<string>; readonly after: string | undefined } => {
  const { run } = result
  const before = run.skipped.map((skipped) => `acx: warning: skipped ${skipped.file}: ${skipped.reason}`)
  if (run.cacheWarning !== undefined) before.push(`acx: warning: ${run.cacheWarning}`)
  const after = malformedWarning(
    run.folds.map((item) => ({ file: item.file, lines: item.fold.malformed, firstOffset: run.malformedAt[item.file] }))
  )
  return { before, after }
}
