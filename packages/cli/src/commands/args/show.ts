/**
 * What `acx show` takes: the types of its options, which the command (`../show.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx show` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ShowOptions {
  readonly id: string
  readonly agent: string | undefined
  readonly uuids: boolean
  readonly format: "markdown" | "anthropic" | "jsonl"
  readonly project: string | undefined
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly noThinking: boolean
  readonly noMask: boolean
  readonly followSymlinks: boolean
}
