/**
 * `acx statusline`: the one line Claude Code draws under the prompt (model, context, costs, the
 * 5-hour and 7-day quota windows); `install` / `uninstall` set it in Claude Code's settings;
 * `refresh` recomputes the cached totals it shows (the statusline starts it, detached). What they
 * do: `run/statusline.ts`; the line itself is `src/statusline.ts`, the bin's hand-over.
 *
 * @since 0.4.0
 */
import * as path from "node:path"
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectDir } from "../internal/options.js"
import type {
  RefreshOptions,
  StatuslineInstallOptions,
  StatuslineOptions,
  StatuslineUninstallOptions
} from "./args/statusline.js"

/**
 * `acx statusline`: the statusline's own code (`@acx/claude-code/StatuslineMain`, no Effect), given the
 * options as its command line. Built, the table's entry requires its bundle (`dist/statusline.cjs`)
 * instead.
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<StatuslineOptions> = async ({ configDir, format, plain, wrap }, io) => {
  const { main } = await import("@acx/claude-code/StatuslineMain")
  const args = [
    ...(format === undefined ? [] : ["--format", format]),
    ...(plain ? ["--plain"] : []),
    ...(wrap === undefined ? [] : ["--wrap", wrap]),
    ...(configDir === undefined ? [] : ["--config-dir", configDir])
  ]
  return main(args, path.resolve(io.argv[1] ?? "acx"))
}

const installs = () => import("./run/statusline.js")

/**
 * @since 0.6.0
 * @category commands
 */
export const install: CommandRun<StatuslineInstallOptions> = effectCommand(async (options, io) =>
  (await installs()).install(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const uninstall: CommandRun<StatuslineUninstallOptions> = effectCommand(async (options, io) =>
  (await installs()).uninstall(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const refresh: CommandRun<RefreshOptions> = effectCommand(async (options) => (await installs()).refresh(options))
