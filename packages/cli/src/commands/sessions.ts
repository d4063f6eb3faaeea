/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, last
 * active first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/SessionIndex`). What it does:
 * `run/sessions.ts`.
 *
 * @since 0.1.0
 */
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import type * as FastDir from "../fastDir.js"
import type * as FastRead from "../fastRead.js"
import { requireBundled } from "../internal/bundled.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { SessionsOptions } from "./args/sessions.js"

// The fast answers (`fastRead.ts` over a store, `fastDir.ts` over a config directory: no Effect)
// come first; each answers only when it is sure to print what the full path prints, else the
// full path runs. `ACX_NO_FAST=1`: always the full path. Built, each is a CommonJS bundle of its
// own beside the entry (faster to load than the module's chunks).

/**
 * The fast answer to `acx sessions` or `acx stats` (`from`: whether `--from` was given), if one
 * was printed.
 *
 * @since 0.6.0
 * @category commands
 */
export const fastAnswer = async (from: string | undefined, io: CommandIo): Promise<boolean> => {
  if (io.env["ACX_NO_FAST"] === "1") return false
  const fast = from === undefined
    ? requireBundled<typeof FastDir>("fast-dir.cjs", import.meta.url) ?? await import("../fastDir.js")
    : requireBundled<typeof FastRead>("fast-read.cjs", import.meta.url) ??
      await import("../fastRead.js")
  return fast.main(io.argv, io.env as NodeJS.ProcessEnv)
}

const full: CommandRun<SessionsOptions> = effectCommand(async (options, io) =>
  (await import("./run/sessions.js")).run(withProjectKey(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SessionsOptions> = async (options, io) =>
  (await fastAnswer(options.from, io)) ? 0 : full(options, io)

export type { SessionsOptions }
