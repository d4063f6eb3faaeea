/**
 * `acx import [--from DIR] --to sqlite:FILE|postgres://URL [--project P]`: every session of a
 * Claude Code config directory (main and subagent transcripts) into a SessionStore. Exactly once
 * and incremental: the store's import ledger says what each file gave already, so unchanged
 * files are not opened, grown ones are read from where the last import stopped, and imports
 * running at the same time store every entry once. What it does: `run/import.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { followSymlinksOption, jsonOption, projectOption } from "../internal/options.js"

const fromOption = Options.text("from").pipe(
  Options.withDescription("Claude Code config directory to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"),
  Options.optional
)

const toOption = Options.text("to").pipe(
  Options.withDescription(
    "The SessionStore: sqlite:FILE (created if missing) or postgres://user:pass@host/db[?schema=S]"
  )
)

const batchOption = Options.integer("batch-size").pipe(
  Options.withDescription("Entries per append"),
  Options.withDefault(500)
)

const config = {
  from: fromOption,
  to: toOption,
  project: projectOption,
  batchSize: batchOption,
  json: jsonOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx import` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ImportArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const importCommand = Command.make(
  "import",
  config,
  lazyHandler(() => import("./run/import.js"), (m) => m.run)
).pipe(Command.withDescription("Import every session of a Claude Code config directory into SQLite or Postgres"))
