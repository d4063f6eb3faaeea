/**
 * What `acx memoryDemo` takes: its options and arguments, and the type of what a run is given
 * (`run/memoryDemo.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"

const dirOption = Options.text("dir").pipe(
  Options.withDescription("Keep the scratch project, HOME and memory here (default: a temp dir, removed)"),
  Options.optional
)

/**
 * The options and arguments of `acx memoryDemo`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = { dir: dirOption }

/**
 * What `acx memory demo` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryDemoArgs = Command.Command.ParseConfig<typeof config>
