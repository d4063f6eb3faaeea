/**
 * What `acx push` takes: the types of its options, which the command (`../push.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx push` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface PushOptions {
  readonly id: string
  readonly baseUrl: string | undefined
  readonly project: string | undefined
  readonly configDir: string | undefined
  readonly thinking: boolean
  readonly includeSidechains: boolean
  readonly newSession: boolean
  readonly json: boolean
  readonly followSymlinks: boolean
}
