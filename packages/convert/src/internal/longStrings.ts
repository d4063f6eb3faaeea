/**
 * Long transcript lines without their long strings: statistics read only short strings, so the
 * fold parses what is left (`StatsFold` re-exports these).
 *
 * @internal
 */

/**
 * Lines longer than this (characters or bytes) have their long strings skipped.
 *
 * @internal
 */
export const LONG_LINE = 4096

/**
 * Strings longer than this (characters or bytes, quotes included) are skipped in long lines.
 *
 * @internal
 */
export const LONG_STRING = 512

/**
 * The line with every JSON string longer than 512 characters replaced by `""`. Statistics read
 * only short strings (types, ids, models, names, timestamps), and most of a big transcript's
 * bytes are tool outputs and file contents: parsing them whole would cost most of the time. A
 * string is found by its unescaped closing quote (outside strings JSON has no quotes), so a valid
 * line stays valid; a line cut inside a string is returned as it is (and fails to parse).
 *
 * @internal
 */
export const withoutLongStrings = (line: string): string => {
  let out = ""
  let copied = 0
  let at = 0
  for (;;) {
    const open = line.indexOf("\"", at)
    if (open === -1) break
    let close = open + 1
    for (;;) {
      close = line.indexOf("\"", close)
      if (close === -1) return line
      let backslashes = 0
      while (line.charCodeAt(close - 1 - backslashes) === 92) backslashes++
      if (backslashes % 2 === 0) break
      close++
    }
    if (close - open + 1 > LONG_STRING) {
      out += line.slice(copied, open) + "\"\""
      copied = close + 1
    }
    at = close + 1
  }
  return copied === 0 ? line : out + line.slice(copied)
}
