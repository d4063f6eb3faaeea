/**
 * What the memory's CLI tests share: reading the memory database, and waiting for the worker (a
 * detached process) to reach a state.
 */
import Database from "better-sqlite3"

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
