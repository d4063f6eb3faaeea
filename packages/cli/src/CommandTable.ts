/**
 * Every command of `acx`, as data: its options (value type, choices, default, whether required),
 * its positional arguments, its subcommands and descriptions, and the module that runs it,
 * imported only when it runs (each group's specs in `table/`, the shared options in
 * `table/options.ts`). The parser (`internal/commandLine.ts`), `--help`
 * (`internal/help.ts`) and the command reference in docs/cli.md (`pnpm --filter @acx/cli reference`)
 * are all read from here. No Effect: loading the table costs no more than the text it holds.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "./CommandSpec.js"
import { chat, fork, push } from "./table/agents.js"
import { hook, memory, statusline } from "./table/memory.js"
import { demo, ui } from "./table/page.js"
import { search, sessions, show, stats } from "./table/reading.js"
import { hubCommand, importCommand, sync } from "./table/stores.js"

/**
 * The root: `acx` and every command under it, in the order `acx --help` lists them.
 *
 * @since 0.6.0
 * @category table
 */
export const acx: CommandSpec = {
  name: "acx",
  description:
    "Read, import and push Claude Code sessions: list, show, stats, search inside them, import into SQLite/Postgres, push to Acontext, fork; chat on a warm, resumable Claude Code process; a memory for Claude Code across sessions; a local web page for all of it",
  subcommands: [
    sessions,
    show,
    stats,
    search,
    importCommand,
    sync,
    hubCommand,
    push,
    fork,
    chat,
    memory,
    hook,
    statusline,
    ui,
    demo
  ]
}
