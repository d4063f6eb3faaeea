/**
 * The sessions list the page reads, kept by the server: built once, off the event loop (a config
 * directory's listing runs in a worker thread: `configListing.ts`), then answered from memory a
 * page at a time (`GET /api/sessions?offset=&limit=`), filtered on the server.
 *
 * Freshness: a build replaces the kept list when it ends. `refresh(false)` joins a build under
 * way (or starts one); `refresh(true)` waits for a build that started after the call, so what was
 * written before it is in. A page opening asks for one (its event stream does), and is told when
 * the list it gives differs from the kept one (`version` moved: the page reads its rows again);
 * over a store each clock move asks for a strict one before the page is told.
 * Until the first build ends, the first request waits for it; no request ever waits on a read in
 * the server's thread.
 *
 * Filters compare what the request is shown: with masking on (the default), the masked title,
 * prompt, `cwd`, branch, project key and origin, so words never find a masked secret.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"

/**
 * What a build gives: the rows, newest first, the origins by `projectKey/sessionId`, and a
 * fingerprint of both when the source computes one (a build told the kept one's gives none
 * when it is the same).
 */
export interface Listing {
  readonly rows: ReadonlyArray<UiApi.SessionRow>
  readonly origins: ReadonlyMap<string, StatsReport.Origin>
  readonly fingerprint?: string | undefined
}

// The list as a request is shown it (masked or not): each row's origin, project key, and (once a
// request has words) its search text.
interface View {
  readonly origins: ReadonlyArray<StatsReport.Origin>
  readonly projectKeys: ReadonlyArray<string>
  text?: ReadonlyArray<string>
}

/** A kept list with what every page of it shares. */
export interface Snapshot {
  readonly listing: Listing
  readonly projects: ReadonlyArray<UiApi.ProjectRow>
  readonly machines: ReadonlyArray<string>
  readonly users: ReadonlyArray<string>
  readonly views: Map<boolean, View>
}

const distinct = (values: Iterable<string>) => [...new Set(values)].sort()

const snapshotOf = (listing: Listing): Snapshot => {
  const origins = listing.rows.map((row) => SessionList.originOf(row, listing.origins))
  return {
    listing,
    projects: SessionList.projectRows(listing.rows),
    machines: distinct(origins.map((origin) => origin.machine)),
    users: distinct(origins.map((origin) => origin.user)),
    views: new Map()
  }
}

const viewOf = (snapshot: Snapshot, masked: boolean): View => {
  let view = snapshot.views.get(masked)
  if (view === undefined) {
    const show = SecretMask.shown(masked)
    const { origins, rows } = snapshot.listing
    view = {
      origins: rows.map((row) => show(SessionList.originOf(row, origins))),
      projectKeys: rows.map((row) => show(row.projectKey))
    }
    snapshot.views.set(masked, view)
  }
  return view
}

const searchTexts = (snapshot: Snapshot, view: View, masked: boolean): ReadonlyArray<string> => {
  if (view.text === undefined) {
    const show = SecretMask.shown(masked)
    view.text = snapshot.listing.rows.map((row) => SessionList.searchText(show(row)))
  }
  return view.text
}

// Whether row `i` passes the query's filters, as the request is shown the list.
const matcher = (snapshot: Snapshot, query: SessionList.ListQuery, masked: boolean) => {
  const view = viewOf(snapshot, masked)
  const words = SessionList.wordsOf(query.q)
  const texts = words.length === 0 ? undefined : searchTexts(snapshot, view, masked)
  const { machine, project, projectId, user } = query
  return (i: number): boolean => {
    const origin = view.origins[i]!
    return (project === "" || view.projectKeys[i] === project) &&
      (projectId === "" || origin.project === projectId) &&
      (machine === "" || origin.machine === machine) && (user === "" || origin.user === user) &&
      (texts === undefined || words.every((word) => texts[i]!.includes(word)))
  }
}

const filtered = (query: SessionList.ListQuery) =>
  query.q.trim() !== "" || query.project !== "" || query.projectId !== "" || query.machine !== "" ||
  query.user !== ""

/** The page of `snapshot` a query asks for, and how many rows match it (unmasked: the response is). */
export const pageOf = (
  snapshot: Snapshot,
  query: SessionList.ListQuery,
  masked: boolean
): { readonly rows: Array<UiApi.SessionRow>; readonly matched: number } => {
  const all = snapshot.listing.rows
  const end = query.limit === undefined ? Number.POSITIVE_INFINITY : query.offset + query.limit
  if (!filtered(query)) return { rows: all.slice(query.offset, end), matched: all.length }
  const matches = matcher(snapshot, query, masked)
  const rows: Array<UiApi.SessionRow> = []
  let matched = 0
  for (let i = 0; i < all.length; i++) {
    if (!matches(i)) continue
    if (matched >= query.offset && matched < end) rows.push(all[i]!)
    matched++
  }
  return { rows, matched }
}

// Whether two listings hold the same rows (a build that found nothing new tells no page).
const sameRows = (a: ReadonlyArray<UiApi.SessionRow>, b: ReadonlyArray<UiApi.SessionRow>) =>
  a.length === b.length && a.every((row, i) => ListingRows.FIELDS.every((field) => row[field] === b[i]![field]))

/** The kept list. */
export interface SessionsList {
  /** The kept list; while there is none, the first build's. */
  readonly current: Effect.Effect<Snapshot, unknown>
  /** The list of a build under way or started now (`strict`: one started after this call). */
  readonly refresh: (strict: boolean) => Effect.Effect<Snapshot, unknown>
  /** How many times a build has replaced the kept list with different rows. */
  readonly version: () => number
}

// A run of `listing` as a promise that rejects with its error as it is (its message is the 500's).
const runOf = (listing: (unless: string | undefined) => Effect.Effect<Listing | undefined, unknown>) =>
(
  unless: string | undefined
): Promise<Listing | undefined> =>
  Effect.runPromiseExit(listing(unless)).then((exit) =>
    Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))
  )

/** A list kept from the runs of `listing` (one at a time). */
export const make = (
  listing: (unless: string | undefined) => Effect.Effect<Listing | undefined, unknown>
): SessionsList => {
  const build = runOf(listing)
  let kept: Snapshot | undefined
  let running: Promise<Snapshot> | undefined
  let queued: Promise<Snapshot> | undefined
  let version = 0
  const start = (): Promise<Snapshot> => {
    const run = build(kept?.listing.fingerprint).then((listing) => {
      // the same as the kept one
      if (listing === undefined && kept !== undefined) return kept
      if (listing === undefined) return Promise.reject(new Error("the list was not built"))
      const snapshot = snapshotOf(listing)
      const changed = kept !== undefined && !sameRows(kept.listing.rows, listing.rows)
      kept = snapshot
      if (changed) version++
      return snapshot
    })
    running = run
    const done = () => {
      if (running === run) running = undefined
    }
    run.then(done, done)
    return run
  }
  const refresh = (strict: boolean): Promise<Snapshot> => {
    if (running === undefined) return start()
    if (!strict) return running
    // one build after the one under way serves every strict call made meanwhile
    queued ??= running.then(() => undefined, () => undefined).then(() => {
      queued = undefined
      return refresh(false)
    })
    return queued
  }
  return {
    current: Effect.tryPromise({
      try: () => kept !== undefined ? Promise.resolve(kept) : refresh(false),
      catch: (cause) => cause
    }),
    refresh: (strict) => Effect.tryPromise({ try: () => refresh(strict), catch: (cause) => cause }),
    version: () => version
  }
}
