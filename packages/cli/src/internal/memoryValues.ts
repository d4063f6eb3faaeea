/**
 * How the `acx memory` commands read a date and show an amount of the memory's spend.
 */
import * as Money from "@acx/convert/Money"
import * as Effect from "effect/Effect"
import { invalidArgument } from "../CliError.js"

/** A date option (`YYYY-MM-DD`, midnight UTC, or an ISO time) in epoch ms; else one usage line. */
export const parseDate = (text: string) => {
  const value = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
  return Number.isNaN(value)
    ? Effect.fail(invalidArgument(`"${text}" is not a date (YYYY-MM-DD or an ISO time)`))
    : Effect.succeed(value)
}

/** The memory's spend: acx's one rule for dollars (`Money.usd`, the page's too). */
export const money: (usd: number) => string = Money.usd
