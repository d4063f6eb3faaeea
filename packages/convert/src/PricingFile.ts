/**
 * The user's pricing file, `$ACX_HOME/pricing.json`: models it prices are added to the built-in
 * table or replace its rows. Validated with Schema; a bad file is one `PricingError` that names
 * the file and what is wrong.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { PricingTable } from "./Pricing.js"
import * as UserPricing from "./UserPricing.js"

const Rate = Schema.Number.pipe(Schema.finite(), Schema.nonNegative())

const FileTokenRates = Schema.Struct({
  input: Rate,
  output: Rate,
  cacheWrite5m: Schema.optional(Rate),
  cacheWrite1h: Schema.optional(Rate),
  cacheRead: Schema.optional(Rate)
})

/**
 * The user's pricing file (`$ACX_HOME/pricing.json`): `{ "models": { "<model id>": { "input",
 * "output", "cacheWrite5m"?, "cacheWrite1h"?, "cacheRead"?, "webSearch"? } } }`, US dollars per
 * million tokens (per request for `webSearch`). Missing cache rates follow Anthropic's
 * multipliers of the input price: 1.25× (5-minute write), 2× (1-hour write), 0.1× (read); a
 * missing `webSearch` is $0.01.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PricingFile = Schema.Struct({
  models: Schema.Record({
    key: Schema.String.pipe(Schema.nonEmptyString()),
    value: Schema.Struct({ ...FileTokenRates.fields, webSearch: Schema.optional(Rate) })
  })
})

/**
 * Why a pricing file was refused.
 *
 * @since 0.1.0
 * @category errors
 */
export class PricingError extends Schema.TaggedError<PricingError>("@acx/convert/PricingError")("PricingError", {
  reason: Schema.Literal("Unreadable", "InvalidJson", "InvalidShape"),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.description
  }
}

/**
 * The table with a user's pricing file applied: each model of the file (by normalised id)
 * replaces or adds a row; `source` says which file. `text` is the file's contents; a file that is
 * not JSON, or not of the {@link PricingFile} shape, is one `PricingError` naming what is wrong.
 *
 * @since 0.1.0
 * @category pricing
 */
export const decode = (
  base: PricingTable,
  text: string,
  name: string
): Either.Either<PricingTable, PricingError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    return Either.left(
      new PricingError({ reason: "InvalidJson", description: `${name}: not JSON (${(cause as Error).message})` })
    )
  }
  // applied by the one loader's rules (`UserPricing`); the Schema words a refusal
  const models = UserPricing.modelsOf(json)
  if (models !== undefined) return Either.right(UserPricing.withModels(base, name, models))
  return Schema.decodeUnknownEither(PricingFile, { onExcessProperty: "error" })(json).pipe(
    Either.mapLeft((error) =>
      new PricingError({
        reason: "InvalidShape",
        description: `${name}: ${ParseResult.TreeFormatter.formatErrorSync(error).replace(/\s+/g, " ")}`
      })
    ),
    // a file the Schema takes and the loader does not: a test holds that there is none
    Either.map((file) => UserPricing.withModels(base, name, file.models))
  )
}
