/**
 * JSON values: what arrives from the SDK, the CLI, transcripts and hooks before anything is
 * known about it. Used where a field is opaque, and to generate arbitrary inputs in
 * property tests.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | JsonObject

/**
 * @since 0.1.0
 * @category models
 */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/**
 * Keys of decoded records. Effect builds decoded records (and preserved excess keys) by
 * assignment, so an own `"__proto__"` key — which `JSON.parse` can produce — sets the prototype
 * instead of surviving as data. Generated values leave that key out so round-trip properties
 * hold; see docs/schema.md for the limitation on real data.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RecordKey = Schema.String.annotations({
  arbitrary: () => (fc) => fc.string().filter((key) => key !== "__proto__")
})

/**
 * An object whose values are not described (opaque data kept as is).
 *
 * @since 0.1.0
 * @category schemas
 */
export const OpaqueObject = Schema.Record({ key: RecordKey, value: Schema.Unknown })

/**
 * Any JSON value (finite numbers only, as JSON has no NaN or Infinity).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonValue: Schema.Schema<JsonValue> = Schema.Union(
  Schema.Null,
  Schema.Boolean,
  Schema.Finite,
  Schema.String,
  Schema.Array(Schema.suspend((): Schema.Schema<JsonValue> => JsonValue)),
  Schema.Record({ key: RecordKey, value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue) })
).annotations({ identifier: "JsonValue" })

/**
 * A JSON object (not an array, not null).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: RecordKey, value: JsonValue })
  .annotations({ identifier: "JsonObject" })

/**
 * Whether a value is a plain object (a JSON object: not null, not an array); `JsonGuards`, which
 * readers without Effect import.
 *
 * @since 0.1.0
 * @category guards
 */
export { isObject } from "./JsonGuards.js"
