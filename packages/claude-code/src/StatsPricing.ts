/**
 * The prices `acx stats` uses, loaded without Effect: the built-in table, with the user's pricing
 * file (`$ACX_HOME/pricing.json`) applied when it exists and `@acx/convert/UserPricing` takes it.
 * The one loader, whichever way a command starts: `TranscriptStats.loadPricing` wraps it and types
 * its refusals (a refused shape worded by `PricingFile`'s Schema); the CLI's readers that start
 * without Effect call it as is.
 *
 * @since 0.4.0
 */
import { builtinPricing, type PricingTable } from "@acx/convert/Pricing"
import * as UserPricing from "@acx/convert/UserPricing"
import * as fs from "node:fs"

/**
 * What loading the file gave: the table; a file that cannot be read (and why, in words); or the
 * `text` of a file refused as not JSON or not of the shape (`PricingFile.decode` words why).
 *
 * @since 0.4.0
 * @category models
 */
export type Loaded =
  | { readonly _tag: "Table"; readonly table: PricingTable }
  | { readonly _tag: "Unreadable"; readonly description: string }
  | { readonly _tag: "Invalid"; readonly text: string }

/**
 * The prices: the built-in table with the pricing file `file` applied when it exists.
 *
 * @since 0.4.0
 * @category pricing
 */
export const load = (file: string): Loaded => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return { _tag: "Table", table: builtinPricing }
    return { _tag: "Unreadable", description: `${file}: cannot be read (${(cause as Error).message})` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { _tag: "Invalid", text }
  }
  const models = UserPricing.modelsOf(json)
  return models === undefined
    ? { _tag: "Invalid", text }
    : { _tag: "Table", table: UserPricing.withModels(builtinPricing, file, models) }
}
