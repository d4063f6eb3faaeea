/**
 * The transcripts of a session store (`acx ui --from`): `StoreProjects` as the session index
 * and listings, `StoreStats` for the figures, and each stored transcript read as entries. A
 * store keeps entries, not bytes, so a transcript's cursor is an entry index: line `n` is the
 * `n`-th stored entry, `end` the number read. A subagent's `agent_metadata` sidecar keeps its
 * place in the numbering but shows nothing, as `StoreProjects` reads it.
 *
 * Live: the store clock's moves (`storeClock.ts`, one follower shared by every page) make each
 * followed session compare its catalog `mtime` (the last append to any of its transcripts);
 * only a session that moved is read again. The list hears the moves, and, over a store whose
 * listening connection was lost, that it is reconnecting.
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as StoreStats from "@acx/claude-code/StoreStats"
import type * as SessionItem from "@acx/convert/SessionItem"
import * as AcxHome from "@acx/environment/AcxHome"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as RcRef from "effect/RcRef"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { foldedUsage, usageJson } from "./sessionUsage.js"
import { clockMoves } from "./storeClock.js"
import type { LinesChunk, ReadOptions } from "./transcriptLines.js"
import type { Signal, Transcript, TranscriptSource } from "./transcriptSource.js"

/** The store the page reads, as `acx ui --from` opened it. */
export interface StoreSourceOptions {
  readonly store: SessionStore.SessionStore & StoreCatalog.WithCatalog
  /** How it is named (`DatabaseSpec.display`: no password). */
  readonly location: string
  /**
   * The SQLite file under it, watched for changes; none (Postgres): the store's notifications
   * (`StoreCatalog.changes`) say when, else the clock is polled.
   */
  readonly file?: string | undefined
  /** `$ACX_HOME`: the statistics cache. */
  readonly acxHome: string
}

// Entries per chunk of a first read: the page paints the first ones before the rest arrive.
const CHUNK_ENTRIES = 200

const encoder = new TextEncoder()

/** The fold's input for a stored entry at index `i`: the entry, a malformed one, or nothing (a sidecar). */
const inputOf = (value: unknown, i: number): SessionItem.Input | undefined => {
  const decoded = TranscriptLine.decodeValue(value, i + 1)
  if (Either.isLeft(decoded)) return { line: i + 1, malformed: decoded.left.message }
  return decoded.right.type === StoreProjects.AGENT_METADATA ? undefined : { line: i + 1, entry: value }
}

/** Stored entries `[from, until)` as the chunks a file's lines come in. */
export const entryChunks = (stored: ReadonlyArray<unknown>, options: ReadOptions): Array<LinesChunk> => {
  const until = Math.min(options.until ?? stored.length, stored.length)
  const chunks: Array<LinesChunk> = []
  for (let start = options.from; start < until; start += CHUNK_ENTRIES) {
    const end = Math.min(until, start + CHUNK_ENTRIES)
    const inputs: Array<SessionItem.Input> = []
    for (let i = start; i < end; i++) {
      const input = inputOf(stored[i], i)
      if (input !== undefined) inputs.push(input)
    }
    chunks.push({ inputs, end, lines: end })
  }
  return chunks
}

const storeTranscript = (options: StoreSourceOptions, key: SessionStore.SessionKey): Transcript => {
  const { store } = options
  // The last load, kept while the store clock has not moved: a live reader asks for the extent
  // and then the new entries, one load for both.
  let kept: { readonly clock: number; readonly entries: ReadonlyArray<unknown> | null } | undefined
  const entries = Effect.gen(function*() {
    const clock = yield* store.catalog.clock()
    if (kept !== undefined && kept.clock === clock) return kept.entries
    const loaded = yield* store.load(key)
    kept = { clock, entries: loaded }
    return loaded
  })
  return {
    id: StoreProjects.locationOf(options.location, key),
    lines: (read) => Stream.unwrap(Effect.map(entries, (all) => Stream.fromIterable(entryChunks(all ?? [], read)))),
    extent: Effect.map(
      entries,
      (all) => all === null ? Option.none() : Option.some({ end: all.length, identity: undefined })
    ),
    line: (n) =>
      Effect.map(entries, (all) => {
        if (all === null || !Number.isSafeInteger(n) || n < 1 || n > all.length) return Option.none()
        const bytes = encoder.encode(JSON.stringify(all[n - 1]))
        return Option.some({ size: bytes.length, bytes: Stream.make(bytes) })
      })
  }
}

/**
 * A lost connection as `reconnecting`, and its return as `changed` whether or not the clock
 * moved meanwhile (the list says it is live again); other signals are the clock's moves' business.
 */
const reconnections = (
  signals: Stream.Stream<"changed" | "lost">
): Stream.Stream<"changed" | "reconnecting"> =>
  signals.pipe(
    Stream.mapAccum(false, (lost, signal): readonly [boolean, Option.Option<"changed" | "reconnecting">] =>
      signal === "lost"
        ? [true, Option.some("reconnecting")]
        : [false, lost ? Option.some("changed") : Option.none()]),
    Stream.filterMap((change) =>
      change
    )
  )

/** The store as the page's source; the clock's follower lives (while followed) in the scope. */
export const storeSource = (options: StoreSourceOptions): Effect.Effect<TranscriptSource, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { location, store } = options
    const projects = StoreProjects.make({ store, location })
    // one follower for every page and list; it stops a while after the last one goes. Over a
    // store that announces its clock (Postgres), one listening connection serves both the moves
    // and the list's `reconnecting`.
    const shared = { capacity: 16, strategy: "sliding", idleTimeToLive: "5 seconds" } as const
    const signals = store.catalog.changes === undefined
      ? undefined
      : yield* Stream.share(store.catalog.changes, shared)
    // The follower's clock is read before a subscriber's first look, and the subscriber is
    // subscribed before it looks: an append after that look moves the clock past a value the
    // follower has read, and the move reaches the subscriber. (A shared stream subscribes when it
    // starts to run, and a fresh follower read its start when its fiber first ran: an append
    // between a session's first look and either was seen by nobody, the page stayed behind.)
    const follower = yield* RcRef.make({
      acquire: Effect.gen(function*() {
        const from = Option.getOrUndefined(yield* Effect.option(store.catalog.clock()))
        return yield* Stream.toPubSub(clockMoves(store.catalog.clock(), { file: options.file, signals, from }), {
          capacity: shared.capacity,
          strategy: shared.strategy
        })
      }),
      idleTimeToLive: shared.idleTimeToLive
    })
    /** The follower's moves from now on: subscribed when this (scoped) effect returns. */
    const subscribe = Effect.map(
      Effect.flatMap(RcRef.get(follower), PubSub.subscribe),
      (moves) => Stream.flattenTake(Stream.fromQueue(moves))
    )
    const moves = Stream.unwrapScoped(subscribe)
    // the folds kept between requests (the costs page and the list's usage fold every session)
    const memo = StoreStats.makeMemo()
    const mtimeOf = (projectKey: string, sessionId: string) =>
      Effect.map(store.catalog.listSessions({ projectKey, sessionId }), (rows) => rows[0]?.mtime)
    const watch: TranscriptSource["watch"] = (session) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const moves = yield* subscribe
        let last = yield* Effect.option(mtimeOf(session.projectKey, session.sessionId))
        const changed = moves.pipe(
          Stream.mapEffect(() => Effect.option(mtimeOf(session.projectKey, session.sessionId))),
          Stream.flatMap((now): Stream.Stream<Signal> => {
            if (Option.isNone(now) || (Option.isSome(last) && last.value === now.value)) return Stream.empty
            last = now
            return Stream.make<Array<Signal>>("transcript", "subagents")
          })
        )
        // entries appended before the watch was set
        return Stream.concat(Stream.make<Array<Signal>>("transcript"), changed)
      }))
    const foldStats: TranscriptSource["foldStats"] = (scope, pricing) =>
      StoreStats.foldStats({
        store,
        location,
        projectKey: scope.projectKey,
        sessionId: scope.sessionId,
        pricing,
        cacheDir: AcxHome.paths(options.acxHome).cache,
        memo
      })
    return {
      kind: "store",
      projects,
      location,
      transcript: (session, agent) =>
        Effect.gen(function*() {
          const main = { projectKey: session.projectKey, sessionId: session.sessionId }
          if (agent === null) return Option.some(storeTranscript(options, main))
          const subpaths = yield* store.listSubkeys(main).pipe(Effect.mapError(StoreProjects.storeError("transcript")))
          const subpath = subpaths.find((candidate) => StoreProjects.agentIdOf(candidate) === agent)
          return Option.map(Option.fromNullable(subpath), (found) =>
            storeTranscript(options, { ...main, subpath: found }))
        }),
      foldStats,
      usage: (masked) => Effect.map(foldedUsage(foldStats, options.acxHome), (usage) => usageJson(usage, masked)),
      // through the store's own reads: a hub's row-level security applies to them as to the rest
      origins: StatsOrigins.ofStore(store),
      listing: () =>
        Effect.map(
          Effect.all([projects.listSessions(), StatsOrigins.ofStore(store)], { concurrency: 2 }),
          ([listed, origins]) => ({ rows: SessionListing.rows(listed, origins), origins })
        ),
      watch,
      listChanges: Stream.merge(
        Stream.as(moves, "changed" as const),
        signals === undefined ? Stream.empty : reconnections(signals)
      )
    } satisfies TranscriptSource
  })
