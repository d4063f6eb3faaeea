/**
 * How deeply a JSON text nests, told from the text before anything walks the value. `JSON.parse`
 * takes any depth, but what comes after does not: `JSON.stringify` (every store's append, every
 * export) and every recursive walk overflow the stack a few thousand levels down, so a single
 * hostile line could stop a whole import, on every rerun. Readers skip a line nested deeper than
 * {@link MAX_DEPTH} as malformed, and nothing after them ever meets one. The same scan counts the
 * members a text writes ({@link membersWritten}), which tells a key written twice.
 *
 * @since 0.1.0
 */

/**
 * The deepest nesting of arrays and objects a transcript line may have: far beyond anything
 * Claude Code writes (its entries nest a dozen levels; tool inputs rarely more), far below where
 * `JSON.stringify` and recursive walks overflow the stack (about 4 000 levels on Node's default
 * stack, less inside deep call chains).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 512

const QUOTE = 34
const BACKSLASH = 92
const OPEN_BRACE = 123
const OPEN_BRACKET = 91
const CLOSE_BRACE = 125
const CLOSE_BRACKET = 93

/**
 * Whether the JSON text opens more than `max` arrays or objects inside one another. Brackets
 * inside strings do not count; the text need not be valid JSON (an invalid one fails its parse
 * anyway). One pass, without recursion; the insides of strings are skipped with `indexOf`, so
 * the cost is mostly the structure, not the text.
 *
 * @since 0.1.0
 * @category depth
 */
export const exceedsDepth = (text: string, max: number = MAX_DEPTH): boolean => {
  // fewer opening brackets than the limit cannot nest deeper than it: most lines stop here,
  // after two native searches instead of a walk of every character
  if (text.length <= max || openingsAtMost(text, max)) return false
  let depth = 0
  const length = text.length
  for (let at = 0; at < length; at++) {
    const code = text.charCodeAt(at)
    if (code === QUOTE) {
      at = closingQuote(text, at)
      if (at === -1) return false
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > max) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

const COLON = 58

/**
 * How many object members a JSON text writes: its colons outside strings, every key of every
 * object counted once per time it is written (a key written twice in one object counts twice,
 * though `JSON.parse` keeps one). -1 when a string is never closed. One pass, strings skipped
 * with `indexOf` as in {@link exceedsDepth}.
 *
 * @since 0.5.0
 * @category structure
 */
export const membersWritten = (text: string): number => {
  let members = 0
  const length = text.length
  for (let at = 0; at < length; at++) {
    const code = text.charCodeAt(at)
    if (code === QUOTE) {
      at = closingQuote(text, at)
      if (at === -1) return -1
    } else if (code === COLON) {
      members++
    }
  }
  return members
}

// Whether the text holds at most `max` opening brackets (inside strings or not).
const openingsAtMost = (text: string, max: number): boolean => {
  let count = 0
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) if (++count > max) return false
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) if (++count > max) return false
  return true
}

// The index of the quote that closes the string opened at `open` (-1 when none does).
const closingQuote = (text: string, open: number): number => {
  let at = open + 1
  for (;;) {
    const close = text.indexOf("\"", at)
    if (close === -1) return -1
    let backslashes = 0
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return close
    at = close + 1
  }
}

/**
 * Why a line was refused for its depth, for warnings and line errors.
 *
 * @since 0.1.0
 * @category depth
 */
export const tooDeepDescription = (max: number = MAX_DEPTH): string =>
  `nested deeper than ${max} levels (skipped: JSON this deep cannot be stored or shown)`
