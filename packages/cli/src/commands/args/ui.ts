/**
 * What `acx ui` takes: the types of its options, which the command (`../ui.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx ui` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface UiOptions {
  readonly port: number | undefined
  readonly host: string
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly open: boolean
  readonly followSymlinks: boolean
}
