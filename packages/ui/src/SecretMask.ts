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
export const maskText = (text: string): string => {
  if (text.length > MEMO_LONGEST) return Redact.redactSecrets(text)
  const known = memo.current.get(text) ?? memo.previous.get(text)
  if (known !== undefined) {
    if (memo.current.get(text) === undefined) remember(text, known)
    return known
  }
  const masked = Redact.redactSecrets(text)
  remember(text, masked)
  return masked
}

// The masked text of the strings masked lately: a page over a hub masks the same tens of
// thousands of strings (titles, prompts, paths, keys) at every reading of its list, and every
// pattern of the redactor runs over each. Masking is a function of the text alone, so a string
// seen before is looked up instead. Two generations: when the newer holds MEMO_CHARS characters
// it becomes the older and the oldest is dropped (a string used since moved up): at most twice
// that many characters, for strings of at most MEMO_LONGEST (a transcript's long outputs are not
// kept).
const MEMO_LONGEST = 4096
const MEMO_CHARS = 8_000_000
const memo = { current: new Map<string, string>(), previous: new Map<string, string>(), chars: 0 }

const remember = (text: string, masked: string): void => {
  if (memo.chars >= MEMO_CHARS) {
    memo.previous = memo.current
    memo.current = new Map()
    memo.chars = 0
  }
  memo.current.set(text, masked)
  memo.chars += text.length
}

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

/**
 * What a response shows, for a request that asked for masking (`on`) or not: every string of a
 * value (keys included) masked, or the value as is. Applied to each whole value a route sends —
 * a row, a header, a line of items — so a field added later is masked without anyone
 * remembering to.
 *
 * @since 0.1.0
 * @category masking
 */
export const shown = (on: boolean): <A>(value: A) => A => on ? maskAll : keep

const maskAll = <A>(value: A): A => maskValue(value) as A
const keep = <A>(value: A): A => value

/**
 * A JSON text (a transcript's raw line) masked as a value when it parses — so it stays valid
 * JSON, only its strings masked, and a secret written with escapes is found too — else as text.
 * Without a secret in it, the text comes back byte for byte.
 *
 * @since 0.1.0
 * @category masking
 */
export const maskJsonText = (text: string): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return maskText(text)
  }
  const masked = JSON.stringify(maskValue(parsed))
  return masked === JSON.stringify(parsed) ? text : masked
}
