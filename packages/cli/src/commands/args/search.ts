/**
 * What `acx search` takes: the types of its options, which the command (`../search.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx search` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SearchOptions {
  readonly query: ReadonlyArray<string>
  readonly project: string | undefined
  readonly since: string | undefined
  readonly role: "user" | "assistant" | "tool" | undefined
  readonly limit: number | undefined
  readonly json: boolean
  readonly from: string | undefined
}
