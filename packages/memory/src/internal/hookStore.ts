/**
 * The hook's reads and writes, synchronous over better-sqlite3: one immediate transaction per
 * capture, the context's rows, and whether the worker is needed.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import type Database from "better-sqlite3"
import type { Capture } from "../HookCapture.js"
import type { ContextEntry } from "../MemoryContext.js"
import type * as MemoryRows from "../MemoryRows.js"
import { immediate } from "./sqlite.js"

/** A worker whose heartbeat is older than this is taken for dead even if its pid is in use. */
export const WORKER_STALE_MS = 60_000

/** What a capture changed. */
export interface Recorded {
  /** A new event was stored (false for duplicates and captures without an event). */
  readonly recorded: boolean
  /** A new prompt's number in its session (1 for the first). */
  readonly promptNumber: number | undefined
}

const nothing: Recorded = { recorded: false, promptNumber: undefined }

/**
 * Records a capture in one transaction: the session (created or touched), the queued event
 * (ignored when its idempotency key is known), and with a new prompt event the prompt itself.
 */
export const record = (db: Database.Database, capture: Capture, now: number): Recorded =>
  immediate(db, () => recordIn(db, capture, now))

/** {@link record} inside a write transaction the caller holds (a backfill records a session's captures in one). */
export const recordIn = (db: Database.Database, capture: Capture, now: number): Recorded => {
  // `claude mcp list` and other short commands fire SessionEnd for sessions that never
  // started: nothing to end, nothing to summarise
  if (
    capture.event === "SessionEnd" &&
    db.prepare("SELECT 1 FROM memory_sessions WHERE id = ?").get(capture.sessionId) === undefined
  ) {
    return nothing
  }
  db.prepare(
    `INSERT INTO memory_sessions (id, project, transcript_path, started_at, last_event_at)
       VALUES (@id, @project, @transcript, @now, @now)
       ON CONFLICT (id) DO UPDATE SET
         last_event_at = max(last_event_at, @now),
         transcript_path = coalesce(@transcript, transcript_path),
         status = CASE
           WHEN status = 'interrupted' AND @reopen = 1 THEN 'active'
           WHEN status = 'completed' AND @restart = 1 THEN 'active'
           ELSE status END,
         ended_at = CASE WHEN @restart = 1 THEN NULL ELSE ended_at END,
         end_reason = CASE WHEN @restart = 1 THEN NULL ELSE end_reason END`
  ).run({
    id: capture.sessionId,
    project: capture.project,
    transcript: capture.transcriptPath ?? null,
    now,
    reopen: capture.queued !== undefined && capture.queued.kind !== "summarise" ? 1 : 0,
    // a session started again (resumed): it goes on, so its batches fill and its observer stays
    // warm until it ends again
    restart: capture.event === "SessionStart" ? 1 : 0
  })
  if (capture.endReason !== undefined) {
    db.prepare(
      "UPDATE memory_sessions SET ended_at = coalesce(ended_at, ?), end_reason = coalesce(end_reason, ?) WHERE id = ?"
    ).run(now, capture.endReason, capture.sessionId)
  }
  const queued = capture.queued
  if (queued === undefined) return nothing
  const inserted = db.prepare(
    `INSERT INTO memory_events (session_id, project, kind, idempotency_key, tool_name, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`
  ).run(
    capture.sessionId,
    capture.project,
    queued.kind,
    queued.idempotencyKey,
    queued.toolName ?? null,
    queued.payload,
    now
  )
  if (inserted.changes === 0) return nothing
  if (capture.prompt === undefined) return { recorded: true, promptNumber: undefined }
  {
    const { number } = db.prepare(
      "UPDATE memory_sessions SET prompt_count = prompt_count + 1 WHERE id = ? RETURNING prompt_count AS number"
    ).get(capture.sessionId) as { number: number }
    db.prepare(
      "INSERT INTO memory_prompts (session_id, project, prompt_number, text, created_at) VALUES (?, ?, ?, ?, ?)"
    ).run(capture.sessionId, capture.project, number, capture.prompt, now)
    return { recorded: true, promptNumber: number }
  }
}

type Marked = { readonly author: string | null; readonly machine: string | null }

type ObservationRow = Pick<MemoryRows.ObservationRow, "id" | "type" | "title" | "subtitle" | "createdAt"> & Marked

type SummaryRow =
  & Pick<MemoryRows.SummaryRow, "id" | "request" | "completed" | "learned" | "nextSteps" | "createdAt">
  & Marked

// the directory's own entries, and its teammates' (pulled by the worker under the project's git
// remote, which `memory_team_projects` maps the directory to): never the network
const PROJECTS = "project IN (?, (SELECT identity FROM memory_team_projects WHERE path = ?))"

const mark = (row: Marked) => row.author === null ? {} : { author: row.author, machine: row.machine ?? "" }

/**
 * A project's newest observations and summaries (forgotten ones left out), at most `limit` of
 * each: its own and, when the team memory is on, its teammates' (marked with author and machine).
 */
export const contextEntries = (db: Database.Database, project: string, limit: number): Array<ContextEntry> => {
  const observations = db.prepare(
    `SELECT id, type, title, subtitle, created_at AS createdAt, author, machine FROM memory_observations
     WHERE ${PROJECTS} AND forgotten_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?`
  ).all(project, project, limit) as Array<ObservationRow>
  const summaries = db.prepare(
    `SELECT id, request, completed, learned, next_steps AS nextSteps, created_at AS createdAt, author, machine
     FROM memory_summaries WHERE ${PROJECTS} AND forgotten_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?`
  ).all(project, project, limit) as Array<SummaryRow>
  return [
    ...observations.map((row): ContextEntry => ({
      _tag: "Observation",
      id: row.id,
      type: row.type,
      title: row.title,
      subtitle: row.subtitle,
      createdAt: row.createdAt,
      ...mark(row)
    })),
    ...summaries.map((row): ContextEntry => ({
      _tag: "Summary",
      id: row.id,
      request: row.request,
      completed: row.completed,
      learned: row.learned,
      nextSteps: row.nextSteps,
      createdAt: row.createdAt,
      ...mark(row)
    }))
  ]
}

/** Whether any event waits for the worker. */
export const hasPendingWork = (db: Database.Database): boolean =>
  db.prepare("SELECT 1 FROM memory_events WHERE state = 'pending' LIMIT 1").get() !== undefined

/**
 * Whether the team memory's sync is due (`TeamSync.SYNC_DUE_KEY`, written by the worker and by
 * `acx memory install --team`): a worker is then started to sync, even with no event queued.
 */
export const teamSyncDue = (db: Database.Database, now: number): boolean => {
  const row = db.prepare("SELECT value FROM memory_meta WHERE key = 'team.syncDueAt'").get() as
    | { value: string }
    | undefined
  return row !== undefined && Number(row.value) <= now
}

/** How long a started worker has to take the lock before another hook starts one again. */
export const SPAWN_GRACE_MS = 10_000

/**
 * Whether this hook should start the worker: events wait (or the team sync is due), no worker lives, and no other hook
 * started one in the last {@link SPAWN_GRACE_MS} (taken by compare-and-set, so of a burst of
 * hooks one starts it). The worker clears the mark when it takes or gives up the lock.
 */
export const claimWorkerStart = (db: Database.Database, now: number): boolean =>
  (hasPendingWork(db) || teamSyncDue(db, now)) && liveWorkerPid(db, now) === undefined &&
  db.prepare("UPDATE memory_worker SET spawned_at = ? WHERE id = 1 AND (spawned_at IS NULL OR spawned_at < ?)")
      .run(now, now - SPAWN_GRACE_MS).changes === 1

/**
 * The worker lock's row as recorded: the holder's pid, its start time beside it (`pidStart`,
 * `ProcessLiveness.startTime`; null in rows written before it was recorded, or without `/proc`),
 * when it took the lock and its last heartbeat.
 */
export interface WorkerRow {
  readonly pid: number | null
  readonly pidStart: number | null
  readonly startedAt: number | null
  readonly heartbeatAt: number | null
}

/**
 * What the worker row says: no holder, a live worker, or a dead one (`why`: its process exited,
 * is a zombie or its pid was reused — `ProcessLiveness`'s rule — or its heartbeat stopped).
 */
export type WorkerHolder =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Live"; readonly pid: number; readonly startedAt: number | null }
  | { readonly _tag: "Dead"; readonly pid: number; readonly why: string }

/**
 * Judges the worker row: a live worker has a fresh heartbeat (under {@link WORKER_STALE_MS}) and
 * a process that is still the one that took the lock (`ProcessLiveness.check`: not exited, not
 * a zombie, its pid not reused). The one rule for hooks, the worker's claim and `status`.
 */
export const judgeWorker = (row: WorkerRow | undefined, now: number): WorkerHolder => {
  if (row === undefined || row.pid === null) return { _tag: "Free" }
  if (row.heartbeatAt === null || now - row.heartbeatAt > WORKER_STALE_MS) {
    const silent = row.heartbeatAt === null
      ? "no heartbeat"
      : `no heartbeat for ${Math.round((now - row.heartbeatAt) / 1000)}s`
    return { _tag: "Dead", pid: row.pid, why: silent }
  }
  const liveness = ProcessLiveness.check(row.pid, row.pidStart)
  return liveness._tag === "Alive"
    ? { _tag: "Live", pid: row.pid, startedAt: row.startedAt }
    : { _tag: "Dead", pid: row.pid, why: ProcessLiveness.describeDead(liveness.reason) }
}

/**
 * Reads the worker row (every column, so that a file the current migrations have not reached
 * yet — a read-only look before the worker migrates it — reads too).
 */
export const readWorkerRow = (db: Database.Database): WorkerRow | undefined => {
  const row = db.prepare("SELECT * FROM memory_worker WHERE id = 1").get() as Record<string, unknown> | undefined
  if (row === undefined) return undefined
  const int = (value: unknown) => typeof value === "number" || typeof value === "bigint" ? Number(value) : null
  return {
    pid: int(row["pid"]),
    pidStart: int(row["pid_start"]),
    startedAt: int(row["started_at"]),
    heartbeatAt: int(row["heartbeat_at"])
  }
}

/** The live worker's pid, if one lives ({@link judgeWorker}). */
export const liveWorkerPid = (db: Database.Database, now: number): number | undefined => {
  const holder = judgeWorker(readWorkerRow(db), now)
  return holder._tag === "Live" ? holder.pid : undefined
}
