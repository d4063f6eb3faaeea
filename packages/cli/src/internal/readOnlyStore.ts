/**
 * How the plain store reads (`storeReads.ts`) and the sync's first step (`unchangedSync.ts`) open
 * a SQLite store: read-only, the file must exist (nothing is ever created), through
 * better-sqlite3 with acx's addon where it has one.
 */
import * as SqliteAddon from "@acx/environment/SqliteAddon"
import Database from "better-sqlite3"

/** The store `file` opened read-only; throws when it is not there or not a database. */
export const openReadOnly = (file: string): Database.Database => {
  const addon = SqliteAddon.addonPath()
  return new Database(file, {
    readonly: true,
    fileMustExist: true,
    ...(addon === undefined ? {} : { nativeBinding: addon })
  })
}
