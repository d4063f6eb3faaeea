/**
 * The options several commands share (`--config-dir`, `--project`, `--json`, `--follow-symlinks`):
 * part of the command tree, so this module loads with it and imports nothing a command's work needs.
 */
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import { projectKeyOf } from "./projectKey.js"

export { projectKeyOf, projectLabel } from "./projectKey.js"

export const configDirOption = Options.text("config-dir").pipe(
  Options.withDescription("Claude Code config directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"),
  Options.optional
)

export const projectOption = Options.text("project").pipe(
  Options.withAlias("p"),
  Options.withDescription(
    "Only this project: its directory name under <config-dir>/projects, or the absolute path it was run in"
  ),
  Options.optional,
  Options.map(Option.map((value) => projectKeyOf(value)))
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("Print JSON for scripts"))

export const followSymlinksOption = Options.boolean("follow-symlinks").pipe(
  Options.withDescription(
    "Read transcripts and project directories that are symbolic links to places outside the config directory (default: skipped with a warning)"
  )
)

export const machineOption = Options.text("machine").pipe(
  Options.withDescription(
    "The machine its sessions are recorded under, for a store several machines share (default: the hostname)"
  ),
  Options.optional
)

export const userOption = Options.text("user").pipe(
  Options.withDescription("The user its sessions are recorded under (default: the OS user)"),
  Options.optional
)
