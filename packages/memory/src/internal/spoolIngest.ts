/**
 * The worker's side of the hook's spool: inputs a hook could not record (the database was
 * locked) are recorded in name order (their names start with the time they were spooled), each
 * file removed once recorded or found to be no longer one the memory records; the temporaries of
 * hooks killed mid-write are removed once they are a minute old.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import * as HookRunner from "../HookRunner.js"
import type { MemoryConfig, MemoryPaths } from "../MemoryConfig.js"
import * as Sqlite from "./sqlite.js"

/** Whether inputs wait in the spool (none when it cannot be read). */
export const waiting = (files: MemoryPaths): boolean => {
  try {
    return fs.readdirSync(files.spool).some((name) => name.endsWith(".json") && !name.startsWith("."))
  } catch {
    return false
  }
}

/** Records the spooled inputs; how many were new events. Throws what the file system or the database throws. */
export const ingest = (files: MemoryPaths, config: MemoryConfig): number => {
  // a hook killed between writing a spool file and renaming it into place left its temporary
  AcxHome.removeStaleTemporaries(files.spool)
  let names: Array<string>
  try {
    names = fs.readdirSync(files.spool).filter((name) => name.endsWith(".json") && !name.startsWith("."))
  } catch {
    return 0
  }
  if (names.length === 0) return 0
  const db = Sqlite.open(files.database)
  let recorded = 0
  try {
    for (const name of names.sort()) {
      const file = path.join(files.spool, name)
      const spooled = JSON.parse(fs.readFileSync(file, "utf8")) as HookRunner.Spooled
      const at = Number(name.split("-")[0])
      const when = Number.isFinite(at) ? at : Date.now()
      const position = typeof spooled.position === "number" ? spooled.position : undefined
      if (HookRunner.recordSpooled(db, spooled.event, spooled.raw, config, when, spooled.key, position)) {
        recorded++
      }
      fs.unlinkSync(file)
    }
  } finally {
    db.close()
  }
  return recorded
}
