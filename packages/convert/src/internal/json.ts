import { isObject } from "@acx/schema/Json"

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
