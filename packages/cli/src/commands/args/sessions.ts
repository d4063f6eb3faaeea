/**
 * What `acx sessions` takes: the types of its options, which the command (`../sessions.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx sessions` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SessionsOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly json: boolean
  readonly followSymlinks: boolean
  /** At most this many rows, the last active first (absent: every one). */
  readonly limit?: number | undefined
}
