/**
 * Building blocks shared by the schema modules.
 *
 * @internal
 */
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
