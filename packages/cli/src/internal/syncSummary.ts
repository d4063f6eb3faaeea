/**
 * What `acx sync` prints when a sync is done: the summary line, or with `--json` one object.
 * Without Effect: the sync (`commands/run/sync.ts`) and its first step, which finds the directory
 * unchanged (`unchangedSync.ts`), print through these.
 */
import type * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import { plural } from "@acx/convert/Plural"
import * as format from "./format.js"

/** The line a sync ends with. */
export const summary = (result: ClaudeImport.ImportResult, target: string, seconds: number): string =>
  outcome("synced", result, target, seconds)

/**
 * The one line an import or a sync ends with: `VERB 2 sessions, 0 subagent transcripts, 14 new
 * entries into TARGET in 0.4s (3 files read, 1.2 MB; 0 unchanged; 1 secret masked)`.
 */
export const outcome = (
  verb: "synced" | "imported",
  result: ClaudeImport.ImportResult,
  target: string,
  seconds: number
): string =>
  `${verb} ${plural(result.sessions, "session")}, ${plural(result.subagents, "subagent transcript")}, ${
    plural(result.entries, "new entry", "new entries")
  } into ${target} in ${seconds.toFixed(1)}s (${plural(result.filesRead, "file")} read, ${
    format.bytes(result.bytesRead)
  }; ${result.filesUnchanged} unchanged${maskedNote(result)})`

/** What a summary line says of the secrets masked on the way in: nothing when none were. */
export const maskedNote = (result: Pick<ClaudeImport.ImportResult, "secretsMasked">): string =>
  result.secretsMasked === 0 ? "" : `; ${plural(result.secretsMasked, "secret")} masked`

/** The `--json` object of a sync (one line; `--watch` prints one per sync). */
export const summaryJson = (
  result: ClaudeImport.ImportResult,
  passes: number,
  target: string,
  seconds: number
): string => JSON.stringify({ ...result, passes, target, seconds })
