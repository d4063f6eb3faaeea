/**
 * What `acx sync` prints when a sync is done: the summary line, or with `--json` one object.
 * Without Effect: the full path (`commands/run/sync.ts`) and the fast path of an unchanged
 * directory (`fastSync.ts`) print through these, so both print the same.
 */
import type * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as format from "./format.js"

/** The line a sync ends with. */
export const summary = (result: ClaudeImport.ImportResult, target: string, seconds: number): string =>
  `synced ${result.sessions} session(s), ${result.subagents} subagent transcript(s), ${result.entries} new entries into ${target} in ${
    seconds.toFixed(1)
  }s (${result.filesRead} file(s) read, ${format.bytes(result.bytesRead)}; ${result.filesUnchanged} unchanged${
    maskedNote(result)
  })`

/** What a summary line says of the secrets masked on the way in: nothing when none were. */
export const maskedNote = (result: Pick<ClaudeImport.ImportResult, "secretsMasked">): string =>
  result.secretsMasked === 0 ? "" : `; ${result.secretsMasked} secret(s) masked`

/** The `--json` object of a sync (one line; `--watch` prints one per sync). */
export const summaryJson = (
  result: ClaudeImport.ImportResult,
  passes: number,
  target: string,
  seconds: number
): string => JSON.stringify({ ...result, passes, target, seconds })
