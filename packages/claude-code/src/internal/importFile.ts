/**
 * One file's step of `ClaudeImport.importClaudeDir`: a transcript read from where its ledger
 * record says (its fingerprint telling growth from a rewrite) and stored in batches, each with the
 * file's next record by compare-and-set; a subagent's `.meta.json` stored as one entry when it
 * changed; a batch whose record another import moved retried from the new record; and what each
 * file could not take, counted into its warning.
 *
 * @internal
 */
import * as EntryText from "@acx/session-store/EntryText"
import type * as ImportLedger from "@acx/session-store/ImportLedger"
import * as PhaseBarrier from "@acx/session-store/PhaseBarrier"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as PlatformError from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import * as ClaudeProjects from "../ClaudeProjects.js"
import * as TranscriptReader from "../TranscriptReader.js"
import { canonicalJson } from "./dedupeUuidless.js"
import { entryOfLine } from "./jsonl.js"

/** Lines of one file that were not stored as they were (`ClaudeImport.FileWarning`). */
export interface FileWarning {
  /** The file, relative to the projects directory. */
  readonly file: string
  /**
   * Non-blank lines that are not entries (malformed JSON, non-objects, JSON nested deeper than
   * `JsonDepth.MAX_DEPTH`, a line over `TranscriptReader.MAX_LINE_BYTES`); a torn last line is
   * `incompleteAt`.
   */
  readonly malformedLines: number
  /** Lines that were not valid UTF-8, stored with U+FFFD in place of the bad bytes. */
  readonly invalidUtf8Lines: number
  /** Byte offset of the first such line (malformed or not UTF-8). */
  readonly firstOffset: number
  /** Why the file was not read at all: gone, or not a regular file (a FIFO, a socket, …). */
  readonly unread?: string | undefined
  /**
   * The byte offset of a last line without its newline that is not a whole entry (a line being
   * written): not stored, and read again by the next import (once complete, it is stored).
   */
  readonly incompleteAt?: number | undefined
}

const PRINT = 1024
// A batch whose record another import moved is retried from the new record; an import that
// loses this many times in a row on one file is racing something that never stops.
const MAX_CONFLICTS = 1000

const sha1 = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("base64url").slice(0, 16)

/** One file to import: its session key, its path, and its name in the ledger. */
export interface FileTask {
  readonly key: SessionStore.SessionKey
  /** Absolute path. */
  readonly path: string
  /** Relative to the projects directory, `/`-separated: the ledger's file name. */
  readonly name: string
}

class ImportConflictError extends Error {}

/** What the files of one import share: the store and its ledger, the records read, the totals. */
export interface ImportContext {
  readonly fs: FileSystem.FileSystem
  readonly store: SessionStore.SessionStore
  readonly ledger: ImportLedger.ImportLedger | undefined
  /** Drops the uuid-less entries the store holds already under a key (see `dedupeUuidless`). */
  readonly filter: (
    key: SessionStore.SessionKey,
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>
  ) => Effect.Effect<ReadonlyArray<SessionStore.SessionStoreEntry>, SessionStore.SessionStoreError>
  /** The ledger's source ID of the projects directory. */
  readonly sourceId: string
  readonly batchSize: number
  /** The ledger's records by file name, as `loadRecords` last read them and batches moved them. */
  readonly records: Map<string, ImportLedger.ImportedFile>
  readonly loadRecords: Effect.Effect<void, SessionStore.SessionStoreError>
  readonly totals: {
    entries: number
    bytes: number
    skipped: number
    filesRead: number
    filesUnchanged: number
    masked: number
  }
  /** The entry as it is stored: its secrets masked unless the caller keeps them. */
  readonly stored: <A>(entry: A) => A
  readonly ioError: (
    file: string
  ) => (
    cause: PlatformError.PlatformError | TranscriptReader.TranscriptReaderError
  ) => ClaudeProjects.ClaudeProjectsError
  readonly warnings: Array<FileWarning>
}

// Where the file's bytes up to `offset` come from: hashes of the first KiB and the KiB before it.
// `head` holds the hash of the file's first KiB once read: it cannot change within a pass, so
// each batch reads only the KiB before its offset.
const fingerprintAt = (file: TranscriptReader.OpenTranscript, offset: number, head: { hash?: string }) =>
  Effect.gen(function*() {
    if (offset === 0) return "empty"
    const read = (start: number, length: number) => TranscriptReader.readAt(file, start, length)
    let headHash = offset >= PRINT ? head.hash : undefined
    if (headHash === undefined) {
      headHash = sha1(yield* read(0, Math.min(PRINT, offset)))
      if (offset >= PRINT) head.hash = headHash
    }
    const tailStart = Math.max(0, offset - PRINT)
    return `${offset}:${headHash}:${sha1(yield* read(tailStart, offset - tailStart))}`
  })

/** Stores one batch (and, with a ledger, the file's next record); a moved record is a conflict. */
const storeBatch = (
  context: ImportContext,
  task: FileTask,
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
  dedupe: boolean,
  advance: ImportLedger.LedgerAdvance | undefined
) =>
  Effect.gen(function*() {
    const { filter, ledger, records, store, totals } = context
    const fresh = dedupe && entries.length > 0 ? yield* filter(task.key, entries) : entries
    if (ledger === undefined || advance === undefined) {
      if (fresh.length > 0) yield* store.append(task.key, fresh)
    } else {
      const stored = yield* ledger.appendImported(task.key, fresh, advance)
      if (!stored) return yield* Effect.fail(new ImportConflictError())
      records.set(advance.next.file, advance.next)
      yield* PhaseBarrier.pause("ledger")
    }
    totals.entries += entries.length
  })

// None when the file is gone (removed after the listing)
const statOf = (context: ImportContext, task: FileTask) =>
  context.fs.stat(task.path).pipe(
    Effect.map((info) =>
      Option.some({
        size: Number(info.size),
        mtimeMs: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
      })
    ),
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.succeed(Option.none())
    ),
    Effect.mapError(context.ioError(task.name))
  )

const unchanged = (
  ledger: ImportLedger.ImportLedger | undefined,
  record: ImportLedger.ImportedFile | null,
  size: number,
  mtimeMs: number
) => ledger !== undefined && record !== null && record.size === size && record.mtimeMs === mtimeMs

// The entry of a line as it is stored; when masking left it as it was, the line is its stored
// text (`EntryText`: appended without being encoded again).
const storedLine = (
  context: ImportContext,
  text: string,
  entry: SessionStore.SessionStoreEntry
): SessionStore.SessionStoreEntry => {
  const stored = context.stored(entry)
  if (stored === entry) EntryText.remember(entry, text)
  return stored
}

/** One pass over a transcript from where its record says; fails with a conflict to be retried. */
const importTranscriptOnce = (context: ImportContext, task: FileTask, warning: Warning) =>
  Effect.scoped(Effect.gen(function*() {
    const { batchSize, ioError, ledger, records, sourceId, totals } = context
    const stat = yield* statOf(context, task)
    if (Option.isNone(stat)) {
      warning.unread = "not found (removed after it was listed)"
      return
    }
    const { mtimeMs, size } = stat.value
    const record = records.get(task.name) ?? null
    if (unchanged(ledger, record, size, mtimeMs)) {
      totals.filesUnchanged++
      return
    }
    const opened = yield* Effect.either(TranscriptReader.open(task.path))
    if (opened._tag === "Left") {
      // gone, or not a regular file (a FIFO swapped in after the listing): skipped, never waited on
      if (opened.left.reason === "Io") return yield* Effect.fail(ioError(task.name)(opened.left))
      warning.unread = opened.left.description
      return
    }
    const file = opened.right
    yield* PhaseBarrier.pause("read")
    const head: { hash?: string } = {}
    const fingerprint = (offset: number) => fingerprintAt(file, offset, head).pipe(Effect.mapError(ioError(task.name)))
    let start = 0
    if (ledger !== undefined && record !== null && record.offset <= size) {
      if ((yield* fingerprint(record.offset)) === record.fingerprint) start = record.offset
    }
    // from the start of a file the store may hold already (no record, or rewritten in place)
    const dedupe = start === 0
    totals.filesRead++
    let expected = record
    let batch: Array<SessionStore.SessionStoreEntry> = []
    let taken = start
    // counted since the last stored batch: they count once that batch is stored
    const seen = emptyCounts()
    // A record written mid-file says `size: offset`: it is never taken for the whole file's,
    // so an import stopped (or outrun) there is carried on by the next one.
    const flush = (final: boolean) =>
      Effect.gen(function*() {
        const entries = batch
        batch = []
        if (ledger === undefined) {
          yield* storeBatch(context, task, entries, dedupe, undefined)
        } else {
          const next: ImportLedger.ImportedFile = {
            file: task.name,
            size: final ? size : taken,
            mtimeMs,
            offset: taken,
            fingerprint: yield* fingerprint(taken)
          }
          yield* storeBatch(context, task, entries, dedupe, { source: sourceId, expected, next })
          expected = next
        }
        commit(warning, seen)
      })
    // a plain loop over a read's lines (an effect per line was the runtime's work on each of
    // them): the generator yields only to store a full batch
    const take = (line: TranscriptReader.Line): void => {
      const entry = line.tooLarge ? undefined : entryOfLine(line.text)
      count(seen, line, entry === undefined && (line.tooLarge || line.text.trim() !== ""))
      if (entry !== undefined) batch.push(storedLine(context, line.text, entry))
      taken = line.end
    }
    let rest: TranscriptReader.Line | undefined
    yield* TranscriptReader.lines(file, { from: start, until: size }).pipe(
      Stream.mapError(ioError(task.name)),
      Stream.runForEach((read) =>
        Effect.gen(function*() {
          for (const line of read.lines) {
            totals.bytes += line.end - line.start
            take(line)
            if (batch.length >= batchSize) yield* flush(false)
          }
          if (read.rest !== undefined) {
            rest = read.rest
            totals.bytes += rest.end - rest.start
          }
        })
      )
    )
    if (rest !== undefined && (rest.tooLarge || rest.text.trim() !== "")) {
      const entry = rest.tooLarge ? undefined : entryOfLine(rest.text)
      if (entry !== undefined) {
        // a whole entry without its newline is taken (a `\n` added later reads as a blank line)
        count(seen, rest, false)
        batch.push(storedLine(context, rest.text, entry))
        taken = rest.end
      } else if (rest.tooLarge) {
        // too large so far: left for the next import, which reads it again
        count(seen, rest, true)
      } else {
        // torn, being written: left for the next import, which reads it again (not malformed)
        warning.incompleteAt = rest.start
      }
    }
    const moved = expected === null || expected.offset !== taken || expected.size !== size ||
      expected.mtimeMs !== mtimeMs
    if (batch.length > 0 || (ledger !== undefined && moved)) yield* flush(true)
    commit(warning, seen)
  }))

/** A subagent's `.meta.json`, appended as one `agent_metadata` entry when it changed. */
const importMetaOnce = (context: ImportContext, task: FileTask, meta: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { ledger, records, sourceId, stored, totals } = context
    const stat = yield* statOf(context, task)
    if (Option.isNone(stat)) return
    const { mtimeMs, size } = stat.value
    const record = records.get(task.name) ?? null
    if (unchanged(ledger, record, size, mtimeMs)) {
      totals.filesUnchanged++
      return
    }
    totals.filesRead++
    const entry: SessionStore.SessionStoreEntry = { ...meta, type: "agent_metadata" }
    const fingerprint = `meta:${sha1(new TextEncoder().encode(canonicalJson(entry)))}`
    const next: ImportLedger.ImportedFile = { file: task.name, size, mtimeMs, offset: size, fingerprint }
    const entries = record !== null && record.fingerprint === fingerprint ? [] : [stored(entry)]
    yield* storeBatch(
      context,
      task,
      entries,
      true,
      ledger === undefined ? undefined : { source: sourceId, expected: record, next }
    )
  })

/** `once` again from the ledger's records while another import moves them, up to `MAX_CONFLICTS` times. */
const retrying = <A, E, R>(
  context: ImportContext,
  name: string,
  once: Effect.Effect<A, E | ImportConflictError, R>
): Effect.Effect<A, E | ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError, R> => {
  const attempt = (
    n: number
  ): Effect.Effect<A, E | ClaudeProjects.ClaudeProjectsError | SessionStore.SessionStoreError, R> =>
    Effect.catchIf(
      once,
      (error): error is ImportConflictError => error instanceof ImportConflictError,
      () =>
        n >= MAX_CONFLICTS
          ? Effect.fail(
            new ClaudeProjects.ClaudeProjectsError({
              reason: "Io",
              operation: "importClaudeDir",
              description: `${name} keeps changing under another import; try again once that import is done`
            })
          )
          : Effect.zipRight(context.loadRecords, attempt(n + 1))
    )
  return attempt(1)
}

/** A transcript's import, retried on conflicts; what it could not take joins the import's warnings. */
export const importTranscript = (context: ImportContext, task: FileTask) =>
  Effect.gen(function*() {
    const { totals, warnings } = context
    const warning = emptyCounts()
    yield* retrying(context, task.name, importTranscriptOnce(context, task, warning))
    totals.skipped += warning.malformed
    if (
      warning.malformed > 0 || warning.invalidUtf8 > 0 || warning.unread !== undefined ||
      warning.incompleteAt !== undefined
    ) {
      warnings.push({
        file: task.name,
        malformedLines: warning.malformed,
        invalidUtf8Lines: warning.invalidUtf8,
        firstOffset: warning.firstOffset,
        ...(warning.unread === undefined ? {} : { unread: warning.unread }),
        ...(warning.incompleteAt === undefined ? {} : { incompleteAt: warning.incompleteAt })
      })
    }
  })

/** A subagent's `.meta.json`, retried on conflicts. */
export const importMeta = (context: ImportContext, task: FileTask, meta: Record<string, unknown>) =>
  retrying(context, task.name, importMetaOnce(context, task, meta))

interface Warning {
  malformed: number
  invalidUtf8: number
  firstOffset: number
  unread?: string
  incompleteAt?: number
}

const emptyCounts = (): Warning => ({ malformed: 0, invalidUtf8: 0, firstOffset: -1 })

// A line both malformed and not UTF-8 (binary garbage) counts as malformed only: it is not stored.
const count = (counts: Warning, line: TranscriptReader.Line, malformed: boolean): void => {
  if (malformed) counts.malformed++
  else if (line.invalidUtf8) counts.invalidUtf8++
  if ((malformed || line.invalidUtf8) && counts.firstOffset < 0) counts.firstOffset = line.start
}

const commit = (into: Warning, from: Warning): void => {
  into.malformed += from.malformed
  into.invalidUtf8 += from.invalidUtf8
  if (into.firstOffset < 0) into.firstOffset = from.firstOffset
  from.malformed = 0
  from.invalidUtf8 = 0
  from.firstOffset = -1
}
