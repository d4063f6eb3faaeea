/**
 * The search box's snippets as the page shows them: the store cuts a snippet with a mark before
 * and after each matched word ({@link OPEN}, {@link CLOSE}); the server splits it into parts, so
 * the page renders text as text and a match as a `<mark>` element, and no transcript text is ever
 * read as markup. The marks are private-use characters removed from the text before the snippet
 * is cut ({@link unmarked}): a text cannot forge a match or split one.
 *
 * @since 0.3.0
 */
import type * as UiApi from "./UiApi.js"

/**
 * Written before a matched word.
 *
 * @since 0.3.0
 * @category constants
 */
export const OPEN = "\uE000"

/**
 * Written after a matched word.
 *
 * @since 0.3.0
 * @category constants
 */
export const CLOSE = "\uE001"

const MARKS = /[\uE000\uE001]/g

/**
 * Text without the marks' characters (applied before the snippet is cut).
 *
 * @since 0.3.0
 * @category snippets
 */
export const unmarked = (text: string): string => text.replace(MARKS, "")

/**
 * A marked snippet as parts: the text between marks, each matched word a part of its own.
 * Empty parts are left out; an unclosed mark runs to the end. Total: any text gives parts whose
 * texts, joined, are the snippet without its marks.
 *
 * @since 0.3.0
 * @category snippets
 */
export const snippetParts = (snippet: string): Array<UiApi.SnippetPart> => {
  const parts: Array<UiApi.SnippetPart> = []
  let match = false
  let text = ""
  const flush = () => {
    if (text !== "") parts.push({ text, match })
    text = ""
  }
  for (const char of snippet) {
    if (char === OPEN || char === CLOSE) {
      flush()
      match = char === OPEN
    } else {
      text += char
    }
  }
  flush()
  return parts
}
