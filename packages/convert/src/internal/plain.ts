/**
 * `isObj` and `get` without imports, for modules that run in acx's statistics worker threads
 * (a worker bundle without Effect starts in milliseconds).
 *
 * @internal
 */

/** @internal */
export type Plain = { readonly [key: string]: unknown }

/** @internal A plain object: not null, not an array. */
export const isObj = (value: unknown): value is Plain =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** @internal Reads a key of any value without throwing (`undefined` for non-objects). */
export const get = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Plain)[key] : undefined
