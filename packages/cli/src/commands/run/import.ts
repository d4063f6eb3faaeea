/**
 * What `acx import` does (its options: `../import.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { plural } from "@acx/convert/Plural"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as CliError from "../../CliError.js"
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { originOf } from "../../internal/origin.js"
import { progress } from "../../internal/progress.js"
import { projectsLayer } from "../../internal/source.js"
import { outcome } from "../../internal/syncSummary.js"
import { parseTarget } from "../../internal/target.js"
import type { ImportOptions } from "../args/import.js"

const SHOWN_FILES = 5

const listFiles = (
  warnings: ReadonlyArray<ClaudeImport.FileWarning>,
  describe: (warning: ClaudeImport.FileWarning) => string
): string => {
  const shown = warnings.slice(0, SHOWN_FILES).map(describe).join(", ")
  return warnings.length > SHOWN_FILES
    ? `${shown} and ${plural(warnings.length - SHOWN_FILES, "more file", "more files")}`
    : shown
}

/**
 * The warning lines of an import: which files were not read (gone, or not regular files), which
 * had lines that are not entries (too deep or too large included), and which had lines that are
 * not UTF-8 (stored with U+FFFD), with the byte offset of the first.
 *
 * @since 0.1.0
 * @category rendering
 */
export const importWarnings = (warnings: ReadonlyArray<ClaudeImport.FileWarning>): Array<string> => {
  const lines: Array<string> = []
  for (const warning of warnings) {
    if (warning.unread !== undefined) lines.push(`acx: warning: skipped ${warning.file}: ${warning.unread}`)
    if (warning.incompleteAt !== undefined) {
      lines.push(
        `acx: warning: ${warning.file}: its last line (at byte ${warning.incompleteAt}) is incomplete, ` +
          "still being written: it will be read once complete"
      )
    }
  }
  const malformed = warnings.filter((w) => w.malformedLines > 0)
  if (malformed.length > 0) {
    const total = malformed.reduce((n, w) => n + w.malformedLines, 0)
    lines.push(
      `acx: warning: ${plural(total, "malformed line")} skipped (not entries) in ${
        listFiles(malformed, (w) => `${w.file} (${w.malformedLines}, first at byte ${w.firstOffset})`)
      }`
    )
  }
  const invalid = warnings.filter((w) => w.invalidUtf8Lines > 0)
  if (invalid.length > 0) {
    const total = invalid.reduce((n, w) => n + w.invalidUtf8Lines, 0)
    lines.push(
      `acx: warning: ${plural(total, "line")} not valid UTF-8, stored with U+FFFD in place of the bad bytes, in ${
        listFiles(invalid, (w) => `${w.file} (${w.invalidUtf8Lines})`)
      }`
    )
  }
  return lines
}

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ batchSize, followSymlinks, from, json, machine, noMask, project, to, user }: ImportOptions) =>
  Effect.gen(function*() {
    if (batchSize < 1) return yield* CliError.invalidArgument("--batch-size must be at least 1")
    const target = yield* parseTarget(to)
    const origin = yield* originOf(machine, user)
    const projects = yield* ClaudeProjects.ClaudeProjects
    const projectKey = project
    const total = (yield* projects.listSessionFiles(projectKey)).length
    const bar = progress("importing", yield* CurrentIo, { enabled: !json, unit: "sessions" })
    const started = Date.now()
    const result = yield* Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      return yield* ClaudeImport.importClaudeDir({
        from: projects,
        to: store,
        projectKey,
        batchSize,
        onProgress: (p) =>
          bar.update(p.sessions, total, p.indexing === true ? "indexing for search and stats" : undefined),
        origin,
        mask: !noMask
      })
    }).pipe(Effect.provide(target.layer), Effect.ensuring(bar.clear))
    const seconds = (Date.now() - started) / 1000
    if (json) return yield* Console.log(format.json({ ...result, target: target.display, seconds }))
    yield* Console.log(
      outcome("imported", result, target.display, seconds)
    )
    for (const line of importWarnings(result.warnings)) yield* Console.error(line)
  }).pipe(Effect.provide(projectsLayer(from, { followSymlinks })), Effect.provide(NodeContext.layer))
