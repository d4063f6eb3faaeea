/**
 * The JSON text an entry is stored as. A store's append encodes each entry with `JSON.stringify`
 * unless the entry's text is known already: an importer that parsed the entry from a line, and
 * whose masking gave the same object back (nothing to mask), hands the line over with
 * {@link remember}, and both SQL stores' appends write that line as it is, so a sync does not
 * encode again the gigabytes it has just parsed. A line is taken only when it encodes exactly the
 * value parsed from it: it writes no key twice in one object (`JSON.parse` keeps the last of
 * them, so the value of the first, which masking never saw, would be stored in the text).
 *
 * The text is what a reader parses back; it may differ from `JSON.stringify`'s in spacing and in
 * how a number is written, never in the value. The SDK's `append` is unchanged: an entry nobody
 * remembered a text for is encoded as before. A remembered entry must not be changed afterwards.
 *
 * @since 0.5.0
 */
import { membersWritten } from "@acx/schema/JsonDepth"
import type * as SessionStore from "./SessionStore.js"

const texts = new WeakMap<object, string>()

// Own keys of every object in a parsed JSON value (its depth is bounded: `JsonDepth`).
const membersOf = (value: unknown): number => {
  if (typeof value !== "object" || value === null) return 0
  let members = 0
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) members += membersOf(value[i])
    return members
  }
  for (const key of Object.keys(value)) members += 1 + membersOf((value as Record<string, unknown>)[key])
  return members
}

/**
 * Remembers `text`, the line `entry` was parsed from, as the entry's stored text when it encodes
 * exactly the entry (no key written twice); whether it did. `entry` must be `JSON.parse(text)`
 * itself, and stay unchanged.
 *
 * @since 0.5.0
 * @category encoding
 */
export const remember = (entry: SessionStore.SessionStoreEntry, text: string): boolean => {
  if (membersWritten(text) !== membersOf(entry)) return false
  texts.set(entry, text)
  return true
}

/**
 * The JSON text an append stores for `entry`: its remembered line, else `JSON.stringify(entry)`.
 *
 * @since 0.5.0
 * @category encoding
 */
export const textOf = (entry: SessionStore.SessionStoreEntry): string => texts.get(entry) ?? JSON.stringify(entry)
