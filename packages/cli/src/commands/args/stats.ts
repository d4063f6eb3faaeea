/**
 * What `acx stats` takes: the types of its options, which the command (`../stats.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */
import type { groupings } from "../../table/options.js"

/**
 * What `acx stats` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatsOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly json: boolean
  readonly by: typeof groupings[number]
  readonly followSymlinks: boolean
  readonly since: string | undefined
  readonly until: string | undefined
  readonly live: boolean
  readonly interval: number
}
