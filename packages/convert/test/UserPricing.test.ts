/**
 * `UserPricing`, the rules of `$ACX_HOME/pricing.json` without Effect (the one loader,
 * `@acx/claude-code/StatsPricing`, applies them): it accepts exactly the files the `PricingFile`
 * Schema accepts and makes the same table from them.
 */
import * as Pricing from "@acx/convert/Pricing"
import * as PricingFile from "@acx/convert/PricingFile"
import * as UserPricing from "@acx/convert/UserPricing"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

const decodeSchema = Schema.decodeUnknownEither(PricingFile.PricingFile, { onExcessProperty: "error" })

const rate = fc.oneof(
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.constantFrom(-1, -0, 0, Number.POSITIVE_INFINITY, Number.NaN, 1e300),
  fc.constantFrom("1", null, true, [], {})
)
const rowKey = fc.constantFrom("input", "output", "cacheWrite5m", "cacheWrite1h", "cacheRead", "webSearch", "extra")
const row = fc.oneof(
  fc.dictionary(rowKey, rate, { maxKeys: 7 }),
  fc.record({ input: rate, output: rate }),
  fc.record({ input: rate, output: rate, cacheRead: rate, webSearch: rate }, { requiredKeys: ["input", "output"] }),
  fc.jsonValue({ maxDepth: 1 })
)
const modelId = fc.oneof(
  fc.constantFrom("", "claude-opus-4-1", "Claude-Sonnet-4-5", "x", "__proto__", "constructor"),
  fc.string({ maxLength: 6 })
)
const models = fc.oneof(fc.dictionary(modelId, row, { maxKeys: 4 }), fc.array(row, { maxLength: 2 }), fc.jsonValue())
const file = fc.oneof(
  fc.record({ models }),
  fc.record({ models, other: fc.jsonValue() }),
  fc.array(models, { maxLength: 1 }),
  fc.jsonValue({ maxDepth: 2 })
)

describe("UserPricing", () => {
  it("accepts exactly what the PricingFile Schema accepts, and makes the same table", () => {
    fc.assert(
      fc.property(file, (json) => {
        const plain = UserPricing.modelsOf(json)
        const schema = decodeSchema(json)
        expect(plain !== undefined, JSON.stringify(json)).toBe(Either.isRight(schema))
        if (plain !== undefined && Either.isRight(schema)) {
          expect(UserPricing.withModels(Pricing.builtinPricing, "f", plain)).toEqual(
            UserPricing.withModels(Pricing.builtinPricing, "f", schema.right.models)
          )
        }
      }),
      { numRuns: 2000 }
    )
  })
})
