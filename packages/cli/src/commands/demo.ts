/**
 * `acx demo`: the whole toolkit end to end on a machine with nothing set up. Where the Claude
 * Code binary is installed (see `ClaudeBinary`), the real CLI runs a session offline against a
 * model double: two turns and a resumed third, commands really executed in a scratch project,
 * its transcript written to a temporary config directory. Elsewhere (or with `--generated`) a
 * realistic generated session (prompt, thinking, tool turns, a subagent, a compaction) is
 * written there with `ClaudeProjects`, and the demo says why. Either session is then imported
 * into the embedded SQLite SessionStore, counted, saved through `ClaudeAgentStorage` into an
 * in-process Acontext emulator on 127.0.0.1 (the live SDK messages of the real session; those a
 * live `query()` would have streamed for the generated one) and read back; every step prints
 * what it did. What it does: `run/demo.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { jsonOption } from "../internal/options.js"

const dirOption = Options.text("dir").pipe(
  Options.withDescription("Keep the generated config directory and SQLite file here (default: a temp dir, removed)"),
  Options.optional
)

const generatedOption = Options.boolean("generated").pipe(
  Options.withDescription("Use the generated session even where the real Claude Code CLI is installed")
)

const thinkingOption = Options.boolean("thinking").pipe(
  Options.withDescription("Store thinking blocks too (as text; Acontext's default rule leaves them out)")
)

const config = { dir: dirOption, generated: generatedOption, thinking: thinkingOption, json: jsonOption }

/**
 * What `acx demo` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type DemoArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const demo = Command.make("demo", config, lazyHandler(() => import("./run/demo.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Generate a realistic session in Claude Code layout, import it into SQLite, push it into an in-process Acontext, print the results"
  )
)
