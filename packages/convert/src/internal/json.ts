import { isObject } from "@acx/schema/JsonGuards"

/** @internal */
export type Obj = { readonly [key: string]: unknown }

/** @internal A plain object: not null, not an array. */
export const isObj: (value: unknown) => value is Obj = isObject

/** @internal Reads a key of any value without throwing (`undefined` for non-objects). */
export const get = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Obj)[key] : undefined

/** @internal `JSON.stringify` made total: values it cannot encode fall back to `String`. */
export const stringify = (value: unknown, space?: number): string => {
  try {
    const json = JSON.stringify(value, null, space)
    return typeof json === "string" ? json : String(value)
  } catch {
    return safeString(value)
  }
}

const safeString = (value: unknown): string => {
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** @internal Reads an object's OWN key (`undefined` for non-objects and inherited keys like `constructor`). */
export const getOwn = (value: unknown, key: string): unknown =>
  isObj(value) && Object.hasOwn(value, key) ? value[key] : undefined

/** @internal A non-empty string, else `undefined`. */
export const nonEmptyString = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined

/** @internal A finite number, else `undefined`. */
export const finiteNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined
