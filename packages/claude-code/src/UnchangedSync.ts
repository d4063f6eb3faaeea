/**
 * What `acx sync` finds in a config directory that has not changed since the last sync, decided
 * without Effect, synchronously: by the first step of `acx sync` (before Effect loads) and by
 * `ClaudeImport` alike. The names of the sync's lock ({@link lockName}, {@link AGAIN}) and the check itself
 * ({@link unchangedImport}). `ClaudeSync` takes its lock by these names.
 *
 * The check is certain only when every file an import would go over
 * (`PlainListing.importFiles`: a plain tree) has a ledger record at its size and mtime (so
 * `ClaudeImport.importClaudeDir` would open none of them and append nothing) and every session
 * has its origin recorded (so it would record none): what it answers is then exactly that
 * import's result. Anything else is `undefined`, and the import goes over the files.
 *
 * @since 0.4.0
 */
import { createHash } from "node:crypto"
import type * as PlainListing from "./PlainListing.js"

/**
 * The name of the mark a sync that found the lock held leaves for its holder.
 *
 * @since 0.4.0
 * @category locks
 */
export const AGAIN = "again"

/**
 * The lock directory of a target and a projects directory: a hash of both (a file name, whatever
 * characters the target holds).
 *
 * @since 0.4.0
 * @category locks
 */
export const lockName = (target: string, projectsDir: string): string =>
  createHash("sha256").update(`${target}\n${projectsDir}`).digest("hex").slice(0, 24)

/**
 * A ledger record as far as the check reads it (`ImportLedger.ImportedFile`'s).
 *
 * @since 0.4.0
 * @category models
 */
export interface RecordedFile {
  readonly size: number
  readonly mtimeMs: number
}

/**
 * What an import that reads and stores nothing returns: `ClaudeImport.ImportResult` with nothing
 * read (declared here, not imported, so that `ClaudeImport`, which asks this module first, and
 * this module import nothing of each other's).
 *
 * @since 0.4.0
 * @category models
 */
export interface UnchangedResult {
  readonly sessions: number
  readonly entries: 0
  readonly subagents: number
  readonly skippedLines: 0
  readonly filesRead: 0
  readonly filesUnchanged: number
  readonly bytesRead: 0
  readonly warnings: ReadonlyArray<never>
  readonly secretsMasked: 0
}

/**
 * The result an import of `listing` would return, when it would read and store nothing: every
 * file recorded (`records`, by the ledger's file name) at its size and mtime, every session's
 * origin recorded (`hasOrigin`). `undefined` otherwise (the import has work to do, or nothing was
 * listed: the full path words that).
 *
 * @since 0.4.0
 * @category checking
 */
export const unchangedImport = (
  listing: PlainListing.PlainImport,
  records: ReadonlyMap<string, RecordedFile>,
  hasOrigin: (projectKey: string, sessionId: string) => boolean
): UnchangedResult | undefined => {
  if (listing.sessions.length === 0) return undefined
  for (const file of listing.files) {
    const record = records.get(file.name)
    if (record === undefined || record.size !== file.size || record.mtimeMs !== file.mtime) return undefined
  }
  if (!listing.sessions.every((session) => hasOrigin(session.projectKey, session.sessionId))) return undefined
  return {
    sessions: listing.sessions.length,
    entries: 0,
    subagents: listing.subagents,
    skippedLines: 0,
    filesRead: 0,
    filesUnchanged: listing.files.length,
    bytesRead: 0,
    warnings: [],
    secretsMasked: 0
  }
}
