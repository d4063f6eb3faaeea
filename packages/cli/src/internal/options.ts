/**
 * The options several commands share (`--config-dir`, `--from`, `--project`, `--json`,
 * `--follow-symlinks`):
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

/**
 * `--from TARGET`: read a session store (what `acx sync` and `acx import` fill, or an app's agents
 * through the SDK's `sessionStore`) instead of the config directory. Parsed when the command runs
 * (`storeSource.ts`), so a bad spec is a usage error like `--to`'s.
 */
export const fromOption = Options.text("from").pipe(
  Options.withDescription(
    "Read this session store instead of the config directory: sqlite:FILE, a FILE.db path, or postgres://user:pass@host/db[?schema=S] (what acx sync --to fills; it must exist)"
  ),
  Options.optional
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

/**
 * `--no-mask`: store transcripts as written, secrets included (`acx sync`, `acx import`).
 *
 * @since 0.5.0
 * @category options
 */
export const noMaskOption = Options.boolean("no-mask").pipe(
  Options.withDescription(
    "Store secrets as written instead of masking them on the way in: only for a store its owner alone reads"
  )
)

export const userOption = Options.text("user").pipe(
  Options.withDescription("The user its sessions are recorded under (default: the OS user)"),
  Options.optional
)

/**
 * `--from TARGET` of the commands that only ever read a store (`acx search`, `acx memory mcp`):
 * the sync store by default, never the config directory.
 */
export const storeFromOption = Options.text("from").pipe(
  Options.withDescription(
    "The store to read: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db, the one acx sync fills); nothing is created"
  ),
  Options.optional
)
