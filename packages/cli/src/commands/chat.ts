/**
 * `acx chat [--resume ID] [--model M] [--store sqlite:FILE|postgres://…] [--cwd DIR]
 * [--allowed-tools T,…] [--permission-mode M]`: an interactive conversation on ONE warm Claude
 * Code process (`@acx/agent`), every line mirrored into a session store (default
 * `$ACX_HOME/agent.db`), so `--resume ID` continues it — on another machine too, with the same
 * `--store postgres://…`, even where no local transcript exists.
 *
 * The answer streams to stdout; tool calls (one line each), `/cost` and the closing
 * `session: <uuid>` go to stderr. Not on a terminal, stdin is read one prompt per line (`/exit`
 * or end of input ends the chat) and a tool that needs permission is denied with one line on
 * stderr saying how to allow it — a prompt line is never taken as an answer. What it does:
 * `run/chat.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"

const resumeOption = Options.text("resume").pipe(
  Options.withDescription("Continue this session id (loaded from the store)"),
  Options.optional
)
const modelOption = Options.text("model").pipe(Options.withDescription("The model to ask for"), Options.optional)
const storeOption = Options.text("store").pipe(
  Options.withDescription(
    "Where the conversation is kept: sqlite:FILE or postgres://URL (default: $ACX_HOME/agent.db)"
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

const config = {
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

/**
 * @since 0.1.0
 * @category commands
 */
export const chat = Command.make("chat", config, lazyHandler(() => import("./run/chat.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Talk to Claude Code on one warm process; every turn kept in a session store (default $ACX_HOME/agent.db), resumable with --resume"
  )
)
