/**
 * What `acx statusline`, `acx statusline install`, `uninstall` and `refresh` take, and the types
 * of what their runs are given (`run/statusline.ts` reads them from here).
 *
 * @since 0.4.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption } from "../../internal/options.js"
import { memoryProjectOption, scopeOption } from "./memory.js"

const formatOption = Options.text("format").pipe(
  Options.withDescription(
    "A template of fields: {model} {context} {session_cost} {today_cost} {five_hour} {seven_day} {block}"
  ),
  Options.optional
)

/**
 * The options of `acx statusline` (what Claude Code runs; the bin hands them to the statusline's
 * own bundle, this tree only documents them).
 *
 * @since 0.4.0
 * @category options
 */
export const config = {
  format: formatOption,
  plain: Options.boolean("plain").pipe(Options.withDescription("No colour (as NO_COLOR does)")),
  wrap: Options.text("wrap").pipe(
    Options.withDescription(
      "Run this statusline command too (same stdin, 1 s at most) and put acx's fields after its line"
    ),
    Options.optional
  ),
  configDir: configDirOption
}

/**
 * What `acx statusline` was given.
 *
 * @since 0.4.0
 * @category models
 */
export type StatuslineArgs = Command.Command.ParseConfig<typeof config>

/**
 * The options of `acx statusline install`.
 *
 * @since 0.4.0
 * @category options
 */
export const installConfig = {
  scope: scopeOption.pipe(Options.withDefault("user" as const)),
  project: memoryProjectOption,
  format: formatOption,
  wrap: Options.boolean("wrap").pipe(
    Options.withDescription("Keep the statusline already configured: run it and append acx's fields to its line")
  )
}

/**
 * What `acx statusline install` was given.
 *
 * @since 0.4.0
 * @category models
 */
export type InstallArgs = Command.Command.ParseConfig<typeof installConfig>

/**
 * The options of `acx statusline uninstall`.
 *
 * @since 0.4.0
 * @category options
 */
export const uninstallConfig = {
  scope: scopeOption.pipe(Options.withDefault("user" as const)),
  project: memoryProjectOption
}

/**
 * What `acx statusline uninstall` was given.
 *
 * @since 0.4.0
 * @category models
 */
export type UninstallArgs = Command.Command.ParseConfig<typeof uninstallConfig>

/**
 * The options of `acx statusline refresh`.
 *
 * @since 0.4.0
 * @category options
 */
export const refreshConfig = { configDir: configDirOption }

/**
 * What `acx statusline refresh` was given.
 *
 * @since 0.4.0
 * @category models
 */
export type RefreshArgs = Command.Command.ParseConfig<typeof refreshConfig>
