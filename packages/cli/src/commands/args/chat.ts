/**
 * What `acx chat` takes: its options and arguments, and the type of what a run is given
 * (`run/chat.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"

const resumeOption = Options.text("resume").pipe(
  Options.withDescription("Continue this session id (loaded from the store)"),
  Options.optional
)
const modelOption = Options.text("model").pipe(Options.withDescription("The model to ask for"), Options.optional)
const storeOption = Options.text("store").pipe(
  Options.withDescription(
    "Where the conversation is kept: sqlite:FILE, FILE.db or postgres://URL[?schema=S] (default: $ACX_HOME/agent.db)"
  ),
  Options.optional
)
const cwdOption = Options.directory("cwd", { exists: "yes" }).pipe(
  Options.withDescription("The project directory Claude Code works in (default: the current directory)"),
  Options.optional
)
const allowedToolsOption = Options.text("allowed-tools").pipe(
  Options.withDescription("Tools allowed without asking, comma-separated (e.g. Bash,Read)"),
  Options.optional
)
const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"] as const
const permissionModeOption = Options.choice("permission-mode", PERMISSION_MODES).pipe(
  Options.withDescription("Claude Code's permission mode"),
  Options.optional
)

/**
 * The options and arguments of `acx chat`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  resume: resumeOption,
  model: modelOption,
  store: storeOption,
  cwd: cwdOption,
  allowedTools: allowedToolsOption,
  permissionMode: permissionModeOption
}

/**
 * What `acx chat` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ChatArgs = Command.Command.ParseConfig<typeof config>
