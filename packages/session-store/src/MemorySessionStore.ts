/**
 * The in-memory {@link SessionStore.SessionStore} adapter: for tests, demos and short-lived
 * processes. It honours the whole contract, including what the SDK's own
 * `InMemorySessionStore` leaves out:
 * - `uuid` is an idempotency key per key: an entry whose `uuid` is already stored under the key
 *   (or repeated earlier in the same batch) is skipped; entries without a string `uuid` are
 *   always kept;
 * - `append(key, [])`, and a batch made only of already-stored entries, change nothing: no key
 *   is created (`load` stays `null`) and no mtime moves;
 * - one store clock, `max(now, last + 1)`, strictly increasing across the whole store; a main
 *   append sets the session's `listSessions` mtime and its summary mtime to the same value, a
 *   subkey append moves only that subkey's mtime;
 * - summaries are folded with the SDK's `foldSessionSummary` over the entries actually stored,
 *   so a summary always equals a fresh fold over `load`;
 * - invalid keys and entries fail with a typed {@link SessionStore.SessionStoreError};
 * - entries are stored as deep copies (`structuredClone`) and `load` hands out copies, so
 *   callers mutating their objects never change stored data;
 * - retention (`deleteOlderThan`) measures a session by the newest mtime of any of its keys.
 *
 * The clock is Effect's `Clock`, so `TestClock` drives it in tests.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { firstOfEachUuid, uuidOf } from "./internal/entryUuids.js"
import * as SessionStore from "./SessionStore.js"

interface KeyData {
  readonly entries: Array<SessionStore.SessionStoreEntry>
  readonly uuids: Set<string>
  mtime: number
}

interface SessionData {
  main: KeyData | undefined
  readonly subkeys: Map<string, KeyData>
  summary: SessionStore.SessionSummaryEntry | undefined
}

const copy = <A>(operation: string, value: A): Effect.Effect<A, SessionStore.SessionStoreError> =>
  Effect.try({
    try: () => structuredClone(value),
    catch: (cause) =>
      new SessionStore.SessionStoreError({
        reason: "InvalidEntry",
        operation,
        description: `entries must be plain JSON data: ${String(cause)}`,
        cause
      })
  })

const newestMtime = (session: SessionData): number => {
  let mtime = session.main?.mtime ?? Number.NEGATIVE_INFINITY
  for (const data of session.subkeys.values()) mtime = Math.max(mtime, data.mtime)
  return mtime
}

/** projectKey → sessionId → the session's keys and summary. */
type Projects = Map<string, Map<string, SessionData>>

const sessionOf = (projects: Projects, projectKey: string, sessionId: string): SessionData | undefined =>
  projects.get(projectKey)?.get(sessionId)

const keyDataOf = (projects: Projects, key: SessionStore.SessionKey): KeyData | undefined => {
  const session = sessionOf(projects, key.projectKey, key.sessionId)
  if (session === undefined) return undefined
  return key.subpath === undefined ? session.main : session.subkeys.get(key.subpath)
}

/** The session of `key`, created (with its project) when missing. */
const sessionFor = (projects: Projects, key: SessionStore.SessionKey): SessionData => {
  let project = projects.get(key.projectKey)
  if (project === undefined) {
    project = new Map()
    projects.set(key.projectKey, project)
  }
  let session = project.get(key.sessionId)
  if (session === undefined) {
    session = { main: undefined, subkeys: new Map(), summary: undefined }
    project.set(key.sessionId, session)
  }
  return session
}

/** Adds `stored` under `key` at `mtime` (the key created when missing), with the main key's new summary. */
const storeEntries = (
  projects: Projects,
  key: SessionStore.SessionKey,
  stored: ReadonlyArray<SessionStore.SessionStoreEntry>,
  mtime: number,
  summary: SessionStore.SessionSummaryEntry | undefined
): void => {
  const session = sessionFor(projects, key)
  let data = key.subpath === undefined ? session.main : session.subkeys.get(key.subpath)
  if (data === undefined) {
    data = { entries: [], uuids: new Set(), mtime }
    if (key.subpath === undefined) session.main = data
    else session.subkeys.set(key.subpath, data)
  }
  data.entries.push(...stored)
  for (const entry of stored) {
    const uuid = uuidOf(entry)
    if (uuid !== undefined) data.uuids.add(uuid)
  }
  data.mtime = mtime
  if (summary !== undefined) session.summary = summary
}

/** Removes a key; the main key takes its whole session (summary and subkeys) with it. */
const removeKey = (projects: Projects, key: SessionStore.SessionKey): void => {
  const project = projects.get(key.projectKey)
  const session = project?.get(key.sessionId)
  if (project === undefined || session === undefined) return
  if (key.subpath === undefined) {
    session.main = undefined
    session.summary = undefined
    session.subkeys.clear()
  } else {
    session.subkeys.delete(key.subpath)
  }
  if (session.main === undefined && session.subkeys.size === 0 && session.summary === undefined) {
    project.delete(key.sessionId)
    if (project.size === 0) projects.delete(key.projectKey)
  }
}

/** Removes the sessions (of one project, or all) whose newest key is older than `cutoff`; how many. */
const removeOlderThan = (projects: Projects, cutoff: number, projectKey: string | undefined): number => {
  let deleted = 0
  const projectKeys = projectKey === undefined ? Array.from(projects.keys()) : [projectKey]
  for (const key of projectKeys) {
    const project = projects.get(key)
    if (project === undefined) continue
    for (const [sessionId, session] of Array.from(project)) {
      if (newestMtime(session) < cutoff) {
        project.delete(sessionId)
        deleted++
      }
    }
    if (project.size === 0) projects.delete(key)
  }
  return deleted
}

/**
 * Creates an empty store. Each call gives an independent store with its own clock.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<SessionStore.SessionStore> = Effect.gen(function*() {
  const projects: Projects = new Map()
  let lastMtime = 0
  const lock = yield* Effect.makeSemaphore(1)
  const serialized = lock.withPermits(1)

  const nextMtime = Effect.map(Clock.currentTimeMillis, (now) => {
    lastMtime = Math.max(now, lastMtime + 1)
    return lastMtime
  })

  const append = (
    rawKey: SessionStore.SessionKey,
    rawEntries: ReadonlyArray<SessionStore.SessionStoreEntry>
  ): Effect.Effect<void, SessionStore.SessionStoreError> =>
    Effect.gen(function*() {
      const key = yield* SessionStore.validateKey("append", rawKey)
      const validated = yield* SessionStore.validateEntries("append", rawEntries)
      if (validated.length === 0) return
      const entries = yield* copy("append", validated)
      yield* serialized(Effect.gen(function*() {
        const stored = firstOfEachUuid(entries, keyDataOf(projects, key)?.uuids)
        if (stored.length === 0) return
        const mtime = yield* nextMtime
        // Fold before any mutation, so a failing fold leaves the store untouched.
        const summary = SessionStore.isMainKey(key)
          ? yield* SessionStore.foldSummary(
            sessionOf(projects, key.projectKey, key.sessionId)?.summary,
            key,
            stored,
            mtime
          )
          : undefined
        storeEntries(projects, key, stored, mtime, summary)
      }))
    })

  const load = (
    rawKey: SessionStore.SessionKey
  ): Effect.Effect<Array<SessionStore.SessionStoreEntry> | null, SessionStore.SessionStoreError> =>
    Effect.flatMap(SessionStore.validateKey("load", rawKey), (key) => {
      const data = keyDataOf(projects, key)
      return data === undefined ? Effect.succeed(null) : copy("load", data.entries)
    })

  const listSessions = (
    projectKey: string
  ): Effect.Effect<Array<SessionStore.SessionListing>, SessionStore.SessionStoreError> =>
    Effect.sync(() => {
      const listings: Array<SessionStore.SessionListing> = []
      for (const [sessionId, session] of projects.get(projectKey) ?? []) {
        if (session.main !== undefined) listings.push({ sessionId, mtime: session.main.mtime })
      }
      return listings
    })

  const listSessionSummaries = (
    projectKey: string
  ): Effect.Effect<Array<SessionStore.SessionSummaryEntry>, SessionStore.SessionStoreError> =>
    Effect.suspend(() => {
      const summaries: Array<SessionStore.SessionSummaryEntry> = []
      for (const session of projects.get(projectKey)?.values() ?? []) {
        if (session.summary !== undefined) summaries.push(session.summary)
      }
      return copy("listSessionSummaries", summaries)
    })

  const listSubkeys = (
    rawKey: SessionStore.MainSessionKey
  ): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
    Effect.map(SessionStore.validateKey("listSubkeys", rawKey), (key) => {
      const session = sessionOf(projects, key.projectKey, key.sessionId)
      return session === undefined ? [] : Array.from(session.subkeys.keys()).sort()
    })

  return {
    append,
    load,
    listSessions,
    listSessionSummaries,
    delete: (rawKey) =>
      Effect.flatMap(
        SessionStore.validateKey("delete", rawKey),
        (key) => serialized(Effect.sync(() => removeKey(projects, key)))
      ),
    listSubkeys,
    deleteOlderThan: (cutoff, options) =>
      serialized(Effect.sync(() => removeOlderThan(projects, cutoff, options?.projectKey)))
  } satisfies SessionStore.SessionStore
})

/**
 * A fresh, empty store as a layer (each build of the layer is a new store).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SessionStore.SessionStore> = Layer.effect(SessionStore.SessionStore, make)

/**
 * A fresh, empty store for `query({ options: { sessionStore } })` and the SDK's session
 * functions: every optional `SessionStore` method, plus `deleteOlderThan`, `close()` and
 * `Symbol.asyncDispose`. Methods reject with {@link SessionStore.SessionStoreError}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createMemorySessionStore = (): SessionStore.SdkSessionStore => SessionStore.toSdk(layer)
