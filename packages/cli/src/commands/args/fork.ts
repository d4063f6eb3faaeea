/**
 * What `acx fork` takes: the types of its options, which the command (`../fork.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx fork` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ForkOptions {
  readonly id: string
  readonly at: string | undefined
  readonly title: string | undefined
  readonly project: string | undefined
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly json: boolean
  readonly followSymlinks: boolean
}
