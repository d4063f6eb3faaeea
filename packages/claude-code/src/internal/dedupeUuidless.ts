/**
 * Makes an import idempotent for entries without a `uuid` (file-history snapshots, summaries,
 * titles…) where no import ledger says what was taken already (stores without one, files
 * rewritten in place): the stores dedupe by uuid only, so a second import appended those again.
 * Before the first append to a key in this run, the entries already stored under it are loaded;
 * each incoming uuid-less entry equal to one of them (as JSON, key order ignored) is skipped, as
 * many times as it is stored. Entries written by this run are not compared, so a transcript's own
 * repeated lines are kept.
 */
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    return `{${
      Object.keys(record).sort().filter((key) => record[key] !== undefined).map((key) =>
        `${JSON.stringify(key)}:${canonical(record[key])}`
      ).join(",")
    }}`
  }
  return JSON.stringify(value) ?? "null"
}

const hasUuid = (entry: SessionStore.SessionStoreEntry): boolean =>
  typeof entry.uuid === "string" && entry.uuid.length > 0

const keyString = (key: SessionStore.SessionKey): string =>
  JSON.stringify([key.projectKey, key.sessionId, key.subpath ?? ""])

/**
 * The filter of one import run: `(key, entries)` → the entries to store (see the module docs).
 *
 * @internal
 */
export const uuidlessFilter = (store: SessionStore.SessionStore) => {
  const stored = new Map<string, Map<string, number>>()
  const storedUnder = (key: SessionStore.SessionKey) =>
    Effect.gen(function*() {
      const id = keyString(key)
      const known = stored.get(id)
      if (known !== undefined) return known
      const counts = new Map<string, number>()
      for (const entry of (yield* store.load(key)) ?? []) {
        if (hasUuid(entry)) continue
        const text = canonical(entry)
        counts.set(text, (counts.get(text) ?? 0) + 1)
      }
      stored.set(id, counts)
      return counts
    })
  return (
    key: SessionStore.SessionKey,
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>
  ): Effect.Effect<ReadonlyArray<SessionStore.SessionStoreEntry>, SessionStore.SessionStoreError> =>
    Effect.map(storedUnder(key), (counts) =>
      counts.size === 0 ? entries : entries.filter((entry) => {
        if (hasUuid(entry)) return true
        const text = canonical(entry)
        const n = counts.get(text) ?? 0
        if (n === 0) return true
        counts.set(text, n - 1)
        return false
      }))
}

/**
 * A stable text of a JSON value (keys sorted): equal values, equal texts.
 *
 * @internal
 */
export const canonicalJson = (value: unknown): string => canonical(value)
