/**
 * What `acx memory` takes: the types of its options, which the command (`../memory.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx memory status` and `acx memory sync` are given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatusOptions {
  readonly json: boolean
}

/**
 * @since 0.6.0
 * @category models
 */
export type SyncOptions = StatusOptions

/**
 * What `acx memory search` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SearchOptions {
  readonly query: string
  readonly project: string | undefined
  readonly type: string | undefined
  readonly since: string | undefined
  readonly limit: number
  readonly json: boolean
}

/**
 * What `acx memory show` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ShowOptions {
  readonly id: string
  readonly json: boolean
}

/**
 * What `acx memory timeline` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface TimelineOptions {
  readonly id: string
  readonly window: number
  readonly json: boolean
}

/**
 * What `acx memory context` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ContextOptions {
  readonly project: string | undefined
}

/**
 * What `acx memory forget` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ForgetOptions {
  readonly ids: ReadonlyArray<string>
  readonly session: string | undefined
  readonly project: string | undefined
  readonly before: string | undefined
}

/**
 * What `acx memory restore` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface RestoreOptions {
  readonly file: string
}

/**
 * What `acx memory install` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface InstallOptions {
  readonly scope: "user" | "project"
  readonly project: string | undefined
  readonly sessionsFrom: string | undefined
  readonly team: string | undefined
  readonly user: string | undefined
  readonly machine: string | undefined
}

/**
 * What `acx memory uninstall` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface UninstallOptions {
  readonly scope: "user" | "project" | undefined
  readonly project: string | undefined
}

/**
 * What `acx memory backfill` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface BackfillOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly since: string | undefined
  readonly mode: "local" | "model"
  readonly yes: boolean
  readonly dryRun: boolean
  readonly json: boolean
}

/**
 * What `acx memory demo` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface DemoOptions {
  readonly dir: string | undefined
}
