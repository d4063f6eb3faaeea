import type * as SessionStore from "../SessionStore.js"

/**
 * The store entries of a JSON Lines text, as the SDK's importer reads them: each non-blank line
 * that parses to an object with a string `type`; torn, foreign or unparseable lines are skipped
 * (and counted in `skipped.lines`, when given).
 *
 * @internal
 */
export const parseEntryLines = (
  text: string,
  skipped?: { lines: number }
): Array<SessionStore.SessionStoreEntry> => {
  const entries: Array<SessionStore.SessionStoreEntry> = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    try {
      const value: unknown = JSON.parse(line)
      if (
        typeof value === "object" && value !== null && !Array.isArray(value) &&
        typeof (value as { readonly type?: unknown }).type === "string"
      ) entries.push(value as SessionStore.SessionStoreEntry)
      else if (skipped !== undefined) skipped.lines++
    } catch {
      if (skipped !== undefined) skipped.lines++
    }
  }
  return entries
}
