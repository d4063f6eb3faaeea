/**
 * The backfill's queueing, synchronous over better-sqlite3 like the hook's: one past session's
 * captures recorded through the hook's own statements (`hookStore.recordIn`) and its
 * `memory_backfill` row written, in ONE immediate transaction — so a kill at any moment leaves a
 * session either not queued at all or queued whole and marked.
 */
import type Database from "better-sqlite3"
import type { TimedCapture } from "../TranscriptHooks.js"
import { recordIn } from "./hookStore.js"
import { immediate } from "./sqlite.js"

/** What queueing one session did. */
export type Queued =
  /** Its events are queued (`events` new ones) and its row says `recorded` (or `done` with none). */
  | { readonly _tag: "Queued"; readonly events: number }
  /** A backfill marked it before (`state` its row's). */
  | { readonly _tag: "Marked"; readonly state: "recorded" | "done" }
  /** The hooks saw it live: left as they recorded it. */
  | { readonly _tag: "Live" }

/** What {@link queue} writes for a session. */
export interface QueueRequest {
  readonly sessionId: string
  readonly project: string
  readonly source: string
  readonly mode: "local" | "model"
  /** Set on the session so any worker distils it without a model (local mode). */
  readonly localReason: string | undefined
  readonly now: number
}

/**
 * Queues a past session's captures and marks it, in one transaction; a session already marked, or
 * one the hooks recorded live (a `memory_sessions` row without a backfill row), is left alone.
 */
export const queue = (db: Database.Database, request: QueueRequest, captures: ReadonlyArray<TimedCapture>): Queued =>
  immediate(db, () => {
    const marked = db.prepare("SELECT state FROM memory_backfill WHERE session_id = ?").get(request.sessionId) as
      | { state: "recorded" | "done" }
      | undefined
    if (marked !== undefined) return { _tag: "Marked", state: marked.state }
    if (db.prepare("SELECT 1 FROM memory_sessions WHERE id = ?").get(request.sessionId) !== undefined) {
      return { _tag: "Live" }
    }
    let events = 0
    for (const { at, capture } of captures) {
      if (recordIn(db, capture, at).recorded) events++
    }
    if (request.localReason !== undefined) {
      db.prepare("UPDATE memory_sessions SET observer_local_reason = ? WHERE id = ?").run(
        request.localReason,
        request.sessionId
      )
    }
    db.prepare(
      `INSERT INTO memory_backfill (session_id, project, source, mode, state, events, recorded_at, done_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
    ).run(
      request.sessionId,
      request.project,
      request.source,
      request.mode,
      events === 0 ? "done" : "recorded",
      events,
      request.now,
      events === 0 ? request.now : null
    )
    return { _tag: "Queued", events }
  })

/** Every session a backfill marked, with its project. */
export const marked = (db: Database.Database): Map<string, string> =>
  new Map(
    (db.prepare("SELECT session_id AS id, project FROM memory_backfill").all() as Array<
      { id: string; project: string }
    >)
      .map((row) => [row.id, row.project])
  )

/** The sessions a backfill queued and did not finish (killed, or left to a worker), oldest first. */
export const unfinished = (db: Database.Database): Array<{ readonly sessionId: string; readonly project: string }> =>
  db.prepare(
    "SELECT session_id AS sessionId, project FROM memory_backfill WHERE state = 'recorded' ORDER BY recorded_at, session_id"
  ).all() as Array<{ sessionId: string; project: string }>

/** Marks a session done once none of its events waits; returns whether it is done now. */
export const finish = (db: Database.Database, sessionId: string, now: number): boolean =>
  immediate(db, () => {
    const waiting = db.prepare("SELECT 1 FROM memory_events WHERE session_id = ? AND state = 'pending' LIMIT 1")
      .get(sessionId)
    if (waiting !== undefined) return false
    db.prepare("UPDATE memory_backfill SET state = 'done', done_at = ? WHERE session_id = ? AND state = 'recorded'")
      .run(now, sessionId)
    return true
  })

/** Sets the local reason on a queued session (a rerun in local mode of one queued for the model). */
export const setLocal = (db: Database.Database, sessionId: string, reason: string): void => {
  db.prepare("UPDATE memory_sessions SET observer_local_reason = ? WHERE id = ?").run(reason, sessionId)
}

/** How many observations and summaries a session has (what distilling it made). */
export const made = (db: Database.Database, sessionId: string): { observations: number; summaries: number } =>
  db.prepare(
    `SELECT (SELECT count(*) FROM memory_observations WHERE session_id = @id) AS observations,
       (SELECT count(*) FROM memory_summaries WHERE session_id = @id) AS summaries`
  ).get({ id: sessionId }) as { observations: number; summaries: number }
