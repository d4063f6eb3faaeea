/**
 * Where each session of a store came from, for a team whose machines sync into one store: the
 * machine and OS user that first synced it, and its project as the team names it (the normalised
 * git remote of its working directory, else the directory: `@acx/convert/ProjectIdentity`). The
 * SQLite and Postgres stores keep it beside the entries (`acx_session_origin`); an importer that
 * finds it records each session once, the first machine to sync a session keeping it.
 *
 * The import ledger is keyed by machine and source path (`sourceOf`): two laptops both holding
 * `/home/dev/.claude/projects` keep records of their own. A ledger an older acx keyed by path
 * alone is adopted, once, by the first machine that syncs that path (`adoptSource`).
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as OriginNames from "./OriginNames.js"
import type * as SessionStore from "./SessionStore.js"

/**
 * A session's origin.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SessionOrigin = Schema.Struct({
  projectKey: Schema.String,
  sessionId: Schema.String,
  machine: Schema.String,
  user: Schema.String,
  /** `github.com/org/repo`, else the absolute working directory (else the project key). */
  project: Schema.String
}).annotations({ identifier: "SessionOrigin" })

/**
 * @since 0.3.0
 * @category models
 */
export type SessionOrigin = typeof SessionOrigin.Type

/**
 * The origin methods of a store.
 *
 * @since 0.3.0
 * @category models
 */
export interface SessionOrigins {
  /**
   * The recorded origins (of one project's sessions, or all; of `sessions` only when given: a
   * machine's sync asks for its own sessions', not for every machine's of a hub).
   */
  readonly listOrigins: (
    projectKey?: string,
    sessions?: ReadonlyArray<{ readonly projectKey: string; readonly sessionId: string }>
  ) => Effect.Effect<ReadonlyArray<SessionOrigin>, SessionStore.SessionStoreError>
  /** Records the origins of sessions that have none (a recorded one is kept); how many were new. */
  readonly recordOrigins: (
    origins: ReadonlyArray<SessionOrigin>
  ) => Effect.Effect<number, SessionStore.SessionStoreError>
  /**
   * Moves the ledger records of source `from` to `to` when `to` has none yet, in one transaction;
   * whether it moved any.
   */
  readonly adoptSource: (from: string, to: string) => Effect.Effect<boolean, SessionStore.SessionStoreError>
}

/**
 * The store's origin methods, when it keeps origins (the SQLite and Postgres stores).
 *
 * @since 0.3.0
 * @category accessors
 */
export const originsOf = (store: SessionStore.SessionStore): SessionOrigins | undefined => {
  const candidate = store as Partial<SessionOrigins>
  return typeof candidate.listOrigins === "function" && typeof candidate.recordOrigins === "function" &&
      typeof candidate.adoptSource === "function"
    ? {
      listOrigins: candidate.listOrigins,
      recordOrigins: candidate.recordOrigins,
      adoptSource: candidate.adoptSource
    }
    : undefined
}

/**
 * A session's key as one string: `projectKey/sessionId`.
 *
 * @since 0.3.0
 * @category keys
 */
export const originKey = OriginNames.originKey

/**
 * The ledger source of a directory synced from a machine: `machine:path` (`OriginNames.sourceOf`).
 *
 * @since 0.3.0
 * @category keys
 */
export const sourceOf = OriginNames.sourceOf

/**
 * A machine name as stores keep it (`OriginNames.machineName`).
 *
 * @since 0.3.0
 * @category keys
 */
export const machineName = OriginNames.machineName

/**
 * Whether a name given for a machine (`--machine`) is one stores keep as given.
 *
 * @since 0.3.0
 * @category keys
 */
export const isMachineName = OriginNames.isMachineName
