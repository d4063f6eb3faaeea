/**
 * What `acx hub` takes: the types of its options, which the command (`../hub.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx hub init` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface InitOptions {
  readonly url: string | undefined
  readonly hub: string | undefined
  readonly team: string | undefined
}

/**
 * What `acx hub user` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface UserOptions {
  readonly action: "add" | "remove" | "rotate"
  readonly name: string
  readonly url: string | undefined
  readonly next: string | undefined
  readonly role: "sync" | "viewer" | undefined
  readonly hub: string | undefined
}

/**
 * What `acx hub grant` and `acx hub revoke` are given.
 *
 * @since 0.6.0
 * @category models
 */
export interface GrantOptions {
  readonly url: string | undefined
  readonly project: string
  readonly role: string
  readonly allowUnknown: boolean
  readonly hub: string | undefined
}

/**
 * What `acx hub status` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatusOptions {
  readonly url: string | undefined
  readonly hub: string | undefined
  readonly json: boolean
  readonly lagHours: number
}
