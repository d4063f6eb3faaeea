/**
 * What `acx import` takes: its options and arguments, and the type of what a run is given
 * (`run/import.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import {
  followSymlinksOption,
  jsonOption,
  machineOption,
  noMaskOption,
  projectOption,
  userOption
} from "../../internal/options.js"

const fromOption = Options.text("from").pipe(
  Options.withDescription("Claude Code config directory to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"),
  Options.optional
)

const toOption = Options.text("to").pipe(
  Options.withDescription(
    "The SessionStore: sqlite:FILE or FILE.db (created if missing), or postgres://user:pass@host/db[?schema=S]"
  )
)

const batchOption = Options.integer("batch-size").pipe(
  Options.withDescription("Entries per append"),
  Options.withDefault(500)
)

/**
 * The options and arguments of `acx import`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  from: fromOption,
  to: toOption,
  project: projectOption,
  batchSize: batchOption,
  json: jsonOption,
  followSymlinks: followSymlinksOption,
  machine: machineOption,
  user: userOption,
  noMask: noMaskOption
}

/**
 * What `acx import` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ImportArgs = Command.Command.ParseConfig<typeof config>
