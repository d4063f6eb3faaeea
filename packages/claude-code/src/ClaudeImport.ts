/**
 * Imports a whole Claude Code config directory into any {@link SessionStore.SessionStore}: every
 * session of every project (the projectKey is the project DIRECTORY name, unlike the SDK's
 * `importSessionToStore`, which derives it from `dir`), its main transcript and every subagent
 * transcript (subpath = path under `<sessionId>/` minus `.jsonl`, e.g. `subagents/agent-<id>`),
 * each subagent's `agent-<id>.meta.json` appended after it as `{ type: "agent_metadata", ...meta }`
 * like the SDK's importer does.
 *
 * Lines are read as bytes (unparseable lines skipped and reported per file, lines that are not
 * valid UTF-8 kept with U+FFFD and reported with their byte offset) and appended in batches of
 * `batchSize`, each entry's secrets masked first (`Redact.maskEntry`, unless `mask: false`). It
 * ends by deriving every entry of the store its catalog has not yet, whatever an earlier import
 * that was killed left behind.
 *
 * **Exactly once, and incremental**, into a store that keeps an
 * {@link ImportLedger.ImportLedger} (the SQLite and Postgres adapters): each batch is appended
 * together with the file's new record (bytes taken, a fingerprint of them, the file's size and
 * mtime) by compare-and-set, so
 * - a file whose size and mtime are those recorded is not opened; in a plain tree one listing
 *   (`PlainListing.importFiles`) tells which files moved, and the import goes over those only (or
 *   only derives what the catalog has not when none did and every session's origin is recorded);
 * - a file that grew is read from the recorded offset (its fingerprint — hashes of its first KiB
 *   and of the KiB before the offset — tells growth from a rewrite);
 * - two imports of the same source at the same time store every line once: a batch whose record
 *   another import moved meanwhile stores nothing, and its import goes on from the new record;
 * - a last line without its newline is left for the next import unless it is a whole entry.
 *
 * Into a store without a ledger (and for a file rewritten in place), the whole file is read and
 * the import stays idempotent the old way: entries with a `uuid` are deduped by the store, and an
 * entry without one is not appended when an equal entry is already stored under the key from an
 * earlier run (a transcript's own repeated lines are all kept).
 *
 * @since 0.1.0
 */
import * as Redact from "@acx/convert/Redact"
import * as ImportLedger from "@acx/session-store/ImportLedger"
import * as PhaseBarrier from "@acx/session-store/PhaseBarrier"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as nodePath from "node:path"
import * as ClaudeProjects from "./ClaudeProjects.js"
import { uuidlessFilter } from "./internal/dedupeUuidless.js"
import * as importFile from "./internal/importFile.js"
import type { FileTask, ImportContext } from "./internal/importFile.js"
import { ledgerSource, recordOrigins } from "./internal/importOrigins.js"
import { readMeta } from "./internal/projectsListing.js"
import * as PlainListing from "./PlainListing.js"
import type * as ProjectOrigin from "./ProjectOrigin.js"
import type * as TranscriptReader from "./TranscriptReader.js"
import * as UnchangedSync from "./UnchangedSync.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ImportProgress {
  /** Sessions finished so far. */
  readonly sessions: number
  /** Sessions listed: what `sessions` counts up to. */
  readonly total: number
  /** Entries read so far (what the store already held and skips included). */
  readonly entries: number
  /** Bytes read so far. */
  readonly bytes: number
  readonly currentSession: { readonly projectKey: string; readonly sessionId: string }
  /**
   * Every file is read; the store is deriving what the catalog keeps (metadata, usage, the
   * search index) from the entries this import added: the last, and on a first import the
   * longest, step.
   */
  readonly indexing?: boolean | undefined
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
  /**
   * The machine and user importing (`ProjectOrigin.localOrigin()`): the ledger is then keyed by
   * machine and path, and each session's origin is recorded in a store that keeps origins
   * (`@acx/session-store/SessionOrigins`). Absent: the ledger is keyed by path, as before.
   */
  readonly origin?: ProjectOrigin.Origin | undefined
  /**
   * Mask the secrets of every entry before it is stored (`Redact.maskEntry`, the page's mask):
   * a store others read never holds them. Default `true`; `false` stores the transcript as
   * written, for a store only its owner reads.
   *
   * @since 0.5.0
   */
  readonly mask?: boolean | undefined
}

/**
 * Lines of one file that were not stored as they were (the fields: `internal/importFile.ts`).
 *
 * @since 0.1.0
 * @category models
 */
export type FileWarning = importFile.FileWarning

/**
 * @since 0.1.0
 * @category models
 */
export interface ImportResult {
  readonly sessions: number
  /** Entries read this run (what the store already held included; 0 for unchanged files). */
  readonly entries: number
  readonly subagents: number
  /** Non-blank lines that are not entries (malformed JSON, non-objects; not a torn last line). */
  readonly skippedLines: number
  /** Files read (wholly or from where the last import stopped). */
  readonly filesRead: number
  /** Files the ledger showed unchanged, not opened. */
  readonly filesUnchanged: number
  /** Bytes read. */
  readonly bytesRead: number
  /** Per file: lines skipped or not valid UTF-8. */
  readonly warnings: ReadonlyArray<FileWarning>
  /**
   * Secrets masked in the entries this run read and appended (`ImportOptions.mask`; an entry the
   * store already held, or a batch retried after another import moved its record, counts again).
   *
   * @since 0.5.0
   */
  readonly secretsMasked: number
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
    const store = options.to
    const ledger = ImportLedger.ledgerOf(store)
    const filter = uuidlessFilter(store)
    const batchSize = Math.max(1, options.batchSize ?? 500)
    const ioError = (file: string) => (cause: PlatformError.PlatformError | TranscriptReader.TranscriptReaderError) =>
      new ClaudeProjects.ClaudeProjectsError({
        reason: "Io",
        operation: "importClaudeDir",
        description: `cannot read ${file}: ${
          cause._tag === "TranscriptReaderError" ? cause.description : cause.message
        }`,
        cause
      })

    const sourceId = yield* ledgerSource(
      store,
      options.origin,
      yield* fs.realPath(source.projectsDir).pipe(Effect.orElseSucceed(() => path.resolve(source.projectsDir)))
    )
    const records = new Map<string, ImportLedger.ImportedFile>()
    const loadRecords = Effect.gen(function*() {
      if (ledger === undefined) return
      records.clear()
      for (const record of yield* ledger.importedFiles(sourceId)) records.set(record.file, record)
    })
    yield* loadRecords
    // A re-sync's usual case, a plain tree with records: one synchronous listing with its `stat`s
    // tells the files that moved since their record. None moved (and every origin is recorded):
    // the import returns at once (`UnchangedSync`); else it goes over the moved ones only.
    // (a `ClaudeProjects` over anything but a config directory's `projects` is walked)
    const configDir = nodePath.dirname(nodePath.resolve(source.projectsDir))
    const plain = ledger !== undefined && options.projectKey === undefined && records.size > 0 &&
        nodePath.join(configDir, "projects") === nodePath.resolve(source.projectsDir)
      ? PlainListing.importFiles(configDir)
      : undefined
    const moved = plain !== undefined && plain.sessions.length > 0 ? plain : undefined
    if (moved !== undefined) {
      const unchanged = yield* unchangedImport(store, moved, records, options.origin)
      if (unchanged !== undefined) {
        // an import killed while it derived left entries behind their watermark: derived here
        yield* refreshCatalog(store)
        return unchanged
      }
    }

    const totals = { entries: 0, bytes: 0, skipped: 0, filesRead: 0, filesUnchanged: 0, masked: 0 }
    // what is stored: the entry, its secrets masked unless the caller keeps them
    const stored = <A>(entry: A): A => {
      if (options.mask === false) return entry
      const { masked, value } = Redact.maskEntry(entry)
      totals.masked += masked
      return value
    }
    const warnings: Array<FileWarning> = []
    const context: ImportContext = {
      fs,
      store,
      ledger,
      filter,
      sourceId,
      batchSize,
      records,
      loadRecords,
      totals,
      stored,
      ioError,
      warnings
    }

    const relative = (file: string) => path.relative(source.projectsDir, file).split(path.sep).join("/")
    // Sessions a shared store refused as another writer's (reason `NotOwner`: a hub member's
    // sessions are its own): skipped whole with one warning naming why, the others stored.
    const refused = new Set<string>()
    const unlessRefused = <R>(task: FileTask, store: Effect.Effect<void, ImportError, R>) =>
      skipRefused(refused, warnings, task, store)
    const importTranscript = (key: SessionStore.SessionKey, file: string) => {
      const task: FileTask = { key, path: file, name: relative(file) }
      return unlessRefused(task, importFile.importTranscript(context, task))
    }

    let sessions = 0
    let subagents = 0
    const imported: Array<{ readonly projectKey: string; readonly sessionId: string }> = []
    const listed = moved === undefined ? yield* source.listSessionFiles(options.projectKey) : moved.sessions
    const sessionDone = (session: { readonly projectKey: string; readonly sessionId: string }) =>
      Effect.gen(function*() {
        if (refused.has(SessionOrigins.originKey(session))) return
        sessions++
        imported.push(session)
        if (options.onProgress !== undefined) {
          yield* options.onProgress({
            sessions,
            total: listed.length,
            entries: totals.entries,
            bytes: totals.bytes,
            currentSession: { projectKey: session.projectKey, sessionId: session.sessionId }
          })
        }
      })
    const importMeta = (key: SessionStore.SessionKey, metaFile: string, meta: Record<string, unknown>) => {
      const task: FileTask = { key, path: metaFile, name: relative(metaFile) }
      return unlessRefused(task, importFile.importMeta(context, task, meta))
    }

    if (moved !== undefined) {
      // the listing's order is the walk's: a session's transcript, then its subagents' files
      for (const group of PlainListing.bySession(moved)) {
        subagents += group.subagents
        for (const file of group.files) {
          const record = records.get(file.name)
          if (record !== undefined && record.size === file.size && record.mtimeMs === file.mtime) {
            totals.filesUnchanged++
          } else if (file.kind !== "meta") {
            yield* importTranscript(file.key, file.path)
          } else {
            // read as the full listing reads it: what no longer parses is no metadata
            const meta = yield* readMeta(file.path)
            if (Option.isSome(meta)) yield* importMeta(file.key, file.path, meta.value)
          }
        }
        yield* sessionDone(group.session)
      }
    } else {
      for (const info of listed as ReadonlyArray<ClaudeProjects.SessionFile>) {
        const { projectKey, sessionId } = info
        yield* importTranscript({ projectKey, sessionId }, info.file)
        const agents = yield* source.listSubagents(projectKey, sessionId)
        const sessionDir = path.join(source.projectsDir, projectKey, sessionId)
        for (const agent of agents) {
          const subpath = path.relative(sessionDir, agent.file).split(path.sep).join("/").slice(0, -".jsonl".length)
          const key: SessionStore.SessionKey = { projectKey, sessionId, subpath }
          yield* importTranscript(key, agent.file)
          if (agent.meta !== undefined) {
            yield* importMeta(key, agent.file.slice(0, -".jsonl".length) + ".meta.json", agent.meta)
          }
          subagents++
        }
        yield* sessionDone({ projectKey, sessionId })
      }
    }
    if (options.origin !== undefined) {
      yield* PhaseBarrier.pause("origins")
      yield* recordOrigins(store, source, options.origin, imported, options.projectKey)
    }
    // The catalog's derived data is advanced here, by the writer (docs/design.md, "Derived data in
    // the SQL stores"), so the first read after an import or a sync — `acx sessions --from`, a
    // search, the page — finds it current instead of deriving a whole store itself. Whatever this
    // import appended: an earlier one killed before its catalog step left entries to derive too.
    const last = imported.at(-1)
    if (StoreCatalog.catalogOf(store) !== undefined) {
      if (options.onProgress !== undefined && last !== undefined && totals.entries > 0) {
        yield* options.onProgress({
          sessions,
          total: listed.length,
          entries: totals.entries,
          bytes: totals.bytes,
          currentSession: { projectKey: last.projectKey, sessionId: last.sessionId },
          indexing: true
        })
      }
      yield* refreshCatalog(store)
    }
    return {
      sessions,
      entries: totals.entries,
      subagents,
      skippedLines: totals.skipped,
      filesRead: totals.filesRead,
      filesUnchanged: totals.filesUnchanged,
      bytesRead: totals.bytes,
      warnings,
      secretsMasked: totals.masked
    }
  })

/**
 * Derives every entry of the store not derived yet (one indexed lookup when none is behind), in
 * a store that keeps a catalog.
 */
const refreshCatalog = (store: SessionStore.SessionStore) => {
  const catalog = StoreCatalog.catalogOf(store)
  return catalog === undefined ? Effect.void : Effect.asVoid(catalog.refresh())
}

/**
 * The result of an import of the whole directory (`listing`) that would read, store and record
 * nothing, or `undefined` when it may have work.
 */
const unchangedImport = (
  store: SessionStore.SessionStore,
  listing: PlainListing.PlainImport,
  records: ReadonlyMap<string, ImportLedger.ImportedFile>,
  origin: ProjectOrigin.Origin | undefined
) =>
  Effect.gen(function*() {
    const origins = origin === undefined ? undefined : SessionOrigins.originsOf(store)
    // without an origin to record (or a store that keeps none), none is missing
    const known = origins === undefined
      ? undefined
      : new Set((yield* origins.listOrigins(undefined, listing.sessions)).map(SessionOrigins.originKey))
    return UnchangedSync.unchangedImport(
      listing,
      records,
      (projectKey, sessionId) => known === undefined || known.has(SessionOrigins.originKey({ projectKey, sessionId }))
    )
  })

type ImportError = ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError

/**
 * `store` (the import of one file of a session) unless its session was refused before. A store
 * refusing it as another writer's (reason `NotOwner`) refuses the whole session: it joins
 * `refused`, with one warning naming the file and why.
 */
const skipRefused = <R>(
  refused: Set<string>,
  warnings: Array<FileWarning>,
  task: FileTask,
  store: Effect.Effect<void, ImportError, R>
): Effect.Effect<void, ImportError, R> => {
  const session = SessionOrigins.originKey(task.key)
  return refused.has(session) ? Effect.void : Effect.catchIf(
    store,
    (error): error is SessionStore.SessionStoreError =>
      error._tag === "SessionStoreError" && error.reason === "NotOwner",
    (error) =>
      Effect.sync(() => {
        refused.add(session)
        warnings.push({
          file: task.name,
          malformedLines: 0,
          invalidUtf8Lines: 0,
          firstOffset: -1,
          unread: error.description
        })
      })
  )
}
