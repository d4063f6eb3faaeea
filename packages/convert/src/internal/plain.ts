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

/**
 * @internal Sets an own, enumerable property (keys come from transcripts: `"__proto__"` is a
 * possible model or tool name, and a plain assignment would set the prototype).
 */
export const setOwn = <A>(record: { [key: string]: A }, key: string, value: A): A => {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  return value
}
