/**
 * What `acx sync` takes: the types of its options, which the command (`../sync.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx sync` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SyncOptions {
  readonly to: string | undefined
  readonly configDir: string | undefined
  readonly json: boolean
  readonly watch: boolean
  readonly background: boolean
  readonly machine: string | undefined
  readonly user: string | undefined
  readonly noMask: boolean
}

/**
 * What `acx sync install` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SyncInstallOptions {
  readonly scope: "user" | "project"
  readonly project: string | undefined
  readonly to: string | undefined
}

/**
 * What `acx sync uninstall` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SyncUninstallOptions {
  readonly scope: "user" | "project" | undefined
  readonly project: string | undefined
}
