/**
 * What `acx sync`, `acx sync install` and `acx sync uninstall` take, and the types of what their
 * runs are given (`run/sync.ts`, `run/syncInstall.ts` read them from here).
 *
 * @since 0.3.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, jsonOption, machineOption, noMaskOption, userOption } from "../../internal/options.js"
import { memoryProjectOption, scopeOption } from "./memory.js"

const toOption = Options.text("to").pipe(
  Options.withDescription(
    "The store: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db)"
  ),
  Options.optional
)

/**
 * The options of `acx sync`.
 *
 * @since 0.3.0
 * @category options
 */
export const config = {
  to: toOption,
  configDir: configDirOption,
  json: jsonOption,
  watch: Options.boolean("watch").pipe(
    Options.withDescription("Keep running: sync again whenever a transcript changes, until Ctrl-C")
  ),
  background: Options.boolean("background").pipe(
    Options.withDescription(
      "What the sync hook runs: when a sync of this target is already running, mark it to run once more and exit"
    )
  ),
  machine: machineOption,
  user: userOption,
  noMask: noMaskOption
}

/**
 * What `acx sync` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type SyncArgs = Command.Command.ParseConfig<typeof config>

/**
 * The options of `acx sync install`.
 *
 * @since 0.3.0
 * @category options
 */
export const installConfig = {
  scope: scopeOption.pipe(Options.withDefault("user" as const)),
  project: memoryProjectOption,
  to: toOption
}

/**
 * What `acx sync install` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type InstallArgs = Command.Command.ParseConfig<typeof installConfig>

/**
 * The options of `acx sync uninstall`.
 *
 * @since 0.3.0
 * @category options
 */
export const uninstallConfig = { scope: scopeOption.pipe(Options.optional), project: memoryProjectOption }

/**
 * What `acx sync uninstall` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type UninstallArgs = Command.Command.ParseConfig<typeof uninstallConfig>
