/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, last
 * active first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/PlainListing.sessionsListing`,
 * no Effect). `--from STORE`: a store's sessions (`run/sessions.ts`).
 *
 * @since 0.1.0
 */
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import type * as FastRead from "../fastRead.js"
import { requireBundled } from "../internal/bundled.js"
import type * as ConfigDirReads from "../internal/configDirReads.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { SessionsOptions } from "./args/sessions.js"

// The fast answer over a store (`fastRead.ts`: no Effect) comes first; it answers only when it is
// sure to print what the full path prints, else the full path runs. `ACX_NO_FAST=1`: always the
// full path. Built, it is a CommonJS bundle of its own beside the entry.

/**
 * The fast answer to `acx sessions --from` or `acx stats --from`, if one was printed.
 *
 * @since 0.6.0
 * @category commands
 */
export const fastAnswer = async (io: CommandIo): Promise<boolean> => {
  if (io.env["ACX_NO_FAST"] === "1") return false
  const fast = requireBundled<typeof FastRead>("fast-read.cjs", import.meta.url) ?? await import("../fastRead.js")
  return fast.main(io.argv, io.env as NodeJS.ProcessEnv)
}

/**
 * The one path over a config directory (`internal/configDirReads.ts`): its bundle when built,
 * else the module.
 *
 * @since 0.6.0
 * @category commands
 */
export const configDirReads = async (): Promise<typeof ConfigDirReads> =>
  requireBundled<typeof ConfigDirReads>("config-reads.cjs", import.meta.url) ??
    await import("../internal/configDirReads.js")

const fromStore = effectCommand<SessionsOptions & { readonly from: string }>(async (options, io) =>
  (await import("./run/sessions.js")).run(withProjectKey(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SessionsOptions> = async (options, io) =>
  options.from === undefined
    ? (await configDirReads()).listConfigDir(options, io)
    : (await fastAnswer(io))
    ? 0
    : fromStore({ ...options, from: options.from }, io)
