/**
 * Building blocks shared by the schema modules.
 *
 * @internal
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * Unknown fields survive decoding, in their original key order.
 *
 * @internal
 */
export const preserve = { parseOptions: { onExcessProperty: "preserve", propertyOrder: "original" } } as const

/**
 * A struct that preserves unknown fields.
 *
 * @internal
 */
export const struct = <Fields extends Schema.Struct.Fields>(
  identifier: string,
  fields: Fields
): Schema.Struct<Fields> => Schema.Struct(fields).annotations({ identifier, ...preserve })

/**
 * An optional key that, when present, is never `undefined` (`exactOptionalPropertyTypes`).
 *
 * @internal
 */
export const opt = <S extends Schema.Schema.All>(self: S) => Schema.optionalWith(self, { exact: true })

/**
 * An optional, nullable key.
 *
 * @internal
 */
export const optNull = <S extends Schema.Schema.All>(self: S) =>
  Schema.optionalWith(Schema.NullOr(self), { exact: true })

/**
 * A string enum that stays open: the type lists the known values (for completion), but any
 * string decodes, so a newer SDK or CLI adding a value cannot turn a known shape into an unknown
 * one.
 *
 * @internal
 */
export const Open = <const Literals extends ReadonlyArray<string>>(
  ...literals: Literals
): Schema.Schema<Literals[number] | (string & {})> =>
  Schema.String.annotations({
    description: `one of ${literals.map((l) => JSON.stringify(l)).join(", ")}, or a newer value`,
    arbitrary: () => (fc) => fc.oneof(fc.constantFrom(...literals), fc.string())
  })

/**
 * `run`, or `onThrow` when it throws. Effect's union dispatch converts a discriminator value with
 * `String`, which throws for an object whose `toString` is not a function (`{"type":{"toString":0}}`
 * is valid JSON, and so is such a `subtype` on any entry). Every schema run on a value not checked
 * deeply first goes through here, so the functions using it stay total; such a value counts as
 * matching no schema.
 *
 * @internal
 */
export const orElse = <A>(run: () => A, onThrow: () => A): A => {
  try {
    return run()
  } catch {
    return onThrow()
  }
}

/**
 * A parse error's issues on one line: `path: message; …`.
 *
 * @internal
 */
export const formatIssues = (error: ParseResult.ParseError): string =>
  orElse(
    () =>
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        `${issue.path.join(".") || "entry"}: ${issue.message}`
      ).join("; "),
    () => "the value does not match the schema"
  )

const EXCERPT_LENGTH = 120

/**
 * The start of a text, for an error message: trimmed, at most 120 characters (then `…`).
 *
 * @internal
 */
export const excerpt = (text: string): string => {
  const trimmed = text.trim()
  return trimmed.length > EXCERPT_LENGTH ? `${trimmed.slice(0, EXCERPT_LENGTH)}…` : trimmed
}
