/**
 * SQLite failures that are the user's environment, not a bug, told as such: a read-only
 * database (SQLITE_READONLY: the file, or the directory where SQLite must create its `-wal` and
 * `-shm` files, cannot be written), a file that cannot be opened at all (SQLITE_CANTOPEN), and a
 * database another process holds locked past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED).
 * Everything else stays a `Storage` error with the driver's message.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SessionStore from "../SessionStore.js"

/** The SQLite result code (`SQLITE_…`) somewhere under `cause`, if any. */
export const sqliteCode = (cause: unknown): string | undefined => {
  let current = cause
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { readonly code?: unknown }).code
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code
    current = (current as { readonly cause?: unknown }).cause
  }
  return undefined
}

export interface Classified {
  readonly reason: "ReadOnly" | "Locked" | "Storage"
  readonly description: string
}

const kindOf = (file: string): "file" | "directory" | "missing" => {
  try {
    return fs.statSync(file).isDirectory() ? "directory" : "file"
  } catch {
    return "missing"
  }
}

/**
 * The read-only and cannot-open cases of `cause`, described for `filename` (when the store knows
 * its file), or `undefined` for any other failure.
 */
export const classify = (cause: unknown, filename: string | undefined): Classified | undefined => {
  const code = sqliteCode(cause)
  if (code === undefined) return undefined
  const file = filename ?? "the SQLite database"
  if (code.startsWith("SQLITE_READONLY")) return { reason: "ReadOnly", description: `database is read-only: ${file}` }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return {
      reason: "Locked",
      description: `database is locked by another process: ${file} (an import or sync still running, ` +
        "or a program holding a transaction open): try again once it is done"
    }
  }
  if (code !== "SQLITE_CANTOPEN" || filename === undefined) return undefined
  const dir = path.dirname(filename)
  const kind = kindOf(filename)
  if (kind === "directory") return { reason: "Storage", description: `cannot open database ${file}: it is a directory` }
  if (kind === "file") {
    // The file is there but SQLite could not open it for writing with its journal files.
    return {
      reason: "ReadOnly",
      description: `database is read-only: ${file} (SQLite cannot write it, or create its -wal/-shm files in ${dir})`
    }
  }
  return {
    reason: "Storage",
    description: kindOf(dir) === "directory"
      ? `cannot create database ${file}: the directory ${dir} is not writable`
      : `cannot create database ${file}: the directory ${dir} does not exist`
  }
}

/** A failure's message. */
export const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** A database failure as the store's error; the read-only and cannot-open cases told as such. */
export const storageErrorOf =
  (operation: string, filename?: string) => (cause: unknown): SessionStore.SessionStoreError => {
    const known = classify(cause, filename)
    return new SessionStore.SessionStoreError({
      reason: known?.reason ?? "Storage",
      operation,
      description: known?.description ?? describe(cause),
      cause
    })
  }

/** A stored JSON text, parsed; a text that does not parse fails as a `Storage` error. */
export const parseJson = (operation: string, text: string): Effect.Effect<unknown, SessionStore.SessionStoreError> =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: storageErrorOf(operation) })
