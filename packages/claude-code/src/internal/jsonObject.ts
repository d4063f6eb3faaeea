/**
 * Reading and changing a settings object from `JSON.parse` without its prototype getting in the
 * way: own properties only, and new objects built with `Object.fromEntries` (which defines
 * properties, so a `"__proto__"` key stays a plain key). The settings merges (hooks, the
 * statusline) share them.
 */

/** A JSON object as parsed (`ClaudeSettingsMerge.JsonObject` is the same shape). */
interface JsonObject {
  readonly [key: string]: unknown
}

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An own property: a key like "constructor" must not find Object.prototype's. */
export const own = (object: JsonObject, key: string): unknown => Object.hasOwn(object, key) ? object[key] : undefined

/** `object` with `key` set to `value`, in its place when it was there, else last. */
export const withKey = (object: JsonObject, key: string, value: unknown): JsonObject =>
  Object.hasOwn(object, key)
    ? Object.fromEntries(Object.entries(object).map(([k, v]) => [k, k === key ? value : v]))
    : Object.fromEntries([...Object.entries(object), [key, value]])

/** `object` without `key`. */
export const withoutKey = (object: JsonObject, key: string): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([k]) => k !== key))
