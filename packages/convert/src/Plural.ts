/**
 * A count and its noun in agreement, for every message that counts something: `1 session`,
 * `0 sessions`, `2 entries`. One rule for all of them, where each message once chose its own
 * (`session(s)`, a noun always singular, one always plural).
 *
 * @since 0.4.0
 */

/**
 * `count` and the noun: `one` for exactly 1, else `many` (default: `one` + `s`).
 *
 * ```ts
 * plural(1, "session") // "1 session"
 * plural(0, "entry", "entries") // "0 entries"
 * ```
 *
 * @since 0.4.0
 * @category formatting
 */
export const plural = (count: number, one: string, many: string = `${one}s`): string =>
  `${count} ${count === 1 ? one : many}`

/**
 * The verb that agrees with `count`: `one` for exactly 1, else `many` (`is`/`are`, `was`/`were`).
 *
 * @since 0.4.0
 * @category formatting
 */
export const agree = (count: number, one: string, many: string): string => count === 1 ? one : many
