/**
 * What `acx sync` prints when a sync is done: the summary line, or with `--json` one object.
 * Without Effect: the full path (`commands/run/sync.ts`) and the fast path of an unchanged
 * directory (`fastSync.ts`) print through these, so both print the same.
 */
import type * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import { plural } from "@acx/convert/Plural"
import * as format from "./format.js"

/** The line a sync ends with. */
export const summary = (result: ClaudeImport.ImportResult, target: string, seconds: number): string =>
  `synced ${plural(result.sessions, "session")}, ${plural(result.subagents, "subagent transcript")}, ${
    plural(result.entries, "new entry", "new entries")
  } into ${target} in ${seconds.toFixed(1)}s (${plural(result.filesRead, "file")} read, ${
    format.bytes(result.bytesRead)
  }; ${result.filesUnchanged} unchanged)`

/** The `--json` object of a sync (one line; `--watch` prints one per sync). */
export const summaryJson = (
  result: ClaudeImport.ImportResult,
  passes: number,
  target: string,
  seconds: number
): string => JSON.stringify({ ...result, passes, target, seconds })
