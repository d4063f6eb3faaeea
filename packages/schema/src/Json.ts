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
  Schema.Record({ key: Schema.String, value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue) })
).annotations({ identifier: "JsonValue" })

/**
 * A JSON object (not an array, not null).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: JsonValue })
  .annotations({ identifier: "JsonObject" })

/**
 * Whether a value is a plain object (a JSON object: not null, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)
