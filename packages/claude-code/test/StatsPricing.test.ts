/**
 * `StatsPricing.load`, the one loader of `$ACX_HOME/pricing.json` (no Effect: the CLI's plain
 * readers and `TranscriptStats.loadPricing` both call it): a missing file is the built-in table, a
 * valid one is applied (the same table `PricingFile.decode` makes), a broken or unreadable one is
 * refused, and `loadPricing` types each refusal as it always did.
 */
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Pricing from "@acx/convert/Pricing"
import * as PricingFile from "@acx/convert/PricingFile"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-stats-pricing-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const reasonOf = (file: string) =>
  Effect.runPromise(Effect.flip(TranscriptStats.loadPricing(file))).then((error) => error.reason)

describe("StatsPricing", () => {
  it("loads the built-in table without a file, applies a valid one, refuses the rest with their reason", async () => {
    const file = path.join(dir, "pricing.json")
    expect(StatsPricing.load(file)).toEqual({ _tag: "Table", table: Pricing.builtinPricing })
    fs.writeFileSync(file, JSON.stringify({ models: { "claude-opus-4-1": { input: 1, output: 2 } } }))
    const loaded = StatsPricing.load(file)
    if (loaded._tag !== "Table") throw new Error(loaded._tag)
    expect(loaded.table.source).toBe(`${Pricing.builtinPricing.source}; ${file} for claude-opus-4-1`)
    expect(Pricing.ratesFor(loaded.table, "claude-opus-4-1")).toEqual({
      input: 1,
      output: 2,
      cacheWrite5m: 1.25,
      cacheWrite1h: 2,
      cacheRead: 0.1,
      webSearch: Pricing.WEB_SEARCH
    })
    // the same table as the Schema's decoder makes of the same text
    expect(PricingFile.decode(Pricing.builtinPricing, fs.readFileSync(file, "utf8"), file)).toEqual(
      Either.right(loaded.table)
    )
    fs.writeFileSync(file, "{ not json")
    expect(StatsPricing.load(file)).toMatchObject({ _tag: "Invalid" })
    expect(await reasonOf(file)).toBe("InvalidJson")
    fs.writeFileSync(file, JSON.stringify({ models: { x: { input: -1, output: 2 } } }))
    expect(StatsPricing.load(file)).toMatchObject({ _tag: "Invalid" })
    expect(await reasonOf(file)).toBe("InvalidShape")
    fs.rmSync(file)
    fs.mkdirSync(file)
    expect(StatsPricing.load(file)).toMatchObject({ _tag: "Unreadable" })
    expect(await reasonOf(file)).toBe("Unreadable")
    // and through the service: the same table
    fs.rmSync(file, { recursive: true })
    fs.writeFileSync(file, JSON.stringify({ models: { "claude-opus-4-1": { input: 1, output: 2 } } }))
    expect(await Effect.runPromise(TranscriptStats.loadPricing(file))).toEqual(
      (StatsPricing.load(file) as { readonly table: Pricing.PricingTable }).table
    )
  })
})
