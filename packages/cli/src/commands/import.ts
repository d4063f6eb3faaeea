/**
 * `acx import [--from DIR] --to sqlite:FILE|postgres://URL [--project P]`: every session of a
 * Claude Code config directory (main and subagent transcripts) into a SessionStore. Exactly once
 * and incremental: the store's import ledger says what each file gave already, so unchanged
 * files are not opened, grown ones are read from where the last import stopped, and imports
 * running at the same time store every entry once. What it does: `run/import.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { ImportOptions } from "./args/import.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<ImportOptions> = effectCommand(async (options, io) =>
  (await import("./run/import.js")).run(withProjectKey(options, io))
)
