/**
 * What `acx import` takes: the types of its options, which the command (`../import.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx import` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ImportOptions {
  readonly from: string | undefined
  readonly to: string
  readonly project: string | undefined
  readonly batchSize: number
  readonly json: boolean
  readonly followSymlinks: boolean
  readonly machine: string | undefined
  readonly user: string | undefined
  readonly noMask: boolean
}
