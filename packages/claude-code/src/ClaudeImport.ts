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

type ImportError = ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError

interface SessionRef {
  readonly projectKey: string
  readonly sessionId: string
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
    const source = "listSessions" in options.from ? options.from : yield* ClaudeProjects.make(options.from)
    const context = yield* importContext(options, source)
    yield* context.loadRecords
    const moved = movedFiles(options, source, context)
    if (moved !== undefined) {
      const unchanged = yield* unchangedImport(options.to, moved, context.records, options.origin)
      if (unchanged !== undefined) {
        // an import killed while it derived left entries behind their watermark: derived here
        yield* refreshCatalog(options.to)
        return unchanged
      }
    }
    const listed = moved === undefined ? yield* source.listSessionFiles(options.projectKey) : moved.sessions
    const walk: Walk = {
      context,
      source,
      path: yield* Path.Path,
      onProgress: options.onProgress,
      total: listed.length,
      refused: new Set(),
      imported: [],
      subagents: 0
    }
    if (moved !== undefined) yield* importMovedFiles(walk, moved)
    else yield* importListedSessions(walk, listed as ReadonlyArray<ClaudeProjects.SessionFile>)
    if (options.origin !== undefined) {
      yield* PhaseBarrier.pause("origins")
      yield* recordOrigins(options.to, source, options.origin, walk.imported, options.projectKey)
    }
    yield* deriveCatalog(walk)
    const { totals } = context
    return {
      sessions: walk.imported.length,
      entries: totals.entries,
      subagents: walk.subagents,
      skippedLines: totals.skipped,
      filesRead: totals.filesRead,
      filesUnchanged: totals.filesUnchanged,
      bytesRead: totals.bytes,
      warnings: context.warnings,
      secretsMasked: totals.masked
    }
  })

/** What every file's import shares: the store, its ledger's records, the totals and warnings. */
const importContext = (options: ImportOptions, source: ClaudeProjects.ClaudeProjects) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const store = options.to
    const ledger = ImportLedger.ledgerOf(store)
    const sourceId = yield* ledgerSource(
      store,
      options.origin,
      yield* fs.realPath(source.projectsDir).pipe(Effect.orElseSucceed(() => path.resolve(source.projectsDir)))
    )
    const records = new Map<string, ImportLedger.ImportedFile>()
    const totals = { entries: 0, bytes: 0, skipped: 0, filesRead: 0, filesUnchanged: 0, masked: 0 }
    const context: ImportContext = {
      fs,
      store,
      ledger,
      filter: uuidlessFilter(store),
      sourceId,
      batchSize: Math.max(1, options.batchSize ?? 500),
      records,
      loadRecords: Effect.gen(function*() {
        if (ledger === undefined) return
        records.clear()
        for (const record of yield* ledger.importedFiles(sourceId)) records.set(record.file, record)
      }),
      totals,
      // what is stored: the entry, its secrets masked unless the caller keeps them
      stored: <A>(entry: A): A => {
        if (options.mask === false) return entry
        const { masked, value } = Redact.maskEntry(entry)
        totals.masked += masked
        return value
      },
      ioError: (file) => (cause) =>
        new ClaudeProjects.ClaudeProjectsError({
          reason: "Io",
          operation: "importClaudeDir",
          description: `cannot read ${file}: ${
            cause._tag === "TranscriptReaderError" ? cause.description : cause.message
          }`,
          cause
        }),
      warnings: []
    }
    return context
  })

/**
 * A re-sync's usual case, a plain tree with records: one synchronous listing with its `stat`s
 * tells the files that moved since their record (`undefined`: walk the source instead). None moved
 * (and every origin is recorded): the import returns at once (`UnchangedSync`); else it goes over
 * the moved ones only. (a `ClaudeProjects` over anything but a config directory's `projects` is
 * walked)
 */
const movedFiles = (
  options: ImportOptions,
  source: ClaudeProjects.ClaudeProjects,
  context: ImportContext
): PlainListing.PlainImport | undefined => {
  const configDir = nodePath.dirname(nodePath.resolve(source.projectsDir))
  const plain = context.ledger !== undefined && options.projectKey === undefined && context.records.size > 0 &&
      nodePath.join(configDir, "projects") === nodePath.resolve(source.projectsDir)
    ? PlainListing.importFiles(configDir)
    : undefined
  return plain !== undefined && plain.sessions.length > 0 ? plain : undefined
}

/** The walk over the sessions: what it imported, and the sessions a shared store refused. */
interface Walk {
  readonly context: ImportContext
  readonly source: ClaudeProjects.ClaudeProjects
  readonly path: Path.Path
  readonly onProgress: ImportOptions["onProgress"]
  /** Sessions listed. */
  readonly total: number
  /**
   * Sessions a shared store refused as another writer's (reason `NotOwner`: a hub member's
   * sessions are its own): skipped whole with one warning naming why, the others stored.
   */
  readonly refused: Set<string>
  /** Sessions imported, in order. */
  readonly imported: Array<SessionRef>
  subagents: number
}

const fileTask = (walk: Walk, key: SessionStore.SessionKey, file: string): FileTask => ({
  key,
  path: file,
  name: walk.path.relative(walk.source.projectsDir, file).split(walk.path.sep).join("/")
})

const importTranscript = (walk: Walk, key: SessionStore.SessionKey, file: string) => {
  const task = fileTask(walk, key, file)
  return skipRefused(walk.refused, walk.context.warnings, task, importFile.importTranscript(walk.context, task))
}

const importMeta = (walk: Walk, key: SessionStore.SessionKey, metaFile: string, meta: Record<string, unknown>) => {
  const task = fileTask(walk, key, metaFile)
  return skipRefused(walk.refused, walk.context.warnings, task, importFile.importMeta(walk.context, task, meta))
}

const reportProgress = (walk: Walk, session: SessionRef, indexing?: true) =>
  walk.onProgress === undefined ? Effect.void : walk.onProgress({
    sessions: walk.imported.length,
    total: walk.total,
    entries: walk.context.totals.entries,
    bytes: walk.context.totals.bytes,
    currentSession: { projectKey: session.projectKey, sessionId: session.sessionId },
    ...(indexing ? { indexing } : {})
  })

const sessionDone = (walk: Walk, session: SessionRef) =>
  Effect.suspend(() => {
    if (walk.refused.has(SessionOrigins.originKey(session))) return Effect.void
    walk.imported.push(session)
    return reportProgress(walk, session)
  })

/** The files a plain listing showed moved; the listing's order is the walk's. */
const importMovedFiles = (walk: Walk, moved: PlainListing.PlainImport) =>
  Effect.gen(function*() {
    const { records, totals } = walk.context
    // a session's transcript, then its subagents' files
    for (const group of PlainListing.bySession(moved)) {
      walk.subagents += group.subagents
      for (const file of group.files) {
        const record = records.get(file.name)
        if (record !== undefined && record.size === file.size && record.mtimeMs === file.mtime) {
          totals.filesUnchanged++
        } else if (file.kind !== "meta") {
          yield* importTranscript(walk, file.key, file.path)
        } else {
          // read as the full listing reads it: what no longer parses is no metadata
          const meta = yield* readMeta(file.path)
          if (Option.isSome(meta)) yield* importMeta(walk, file.key, file.path, meta.value)
        }
      }
      yield* sessionDone(walk, group.session)
    }
  })

/** Every listed session: its transcript, then each subagent's transcript and metadata. */
const importListedSessions = (walk: Walk, listed: ReadonlyArray<ClaudeProjects.SessionFile>) =>
  Effect.gen(function*() {
    const { path, source } = walk
    for (const { file, projectKey, sessionId } of listed) {
      yield* importTranscript(walk, { projectKey, sessionId }, file)
      const agents = yield* source.listSubagents(projectKey, sessionId)
      const sessionDir = path.join(source.projectsDir, projectKey, sessionId)
      for (const agent of agents) {
        const subpath = path.relative(sessionDir, agent.file).split(path.sep).join("/").slice(0, -".jsonl".length)
        const key: SessionStore.SessionKey = { projectKey, sessionId, subpath }
        yield* importTranscript(walk, key, agent.file)
        if (agent.meta !== undefined) {
          yield* importMeta(walk, key, agent.file.slice(0, -".jsonl".length) + ".meta.json", agent.meta)
        }
        walk.subagents++
      }
      yield* sessionDone(walk, { projectKey, sessionId })
    }
  })

/**
 * The catalog's derived data is advanced here, by the writer (docs/design.md, "Derived data in
 * the SQL stores"), so the first read after an import or a sync — `acx sessions --from`, a
 * search, the page — finds it current instead of deriving a whole store itself. Whatever this
 * import appended: an earlier one killed before its catalog step left entries to derive too.
 */
const deriveCatalog = (walk: Walk) =>
  Effect.gen(function*() {
    const { store, totals } = walk.context
    if (StoreCatalog.catalogOf(store) === undefined) return
    const last = walk.imported.at(-1)
    if (last !== undefined && totals.entries > 0) yield* reportProgress(walk, last, true)
    yield* refreshCatalog(store)
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
