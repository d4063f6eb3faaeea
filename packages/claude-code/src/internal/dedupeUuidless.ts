/**
 * Makes an import idempotent for entries without a `uuid` too (file-history snapshots,
 * summaries, titles…): the stores dedupe by uuid only, so a second import appended those again.
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

/** @internal */
export const dedupeUuidless = (store: SessionStore.SessionStore): SessionStore.SessionStore => {
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
  return {
    ...store,
    append: (key, entries) =>
      Effect.gen(function*() {
        const counts = yield* storedUnder(key)
        const fresh = counts.size === 0 ? entries : entries.filter((entry) => {
          if (hasUuid(entry)) return true
          const text = canonical(entry)
          const n = counts.get(text) ?? 0
          if (n === 0) return true
          counts.set(text, n - 1)
          return false
        })
        if (fresh.length > 0) yield* store.append(key, fresh)
      })
  }
}
