/**
 * What the memory's CLI tests share: reading the memory database, and waiting for the worker (a
 * detached process) to reach a state.
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"

/** Rows of a query on a memory database, opened read-only. */
export const query = (file: string, sql: string): Array<Record<string, any>> => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(sql).all() as Array<Record<string, any>>
  } finally {
    db.close()
  }
}

/** Resolves once `check` holds; rejects naming `what` after `timeoutMs`. */
export const waitFor = async (what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * The pids of live processes whose environment names `home` as `ACX_HOME`: the detached memory
 * worker a hook started, and anything it runs. Linux's `/proc`; a process that went away while
 * being read is not counted.
 */
export const processesWithHome = (home: string): Array<number> => {
  const wanted = `ACX_HOME=${home}`
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(wanted)) found.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }
  return found
}

/**
 * Removes a test's acx home once no process uses it any more: a hook starts the worker detached,
 * and it writes its log (and may create the home again) after the test's own checks are done.
 */
export const removeHomeWhenIdle = async (home: string, timeoutMs = 60_000): Promise<void> => {
  await waitFor(`the processes using ${home} to exit`, () => processesWithHome(home).length === 0, timeoutMs)
  fs.rmSync(home, { recursive: true, force: true })
}

export { processesUnder, removeTreeWhenIdle } from "./processes.js"
