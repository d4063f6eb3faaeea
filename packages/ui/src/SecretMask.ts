/**
 * Secrets masked on the page: the memory's redactor's patterns (API keys, tokens, private keys,
 * `NAME_SECRET=value` lines) replaced by `[REDACTED:kind]` in text and in every string of a JSON
 * value, keys included. Unlike the memory's redactor it keeps `<private>` sections: the page
 * shows a transcript as written, only its secrets hidden. Masking is on unless a view turns it
 * off (`?mask=0`).
 *
 * @since 0.1.0
 */
import * as Redact from "@acx/convert/Redact"

/**
 * Text with its secrets masked.
 *
 * @since 0.1.0
 * @category masking
 */
export const maskText: (text: string) => string = Redact.redactSecrets

/**
 * A JSON value with every string (and key) masked; the structure is kept, so masked JSON is
 * still the same JSON with secrets replaced. Deeper than 64 levels is cut to a marker.
 *
 * @since 0.1.0
 * @category masking
 */
export const maskValue = (input: unknown): unknown => Redact.mapStrings(input, maskText)

/**
 * Whether a request asked for masking (the default) or turned it off with `mask=0`
 * (`mask=false` and `mask=off` too).
 *
 * @since 0.1.0
 * @category masking
 */
export const maskingOn = (params: URLSearchParams): boolean => {
  const value = params.get("mask")
  return value === null || !["0", "false", "off", "no"].includes(value.toLowerCase())
}
