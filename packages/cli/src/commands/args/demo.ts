/**
 * What `acx demo` takes: the types of its options, which the command (`../demo.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx demo` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface DemoOptions {
  readonly dir: string | undefined
  readonly generated: boolean
  readonly thinking: boolean
  readonly json: boolean
}
