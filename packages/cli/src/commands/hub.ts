/**
 * `acx hub init [URL]`, `acx hub user add|remove NAME [URL]`, `acx hub user rotate NAME NEW [URL]`,
 * `acx hub grant|revoke [URL] --project ID --role NAME`, `acx hub status [URL]` (the hub as URL,
 * `--hub` or `$ACX_HUB_URL`): a team's Postgres store, with Postgres' roles and row-level
 * security deciding who sees what (docs/hub.md). What they do: `run/hub.ts`.
 *
 * @since 0.4.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import type { GrantOptions, InitOptions, StatusOptions, UserOptions } from "./args/hub.js"

const hub = () => import("./run/hub.js")

/**
 * @since 0.6.0
 * @category commands
 */
export const init: CommandRun<InitOptions> = effectCommand(async (options) => (await hub()).init(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const user: CommandRun<UserOptions> = effectCommand(async (options) => (await hub()).user(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const grant: CommandRun<GrantOptions> = effectCommand(async (options) => (await hub()).grant(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const revoke: CommandRun<GrantOptions> = effectCommand(async (options) => (await hub()).revoke(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const status: CommandRun<StatusOptions> = effectCommand(async (options) => (await hub()).status(options))
