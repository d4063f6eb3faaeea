/**
 * How the `acx memory` commands read a date and show an amount of the memory's spend.
 */
import * as Effect from "effect/Effect"
import { invalidArgument } from "../CliError.js"

/** A date option (`YYYY-MM-DD`, midnight UTC, or an ISO time) in epoch ms; else one usage line. */
export const parseDate = (text: string) => {
  const value = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
  return Number.isNaN(value)
    ? Effect.fail(invalidArgument(`"${text}" is not a date (YYYY-MM-DD or an ISO time)`))
    : Effect.succeed(value)
}

/** The memory's spend: four decimals under a dollar (an observer call costs fractions of a cent). */
export const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`
