/**
 * Looking after the memory: its status (queue depth, failed events, the worker, today's spend
 * against the budget, the settings in force) and forgetting (a session, a project, everything
 * before a date — rows, their index entries, and the observer's transcripts of those sessions).
 *
 * @since 0.1.0
 */
import { type Environment, projectDirName } from "@acx/convert/ProjectDir"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { missingCredentials } from "./internal/credentials.js"
import { judgeWorker } from "./internal/hookStore.js"
import type { LoadedConfig, MemoryConfig, MemoryPaths } from "./MemoryConfig.js"
import { MemoryError } from "./MemoryError.js"
import type { DaySpend } from "./MemoryStore.js"
import { spendOn, writeTransaction } from "./MemoryStore.js"

/**
 * A failed event, as `status` lists it.
 *
 * @since 0.1.0
 * @category models
 */
export interface FailedEvent {
  readonly id: number
  readonly sessionId: string
  readonly kind: string
  readonly toolName: string | null
  readonly attempts: number
  readonly lastError: string | null
}

/**
 * The memory's state.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStatus {
  readonly paths: MemoryPaths
  readonly settings: LoadedConfig
  readonly queue: { readonly pending: number; readonly done: number; readonly failed: number }
  readonly failed: ReadonlyArray<FailedEvent>
  readonly worker: {
    readonly running: boolean
    readonly pid: number | null
    readonly heartbeatAt: number | null
    readonly stoppedAt: number | null
    readonly lastError: string | null
    /** Why the last worker recorded without a model (`null`: it used the model). */
    readonly localReason: string | null
    /**
     * The mode and model the running (else the last) worker used, as it last read them: the
     * worker re-reads `config.json` when it changes, so these can lag the file by a poll
     * (`null`: no worker has run since the memory was created or upgraded).
     */
    readonly inForce: { readonly mode: string; readonly model: string } | null
  }
  readonly lastError: string | null
  readonly sessions: { readonly [status: string]: number }
  /** What the memory keeps and shows (forgotten entries are counted apart). */
  readonly counts: { readonly observations: number; readonly summaries: number; readonly prompts: number }
  /** Entries forgotten (soft-deleted, can be restored): left out of search and the context. */
  readonly forgotten: { readonly observations: number; readonly summaries: number }
  readonly today: DaySpend
}

/** The worker's settings column, read totally (a value of another shape is no value). */
const inForce = (json: string | null): MemoryStatus["worker"]["inForce"] => {
  if (json === null) return null
  try {
    const value = JSON.parse(json) as { mode?: unknown; model?: unknown }
    return typeof value.mode === "string" && typeof value.model === "string"
      ? { mode: value.mode, model: value.model }
      : null
  } catch {
    return null
  }
}

const databaseError = (what: string) => (cause: SqlError | MemoryError) =>
  cause instanceof MemoryError
    ? cause
    : new MemoryError({ reason: "Database", description: `${what}: ${cause.message.split("\n")[0]}`, cause })

/**
 * Reads the memory's state.
 *
 * @since 0.1.0
 * @category status
 */
export const status = Effect.fn("MemoryAdmin.status")(function*(paths: MemoryPaths, settings: LoadedConfig) {
  const sql = yield* SqlClient.SqlClient
  const now = Date.now()
  const states = yield* sql<{ state: string; n: number }>`SELECT state, count(*) AS n FROM memory_events GROUP BY state`
  const count = (state: string) => states.find((row) => row.state === state)?.n ?? 0
  const failed = yield* sql<FailedEvent>`
    SELECT id, session_id AS sessionId, kind, tool_name AS toolName, attempts, last_error AS lastError
    FROM memory_events WHERE state = 'failed' ORDER BY id DESC LIMIT 20`
  const [worker] = yield* sql<
    {
      pid: number | null
      pidStart: number | null
      startedAt: number | null
      heartbeatAt: number | null
      stoppedAt: number | null
      lastError: string | null
      localReason: string | null
      settings: string | null
    }
  >`SELECT pid, pid_start AS pidStart, started_at AS startedAt, heartbeat_at AS heartbeatAt,
    stopped_at AS stoppedAt, last_error AS lastError, local_reason AS localReason, settings
    FROM memory_worker WHERE id = 1`
  const [lastError] = yield* sql<{ lastError: string }>`
    SELECT last_error AS lastError FROM memory_events WHERE last_error IS NOT NULL ORDER BY id DESC LIMIT 1`
  const sessions = yield* sql<{ status: string; n: number }>`
    SELECT status, count(*) AS n FROM memory_sessions GROUP BY status`
  const [counts] = yield* sql<{ observations: number; summaries: number; prompts: number }>`
    SELECT (SELECT count(*) FROM memory_observations WHERE forgotten_at IS NULL) AS observations,
      (SELECT count(*) FROM memory_summaries WHERE forgotten_at IS NULL) AS summaries,
      (SELECT count(*) FROM memory_prompts) AS prompts`
  const [forgotten] = yield* sql<{ observations: number; summaries: number }>`
    SELECT (SELECT count(*) FROM memory_observations WHERE forgotten_at IS NOT NULL) AS observations,
      (SELECT count(*) FROM memory_summaries WHERE forgotten_at IS NOT NULL) AS summaries`
  const running = judgeWorker(worker, now)._tag === "Live"
  return {
    paths,
    settings,
    queue: { pending: count("pending"), done: count("done"), failed: count("failed") },
    failed,
    worker: {
      running,
      pid: running ? worker!.pid : null,
      heartbeatAt: worker?.heartbeatAt ?? null,
      stoppedAt: worker?.stoppedAt ?? null,
      lastError: worker?.lastError ?? null,
      localReason: worker?.localReason ?? null,
      inForce: inForce(worker?.settings ?? null)
    },
    lastError: lastError?.lastError ?? worker?.lastError ?? null,
    sessions: Object.fromEntries(sessions.map((row) => [row.status, row.n])),
    counts: counts!,
    forgotten: forgotten!,
    today: yield* spendOn(now)
  } satisfies MemoryStatus
}, Effect.mapError(databaseError("reading the memory's status")))

/**
 * Why an observer started now could reach no model (no API key or token in `env`, no
 * credentials file), or `undefined` when it could. Reads only; for {@link modelLine}.
 *
 * @since 0.5.0
 * @category status
 */
export const observerCredentials = (
  files: MemoryPaths,
  env: { readonly [name: string]: string | undefined }
): string | undefined => missingCredentials(files, env)

/**
 * What `acx memory status` says about the model. A running worker: the model it uses (or why it
 * records locally), and when `config.json` now says otherwise, that it takes the file up before
 * its next batch. No worker running: what the next one will use — local when the mode is local
 * or `noCredentials` says why it could reach no model ({@link observerCredentials}), else the
 * file's model (the last worker's reason when it had no credentials).
 *
 * @since 0.1.0
 * @category status
 */
export const modelLine = (status: MemoryStatus, file: MemoryConfig, noCredentials?: string | undefined): string => {
  const { inForce, localReason, running } = status.worker
  const local = (reason: string) => `none, observations are recorded locally (${reason})`
  if (!running || inForce === null) {
    if (file.mode === "local") return local("mode is local")
    if (noCredentials !== undefined) return local(noCredentials)
    return localReason !== null && localReason !== "mode is local"
      ? local(localReason)
      : `${file.model} (the observer)`
  }
  const used = localReason === null ? `${inForce.model} (the observer, in the running worker)` : local(localReason)
  return inForce.mode !== file.mode || inForce.model !== file.model
    ? `${used}; config.json now says mode ${file.mode}, model ${file.model}: the worker takes it up before its next batch`
    : used
}

/**
 * What to forget: one session, one project, or everything before a time (epoch ms); at least
 * one, combined with AND.
 *
 * @since 0.1.0
 * @category models
 */
export interface ForgetOptions {
  readonly session?: string | undefined
  readonly project?: string | undefined
  readonly before?: number | undefined
  /**
   * The environment the worker gives the observer's Claude Code (default `process.env`): its
   * `CLAUDE_CODE_PROJECT_DIR_NAME` names the directory the observer's transcripts are under.
   */
  readonly env?: Environment | undefined
}

/**
 * How many rows were deleted, by kind.
 *
 * @since 0.1.0
 * @category models
 */
export interface Forgotten {
  readonly sessions: number
  readonly events: number
  readonly prompts: number
  readonly observations: number
  readonly summaries: number
  readonly observerTranscripts: number
}

/**
 * The project key the observer's transcripts are kept under: Claude Code's own rule
 * (`ProjectDir.projectDirName`, which honours `CLAUDE_CODE_PROJECT_DIR_NAME`) for the observer's
 * working directory, under the environment it runs with (its own `CLAUDE_CONFIG_DIR`).
 *
 * @since 0.1.0
 * @category forgetting
 */
export const observerProjectKey = (paths: MemoryPaths, env: Environment): string =>
  projectDirName(paths.observerCwd, { ...env, CLAUDE_CONFIG_DIR: paths.observerConfigDir })

/**
 * Deletes what `options` selects — rows and (through the triggers) their index entries in one
 * transaction, then the observer's transcripts of the sessions deleted. The usage ledger is
 * kept: what was spent stays spent.
 *
 * @since 0.1.0
 * @category forgetting
 */
export const forget = Effect.fn("MemoryAdmin.forget")(function*(paths: MemoryPaths, options: ForgetOptions) {
  if (options.session === undefined && options.project === undefined && options.before === undefined) {
    return yield* new MemoryError({
      reason: "InvalidArgument",
      description: "say what to forget: --session ID, --project DIR or --before DATE"
    })
  }
  const sql = yield* SqlClient.SqlClient
  const where = (timeColumn: string) =>
    sql.and([
      ...(options.session === undefined ? [] : [sql`session_id = ${options.session}`]),
      ...(options.project === undefined ? [] : [sql`project = ${options.project}`]),
      ...(options.before === undefined ? [] : [sql`${sql.literal(timeColumn)} < ${options.before}`])
    ])
  const result = yield* writeTransaction(Effect.gen(function*() {
    const deleted = (table: string, timeColumn = "created_at") =>
      Effect.map(sql`DELETE FROM ${sql.literal(table)} WHERE ${where(timeColumn)} RETURNING id`, (rows) => rows.length)
    const observations = yield* deleted("memory_observations")
    const summaries = yield* deleted("memory_summaries")
    const prompts = yield* deleted("memory_prompts")
    const events = yield* deleted("memory_events")
    // a session goes when nothing of it is left
    const sessionWhere = sql.and([
      ...(options.session === undefined ? [] : [sql`id = ${options.session}`]),
      ...(options.project === undefined ? [] : [sql`project = ${options.project}`]),
      ...(options.before === undefined ? [] : [sql`last_event_at < ${options.before}`])
    ])
    const sessions = yield* sql<{ observerSessionId: string | null }>`
      DELETE FROM memory_sessions WHERE ${sessionWhere}
        AND NOT EXISTS (SELECT 1 FROM memory_events e WHERE e.session_id = memory_sessions.id)
      RETURNING observer_session_id AS observerSessionId`
    return { observations, summaries, prompts, events, sessions }
  }))
  const store = yield* SqliteSessionStore.makeWithClient()
  const projectKey = observerProjectKey(paths, options.env ?? process.env)
  let observerTranscripts = 0
  for (const { observerSessionId } of result.sessions) {
    if (observerSessionId === null) continue
    yield* store.delete({ projectKey, sessionId: observerSessionId })
    observerTranscripts++
  }
  return { ...result, sessions: result.sessions.length, observerTranscripts } satisfies Forgotten
}, Effect.mapError((cause) => databaseError("forgetting")(cause as SqlError | MemoryError)))
