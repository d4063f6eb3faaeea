/**
 * Every read and write the memory's callers need (the `acx ui` page's lists, counts, session
 * detail, live feed, forget and restore; the admin status; search; the demo's report and the
 * seeding of test databases; the worker's queue), as ONE service whose rows are `MemoryRows`.
 * Callers outside `@acx/memory` go through it and never name a table. The interface holds no
 * backend type: {@link make} is the SQLite implementation (over an `@effect/sql` client on the
 * database `MemoryDatabase` opens and migrates), and a Postgres one (the team memory) provides
 * the same operations with its own statements.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reads from "./internal/sqliteReads.js"
import * as MemoryAdmin from "./MemoryAdmin.js"
import type { LoadedConfig, MemoryPaths } from "./MemoryConfig.js"
import * as MemoryCuration from "./MemoryCuration.js"
import * as MemoryDatabase from "./MemoryDatabase.js"
import type { MemoryError } from "./MemoryError.js"
import type {
  EventQuery,
  EventRow,
  ListQuery,
  ObservationRow,
  ProjectRow,
  PromptRow,
  SessionRow,
  SpendRow,
  SummaryRow
} from "./MemoryRows.js"
import * as MemorySearch from "./MemorySearch.js"
import * as MemoryStore from "./MemoryStore.js"

/**
 * The memory's operations. Every failure is a `MemoryError` (`InvalidArgument` for a bad
 * search, id or selection; `Database` for the store).
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryRepo {
  // the page and the demo
  readonly projects: Effect.Effect<ReadonlyArray<ProjectRow>, MemoryError>
  readonly observations: (query: ListQuery) => Effect.Effect<ReadonlyArray<ObservationRow>, MemoryError>
  readonly summaries: (query: ListQuery) => Effect.Effect<ReadonlyArray<SummaryRow>, MemoryError>
  readonly prompts: (query: ListQuery) => Effect.Effect<ReadonlyArray<PromptRow>, MemoryError>
  readonly events: (query: EventQuery) => Effect.Effect<ReadonlyArray<EventRow>, MemoryError>
  readonly session: (id: string) => Effect.Effect<SessionRow | undefined, MemoryError>
  /** The newest observation's id, forgotten ones included (0: none yet): where a live feed starts. */
  readonly lastObservationId: Effect.Effect<number, MemoryError>
  readonly spendByDay: Effect.Effect<ReadonlyArray<SpendRow>, MemoryError>
  readonly search: (
    query: string,
    options?: MemorySearch.SearchOptions
  ) => Effect.Effect<ReadonlyArray<MemorySearch.SearchResult>, MemoryError>
  /** Entries by id (`O12`, `S3`, `P7`), in the order asked; unknown and forgotten ones left out. */
  readonly get: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MemorySearch.Entry>, MemoryError>
  /** One entry by id: `InvalidArgument` for a text that is no id, `NotFound` for none. */
  readonly show: (id: string) => Effect.Effect<MemorySearch.Entry, MemoryError>
  /** The entries of an entry's project around it in time, oldest first. */
  readonly timeline: (
    around: string,
    window?: number
  ) => Effect.Effect<ReadonlyArray<MemorySearch.TimelineEntry>, MemoryError>
  // curation and administration
  readonly forget: (selection: MemoryCuration.ForgetSelection) => Effect.Effect<ReadonlyArray<string>, MemoryError>
  readonly restore: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, MemoryError>
  readonly status: (
    paths: MemoryPaths,
    settings: LoadedConfig
  ) => Effect.Effect<MemoryAdmin.MemoryStatus, MemoryError>
  /** Deletes for good what `options` selects, and the observer's transcripts of those sessions. */
  readonly purge: (
    paths: MemoryPaths,
    options: MemoryAdmin.ForgetOptions
  ) => Effect.Effect<MemoryAdmin.Forgotten, MemoryError>
  /** Queues the failed events again; how many. */
  readonly retryFailed: Effect.Effect<number, MemoryError>
  // the worker's queue
  readonly readyEvents: (
    sessionId: string,
    now: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<EventRow>, MemoryError>
  readonly completeBatch: (batch: MemoryStore.BatchResult, now: number) => Effect.Effect<void, MemoryError>
}

/**
 * The service's tag.
 *
 * @since 0.1.0
 * @category tags
 */
export const MemoryRepo: Context.Tag<MemoryRepo, MemoryRepo> = Context.GenericTag<MemoryRepo>("@acx/memory/MemoryRepo")

/**
 * The SQLite implementation, on the `@effect/sql` client in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<MemoryRepo, never, SqlClient.SqlClient> = Effect.map(
  Effect.context<SqlClient.SqlClient>(),
  (context): MemoryRepo => {
    const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(effect, context)
    return {
      projects: run(Reads.projects),
      observations: (query) => run(Reads.observations(query)),
      summaries: (query) => run(Reads.summaries(query)),
      prompts: (query) => run(Reads.prompts(query)),
      events: (query) => run(Reads.events(query)),
      session: (id) => run(MemoryStore.session(id)),
      lastObservationId: run(Reads.lastObservationId),
      spendByDay: run(Reads.spendByDay),
      search: (query, options) => run(MemorySearch.search(query, options)),
      get: (ids) => run(MemorySearch.get(ids)),
      show: (id) => run(MemorySearch.show(id)),
      timeline: (around, window) => run(MemorySearch.timeline(around, window)),
      forget: (selection) => run(MemoryCuration.forget(selection)),
      restore: (ids) => run(MemoryCuration.restore(ids)),
      status: (paths, settings) => run(MemoryAdmin.status(paths, settings)),
      purge: (paths, options) => run(MemoryAdmin.forget(paths, options)),
      retryFailed: run(MemoryStore.retryFailed()),
      readyEvents: (sessionId, now, limit) => run(MemoryStore.readyEvents(sessionId, now, limit)),
      completeBatch: (batch, now) => run(Effect.asVoid(MemoryStore.completeBatch(batch, now)))
    }
  }
)

/**
 * The SQLite implementation as a layer over the client in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<MemoryRepo, never, SqlClient.SqlClient> = Layer.effect(MemoryRepo, make)

/**
 * The SQLite implementation on `file`, created and migrated when needed (`MemoryDatabase.layer`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (file: string): Layer.Layer<MemoryRepo, MemoryError> =>
  Layer.provide(layer, MemoryDatabase.layer(file))

/**
 * The SQLite implementation on an existing `file`: `NotFound` when there is none (never created;
 * `MemoryDatabase.layerExisting`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerExisting = (file: string): Layer.Layer<MemoryRepo, MemoryError> =>
  Layer.provide(layer, MemoryDatabase.layerExisting(file))
