/**
 * What `acx demo` takes: its options and arguments, and the type of what a run is given
 * (`run/demo.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { jsonOption } from "../../internal/options.js"

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

/**
 * The options and arguments of `acx demo`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = { dir: dirOption, generated: generatedOption, thinking: thinkingOption, json: jsonOption }

/**
 * What `acx demo` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type DemoArgs = Command.Command.ParseConfig<typeof config>
