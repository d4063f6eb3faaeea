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
import { lazyHandler } from "../internal/lazyHandler.js"
import * as ImportOptions from "./args/import.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const importCommand = Command.make(
  "import",
  ImportOptions.config,
  lazyHandler(() => import("./run/import.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "Import every session of a Claude Code config directory into SQLite or Postgres"
  )
)
