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

const MAX_DEPTH = 64

/**
 * A JSON value with every string (and key) masked; the structure is kept, so masked JSON is
 * still the same JSON with secrets replaced. Deeper than 64 levels is cut to a marker.
 *
 * @since 0.1.0
 * @category masking
 */
export const maskValue = (input: unknown, depth = 0): unknown => {
  if (typeof input === "string") return maskText(input)
  if (typeof input !== "object" || input === null) return input
  if (depth >= MAX_DEPTH) return "[REDACTED:too-deep]"
  if (Array.isArray(input)) return input.map((item) => maskValue(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(input)) {
    // defineProperty: a key named "__proto__" is data like any other
    Object.defineProperty(out, maskText(key), {
      value: maskValue(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}

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
