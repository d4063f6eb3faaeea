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
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import type { ChatOptions } from "./args/chat.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<ChatOptions> = effectCommand(async (options) =>
  (await import("./run/chat.js")).run(options)
)
