/**
 * What `acx statusline` takes: the types of its options, which the command (`../statusline.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx statusline` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatuslineOptions {
  readonly format: string | undefined
  readonly plain: boolean
  readonly wrap: string | undefined
  readonly configDir: string | undefined
}

/**
 * What `acx statusline install` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatuslineInstallOptions {
  readonly scope: "user" | "project"
  readonly project: string | undefined
  readonly format: string | undefined
  readonly wrap: boolean
}

/**
 * What `acx statusline uninstall` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatuslineUninstallOptions {
  readonly scope: "user" | "project"
  readonly project: string | undefined
}

/**
 * What `acx statusline refresh` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface RefreshOptions {
  readonly configDir: string | undefined
}
