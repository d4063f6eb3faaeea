/**
 * An entry's `uuid` as the stores' idempotency key (the contract in `SessionStore.ts`): a
 * repeated uuid under a key is skipped, entries without a string `uuid` are always kept. The
 * memory store and the Postgres write path drop a batch's repeats with it before they store.
 */
import type * as SessionStore from "../SessionStore.js"

/** The entry's idempotency key: its `uuid` when that is a string. */
export const uuidOf = (entry: SessionStore.SessionStoreEntry): string | undefined =>
  typeof entry.uuid === "string" ? entry.uuid : undefined

/**
 * The entries of a batch to store, in order: every entry without a uuid, and the first entry of
 * each uuid that is not in `stored` (the uuids already under the key).
 */
export const firstOfEachUuid = (
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
  stored: Iterable<string> = []
): Array<SessionStore.SessionStoreEntry> => {
  const seen = new Set(stored)
  return entries.filter((entry) => {
    const uuid = uuidOf(entry)
    if (uuid === undefined) return true
    if (seen.has(uuid)) return false
    seen.add(uuid)
    return true
  })
}
