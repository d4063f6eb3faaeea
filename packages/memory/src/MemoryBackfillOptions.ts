/**
 * The options and report of `MemoryBackfill` (`acx memory backfill`): where past sessions come
 * from, what a run is asked, what became of each session, and what the run did.
 *
 * @since 0.5.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Effect from "effect/Effect"
import type * as BackfillEstimate from "./BackfillEstimate.js"
import type * as MemoryConfig from "./MemoryConfig.js"
import type { MemoryError } from "./MemoryError.js"

/**
 * A past session as a source lists it, before its transcript is read.
 *
 * @since 0.3.0
 * @category models
 */
export interface PastSession {
  readonly sessionId: string
  readonly transcriptPath: string
  /** The directory Claude Code ran in, when the listing knows it. */
  readonly project: string | undefined
  /** Its last activity (epoch ms). */
  readonly lastActivity: number
}

/**
 * Where past sessions come from: a Claude Code config directory today, any store later.
 *
 * @since 0.3.0
 * @category models
 */
export interface Source<E> {
  /** Says where, in the backfill's marks (`config:/home/me/.claude`). */
  readonly name: string
  readonly sessions: Effect.Effect<ReadonlyArray<PastSession>, E>
  /** A session's transcript entries, in order. */
  readonly entries: (session: PastSession) => Effect.Effect<ReadonlyArray<unknown>, E>
}

/**
 * The progress of a run, one call per session.
 *
 * @since 0.3.0
 * @category models
 */
export interface Progress {
  readonly done: number
  readonly total: number
  readonly sessionId: string
  readonly outcome: SessionOutcome
  /** `unreadable`: why its transcript could not be read. */
  readonly problem?: string | undefined
}

/**
 * What became of one session.
 *
 * @since 0.3.0
 * @category models
 */
export type SessionOutcome =
  | "backfilled"
  | "resumed"
  | "already"
  | "live"
  | "empty"
  | "excluded"
  | "waiting"
  | "unreadable"

/**
 * @since 0.3.0
 * @category models
 */
export interface BackfillOptions<E> {
  readonly source: Source<E>
  readonly mode: "local" | "model"
  /** Only sessions run in this directory (absolute). */
  readonly project?: string | undefined
  /** Only sessions active at or after this time (epoch ms). */
  readonly since?: number | undefined
  /** Count and estimate; write nothing. */
  readonly dryRun?: boolean | undefined
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  readonly config?: MemoryConfig.MemoryConfig | undefined
  /** Model mode, before anything is spent: go on with this estimate? */
  readonly confirm?: ((estimate: BackfillEstimate.Estimate) => Effect.Effect<boolean, E>) | undefined
  /**
   * Model mode: distils what is queued (the worker, run until its queue is empty); `"busy"` when
   * another worker runs (it distils them instead).
   */
  readonly distil?: Effect.Effect<"done" | "busy", MemoryError, SqlClient.SqlClient> | undefined
  readonly onProgress?: ((progress: Progress) => Effect.Effect<void>) | undefined
}

/**
 * What a run did.
 *
 * @since 0.3.0
 * @category models
 */
export interface BackfillReport {
  readonly mode: "local" | "model"
  readonly dryRun: boolean
  /** Sessions the filters kept. */
  readonly sessions: number
  /** Distilled by this run (resumed ones included). */
  readonly backfilled: number
  /** Left `recorded` by a killed run, finished by this one. */
  readonly resumed: number
  /** Marked by an earlier run. */
  readonly already: number
  /** Recorded live by the hooks: left alone. */
  readonly live: number
  /** With nothing the hooks would have recorded. */
  readonly empty: number
  /** In a project of `excludeProjects`: not marked, so a run after the exclusion is lifted reads them. */
  readonly excluded: number
  /** Queued for the model, not distilled yet (another worker has them, or they wait for a retry). */
  readonly waiting: number
  /** Whose transcript could not be read (gone since the listing, unreadable): not marked, a later run tries again. */
  readonly unreadable: number
  /** Events queued by this run. */
  readonly events: number
  readonly observations: number
  readonly summaries: number
  /** Model mode (and dry runs): what the sessions not yet marked would cost. */
  readonly estimate: BackfillEstimate.Estimate | undefined
  /** Model mode: why the run stopped before the end (the daily budget), in one line. */
  readonly stopped: string | undefined
  /** Model mode: the estimate was declined. */
  readonly declined: boolean
  readonly elapsedMs: number
}
