/**
 * The one report step of `acx stats`, without Effect: a report's warnings on stderr
 * (`ListingWarnings.statsWarnings`: what a fold skipped and a cache it could not write before,
 * the malformed lines after a table), and on stdout the JSON (`StatsOutput.statsJson`), the
 * table (`statsTable.ts`) or, with no row, `no sessions [in that date range] <place>`. A config
 * directory's report (`configDirReads.ts`), a SQLite store's (`storeReads.ts`) and the Effect
 * path's (`commands/run/stats.ts`) are all printed here.
 */
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as StatsOutput from "@acx/claude-code/StatsOutput"
import type { CommandIo } from "../CommandIo.js"
import * as format from "./format.js"
import { statsReport } from "./statsTable.js"

/** What a printed report was: its text as printed (without the final newline) and its warnings. */
export interface Printed {
  readonly output: string
  readonly warnings: ReturnType<typeof ListingWarnings.statsWarnings>
}

/**
 * Prints `result` to `io` as `--json` asks; `place` is where the listing looked (`listingWords.ts`
 * `listingPlace`), for the empty report's words.
 */
export const printStats = async (
  io: Pick<CommandIo, "stdout" | "stderr">,
  result: StatsOutput.StatsResult,
  options: { readonly json: boolean; readonly place: string }
): Promise<Printed> => {
  const warnings = ListingWarnings.statsWarnings(result)
  for (const line of warnings.before) io.stderr(`${line}\n`)
  const { range } = result
  const empty = result.report.rows.length === 0
  const output = options.json
    ? format.json(StatsOutput.statsJson(result))
    : empty
    ? `no sessions${
      range.since !== undefined || range.until !== undefined ? " in that date range" : ""
    } ${options.place}`
    : statsReport(result)
  await io.stdout(`${output}\n`)
  // the malformed lines are said under a table
  if (!options.json && !empty && warnings.after !== undefined) io.stderr(`${warnings.after}\n`)
  return { output, warnings }
}
