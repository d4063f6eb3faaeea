/**
 * A session store read as a Claude Code config directory: {@link make} gives the
 * `ClaudeProjects` service over any SQL store that keeps a catalog (`@acx/session-store`'s SQLite
 * and Postgres stores, whoever filled them: `acx sync`, `acx import`, an app's agents through the
 * SDK's `sessionStore` mirroring). Everything that reads a config directory through
 * `ClaudeProjects` (`acx sessions`, `show`, `fork`, the web page) reads a store the same way, and
 * for the same entries gives the same results (tested field by field on every fixture session).
 *
 * How the layout maps:
 * - a main transcript is the key `{ projectKey, sessionId }`; a subagent's is its subpath
 *   `subagents/[<rel>/]agent-<agentId>`, whose `agent_metadata` entries (what `acx import` stores
 *   for `agent-<id>.meta.json`) are its `meta`, not transcript entries;
 * - a listing comes from the catalog (`StoreCatalog.listSessions`: metadata derived once, not
 *   re-read): `file` names the store and key (`<location>#<projectKey>/<sessionId>`), `mtime` is
 *   the store clock's last append and `size` 0 (a store keeps entries, not files);
 * - entries are checked as a transcript line is (`TranscriptLine.decodeValue`): a stored row that
 *   is no entry is reported in `errors`, never thrown;
 * - `appendEntries`, `forkSession` and `deleteSession` write into the store.
 *
 * @since 0.3.0
 */
import type * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as ClaudeProjects from "./ClaudeProjects.js"
import { ClaudeProjectsError } from "./ClaudeProjectsError.js"
import { forkEntries, nothingToFork } from "./internal/forkEntries.js"
import * as StoreListing from "./StoreListing.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface StoreProjectsOptions {
  /** The store and its catalog (`SqliteSessionStore.make`, `PostgresSessionStore.make`). */
  readonly store: SessionStore.SessionStore & StoreCatalog.WithCatalog
  /** How the store is named to a user (`DatabaseSpec.display`: no password), e.g. `sqlite:/x.db`. */
  readonly location: string
}

/**
 * The entry type under which `acx import` stores a subagent's `.meta.json`.
 *
 * @since 0.3.0
 * @category constants
 */
export const AGENT_METADATA = "agent_metadata"

const SUBAGENT_SUBPATH = /^subagents\/(?:.+\/)?agent-([^/]+)$/

/**
 * The agent id of a subagent subpath (`subagents/agent-a1`, `subagents/x/agent-a1` → `a1`), else
 * `undefined`.
 *
 * @since 0.3.0
 * @category layout
 */
export const agentIdOf = (subpath: string): string | undefined => {
  const match = SUBAGENT_SUBPATH.exec(subpath)
  return match !== null && ClaudeProjects.isAgentId(match[1]) ? match[1] : undefined
}

// A subpath's segments as a config directory names them: the last one is a file, `<name>.jsonl`.
const asFileSegments = (subpath: string): Array<string> => {
  const segments = subpath.split("/")
  segments[segments.length - 1] += ".jsonl"
  return segments
}

const compareAsFiles = (a: string, b: string): number => {
  const x = asFileSegments(a)
  const y = asFileSegments(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
  }
  return x.length - y.length
}

/**
 * The subagents among a session's subpaths, in the order a config directory lists their files
 * (each directory's names sorted, walked depth first): `acx show`'s footer and the statistics'
 * folds come out in the same order from a store as from the directory it was synced from.
 *
 * @since 0.3.0
 * @category layout
 */
export const subagentsOf = (
  subpaths: ReadonlyArray<string>
): Array<{ readonly agentId: string; readonly subpath: string }> =>
  subpaths.flatMap((subpath) => {
    const agentId = agentIdOf(subpath)
    return agentId === undefined ? [] : [{ agentId, subpath }]
  }).sort((a, b) => compareAsFiles(a.subpath, b.subpath))

/**
 * Where a stored transcript is, as a user reads it: `<location>#<projectKey>/<sessionId>[/<subpath>]`
 * (`StoreListing`, which loads without Effect).
 *
 * @since 0.3.0
 * @category layout
 */
export const locationOf = StoreListing.locationOf

/**
 * A store's failure as the `ClaudeProjectsError` of `operation` (`Io`, its cause kept).
 *
 * @since 0.3.0
 * @category errors
 */
export const storeError = (operation: string) => (cause: SessionStore.SessionStoreError) =>
  new ClaudeProjectsError({
    reason: cause.reason === "InvalidKey" ? "InvalidSessionId" : "Io",
    operation,
    description: cause.description,
    cause
  })

const notFound = (operation: string, description: string) =>
  new ClaudeProjectsError({ reason: "NotFound", operation, description })

/**
 * Stored entries as a transcript read: the entries in append order, each checked as a line is;
 * `agent_metadata` entries left out (they are a subagent's sidecar, not its transcript).
 *
 * @since 0.3.0
 * @category reading
 */
export const transcriptOf = (stored: ReadonlyArray<unknown>): ClaudeProjects.TranscriptRead => {
  const read: ClaudeProjects.TranscriptRead = { entries: [], errors: [], errorOffsets: [], invalidUtf8Lines: [] }
  stored.forEach((value, i) => {
    const decoded = TranscriptLine.decodeValue(value, i + 1)
    if (Either.isLeft(decoded)) {
      read.errors.push(decoded.left)
      read.errorOffsets.push(i)
    } else if (decoded.right.type !== AGENT_METADATA) {
      read.entries.push(decoded.right as Transcript.TranscriptEntry)
    }
  })
  return read
}

// The last `agent_metadata` entry of a subagent's stored entries, without its `type`.
const metaOf = (stored: ReadonlyArray<SessionStore.SessionStoreEntry>): Record<string, unknown> | undefined => {
  for (let i = stored.length - 1; i >= 0; i--) {
    const entry = stored[i]!
    if (entry.type === AGENT_METADATA) {
      const { type: _type, ...meta } = entry
      return meta
    }
  }
  return undefined
}

// The reads: listings from the catalog, transcripts from `load`.
const readers = ({ location, store }: StoreProjectsOptions) => {
  const catalog = store.catalog
  const listed = (operation: string, projectKey: string | undefined) =>
    catalog.listSessions(projectKey === undefined ? {} : { projectKey }).pipe(
      Effect.mapError(storeError(operation)),
      Effect.filterOrFail(
        (sessions) => projectKey === undefined || sessions.length > 0,
        () => notFound(operation, `no sessions for project ${projectKey} in ${location}`)
      )
    )
  const load = (operation: string, key: SessionStore.SessionKey) =>
    store.load(key).pipe(
      Effect.mapError(storeError(operation)),
      Effect.flatMap((entries) =>
        entries === null
          ? Effect.fail(notFound(operation, `no transcript ${locationOf(location, key)}`))
          : Effect.succeed(entries)
      )
    )
  const subagentKeys = (operation: string, projectKey: string, sessionId: string) =>
    store.listSubkeys({ projectKey, sessionId }).pipe(
      Effect.mapError(storeError(operation)),
      Effect.map(subagentsOf)
    )
  const readSubagents = Effect.fn("StoreProjects.readSubagents")(function*(projectKey: string, sessionId: string) {
    const agents = yield* subagentKeys("readSubagents", projectKey, sessionId)
    return yield* Effect.forEach(
      agents,
      ({ agentId, subpath }) =>
        Effect.map(load("readSubagents", { projectKey, sessionId, subpath }), (stored) => {
          const meta = metaOf(stored)
          return {
            agentId,
            file: locationOf(location, { projectKey, sessionId, subpath }),
            ...(meta === undefined ? {} : { meta }),
            ...transcriptOf(stored)
          }
        })
    )
  })
  const readSession = Effect.fn("StoreProjects.readSession")(function*(projectKey: string, sessionId: string) {
    return transcriptOf(yield* load("readSession", { projectKey, sessionId }))
  })
  return {
    listProjects: Effect.fn("StoreProjects.listProjects")(function*() {
      const counts = new Map<string, number>()
      for (const session of yield* listed("listProjects", undefined)) {
        counts.set(session.projectKey, (counts.get(session.projectKey) ?? 0) + 1)
      }
      return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([projectKey, sessions]) => ({
        projectKey,
        path: `${location}#${projectKey}`,
        sessions
      }))
    }),
    listSessionFiles: Effect.fn("StoreProjects.listSessionFiles")(function*(projectKey?: string) {
      return (yield* listed("listSessionFiles", projectKey)).map((session) => ({
        projectKey: session.projectKey,
        sessionId: session.sessionId,
        file: locationOf(location, session)
      }))
    }),
    listSessions: Effect.fn("StoreProjects.listSessions")(function*(projectKey?: string) {
      return (yield* listed("listSessions", projectKey)).map((session) => StoreListing.sessionInfoOf(location, session))
    }),
    readSession,
    streamSession: (projectKey: string, sessionId: string) =>
      Stream.fromIterableEffect(Effect.map(readSession(projectKey, sessionId), (read) => read.entries)),
    listSubagents: Effect.fn("StoreProjects.listSubagents")(function*(projectKey: string, sessionId: string) {
      const agents = yield* readSubagents(projectKey, sessionId)
      return agents.map(({ agentId, file, meta }): ClaudeProjects.SubagentInfo => ({
        agentId,
        file,
        ...(meta === undefined ? {} : { meta })
      }))
    }),
    readSubagents,
    readSubagent: Effect.fn("StoreProjects.readSubagent")(
      function*(projectKey: string, sessionId: string, agentId: string) {
        const agents = yield* subagentKeys("readSubagent", projectKey, sessionId)
        const found = agents.find((agent) => agent.agentId === agentId)
        if (found === undefined) {
          return yield* notFound("readSubagent", `no subagent ${agentId} in session ${sessionId}`)
        }
        return transcriptOf(yield* load("readSubagent", { projectKey, sessionId, subpath: found.subpath }))
      }
    )
  }
}

/**
 * The `ClaudeProjects` service over a store (see the module's doc for the mapping).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (options: StoreProjectsOptions): ClaudeProjects.ClaudeProjects => {
  const { location, store } = options
  const read = readers(options)
  const appendEntries = Effect.fn("StoreProjects.appendEntries")(
    function*(projectKey: string, sessionId: string, entries: ReadonlyArray<unknown>, subpath?: string) {
      const key = { projectKey, sessionId, ...(subpath === undefined ? {} : { subpath }) }
      return yield* store.append(key, entries as ReadonlyArray<SessionStore.SessionStoreEntry>).pipe(
        Effect.mapError(storeError("appendEntries"))
      )
    }
  )
  return ClaudeProjects.ClaudeProjects.of({
    configDir: location,
    projectsDir: location,
    ...read,
    appendEntries,
    forkSession: Effect.fn("StoreProjects.forkSession")(function*(
      projectKey: string,
      sessionId: string,
      forkOptions: ClaudeProjects.ForkOptions = {}
    ) {
      const { entries } = yield* (forkOptions.from?.readSession ?? read.readSession)(projectKey, sessionId)
      const newSessionId = randomUUID()
      const forked = forkEntries(entries, sessionId, newSessionId, forkOptions)
      if (forked.length === 0) return yield* notFound("forkSession", nothingToFork(sessionId, forkOptions))
      yield* appendEntries(projectKey, newSessionId, forked)
      return {
        projectKey,
        sessionId: newSessionId,
        file: locationOf(location, { projectKey, sessionId: newSessionId }),
        entries: forked.length
      }
    }),
    deleteSession: Effect.fn("StoreProjects.deleteSession")(function*(projectKey: string, sessionId: string) {
      return yield* store.delete({ projectKey, sessionId }).pipe(Effect.mapError(storeError("deleteSession")))
    })
  })
}
