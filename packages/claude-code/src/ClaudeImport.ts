/**
 * Imports a whole Claude Code config directory into any {@link SessionStore.SessionStore}: every
 * session of every project (the projectKey is the project DIRECTORY name, unlike the SDK's
 * `importSessionToStore`, which derives it from `dir`), its main transcript and every subagent
 * transcript (subpath = path under `<sessionId>/` minus `.jsonl`, e.g. `subagents/agent-<id>`),
 * each subagent's `agent-<id>.meta.json` appended after it as `{ type: "agent_metadata", ...meta }`
 * like the SDK's importer does.
 *
 * Lines are read raw (unparseable lines skipped and counted) and appended in batches of
 * `batchSize`. The import is idempotent: entries with a `uuid` are deduped by the target store;
 * an entry without one (file-history snapshots, titles, `agent_metadata`, …) is not appended
 * when an equal entry (as JSON, key order aside) is already stored under the key from an earlier
 * run, while a transcript's own repeated lines are all kept.
 *
 * @since 0.1.0
 */
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as ClaudeProjects from "./ClaudeProjects.js"
import { dedupeUuidless } from "./internal/dedupeUuidless.js"
import { readEntryLines } from "./internal/jsonl.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ImportProgress {
  /** Sessions finished so far. */
  readonly sessions: number
  /** Entries offered to the store so far (duplicates the store skips included). */
  readonly entries: number
  readonly currentSession: { readonly projectKey: string; readonly sessionId: string }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ImportOptions {
  /** The source: a `ClaudeProjects` service, or a config directory. */
  readonly from: ClaudeProjects.ClaudeProjects | { readonly configDir: string }
  readonly to: SessionStore.SessionStore
  /** Only this project. */
  readonly projectKey?: string | undefined
  /** Entries per `append`; default 500. */
  readonly batchSize?: number | undefined
  readonly onProgress?: ((progress: ImportProgress) => Effect.Effect<void>) | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ImportResult {
  readonly sessions: number
  /** Entries offered to the store (what it already held included). */
  readonly entries: number
  readonly subagents: number
  /** Non-blank lines that are not entries (malformed JSON, torn last lines, non-objects). */
  readonly skippedLines: number
}

/**
 * Imports every session (or one project's) into the store; see the module docs.
 *
 * @since 0.1.0
 * @category import
 */
export const importClaudeDir = (
  options: ImportOptions
): Effect.Effect<
  ImportResult,
  ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const source = "listSessions" in options.from ? options.from : yield* ClaudeProjects.make(options.from)
    const store = dedupeUuidless(options.to)
    const batchSize = Math.max(1, options.batchSize ?? 500)
    const readEntries = (file: string) =>
      readEntryLines(fs, file, skipped).pipe(
        Effect.map((read) => read.entries),
        Effect.mapError((cause) =>
          new ClaudeProjects.ClaudeProjectsError({
            reason: "Io",
            operation: "importClaudeDir",
            description: `cannot read ${file}`,
            cause
          })
        )
      )
    const appendBatched = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.SessionStoreEntry>) =>
      Effect.gen(function*() {
        for (let i = 0; i < entries.length; i += batchSize) {
          yield* store.append(key, entries.slice(i, i + batchSize))
        }
      })

    const skipped = { lines: 0 }
    let sessions = 0
    let entries = 0
    let subagents = 0
    const listed = yield* source.listSessionFiles(options.projectKey)
    for (const info of listed) {
      const { projectKey, sessionId } = info
      const main = yield* readEntries(info.file)
      yield* appendBatched({ projectKey, sessionId }, main)
      entries += main.length
      const agents = yield* source.listSubagents(projectKey, sessionId)
      const sessionDir = path.join(source.projectsDir, projectKey, sessionId)
      for (const agent of agents) {
        const subpath = path.relative(sessionDir, agent.file).split(path.sep).join("/").slice(0, -".jsonl".length)
        const key: SessionStore.SessionKey = { projectKey, sessionId, subpath }
        const lines = yield* readEntries(agent.file)
        yield* appendBatched(key, lines)
        entries += lines.length
        if (agent.meta !== undefined) {
          yield* store.append(key, [{ ...agent.meta, type: "agent_metadata" }])
          entries += 1
        }
        subagents++
      }
      sessions++
      if (options.onProgress !== undefined) {
        yield* options.onProgress({ sessions, entries, currentSession: { projectKey, sessionId } })
      }
    }
    return { sessions, entries, subagents, skippedLines: skipped.lines }
  })
