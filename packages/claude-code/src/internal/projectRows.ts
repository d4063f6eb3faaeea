/**
 * The listing kept per project (`acx sessions` over a config directory): for each project, in
 * `$ACX_HOME/cache/listing-<sha256(projectsDir)[:16]>/`, its rows as built (secrets masked, no
 * origin) with their sort keys (`<sha256(projectKey)[:16]>.rows.json`), under a digest of what
 * they are made of, and its listing-cache entries (`<…>.entries.json`, `SessionIndexCache`'s
 * format, read only when the project changed). A warm listing after a change reads again and
 * rebuilds only the changed projects; the others' rows are loaded as kept and merged.
 *
 * A rows file that is not exactly this version's for its project and digest is not trusted: the
 * project is listed again and the file rewritten.
 */
import { writePrivateFile } from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as ListingRows from "../ListingRows.js"
import * as SessionIndexCache from "../SessionIndexCache.js"

// bumped whenever a kept row would differ (the caller's `build` covers the code that builds rows)
const VERSION = 1

const hash16 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16)

/** The directory of the listing kept for the `projects` directory `projectsDir` under `cacheDir`. */
export const dirFor = (cacheDir: string, projectsDir: string): string =>
  path.join(cacheDir, `listing-${hash16(projectsDir)}`)

/** The listing-cache file of one project (`SessionIndexCache.indexFiles`' `cacheFile`). */
export const entriesFileFor = (dir: string, projectKey: string): string =>
  path.join(dir, `${hash16(projectKey)}.entries.json`)

const rowsFileFor = (dir: string, projectKey: string): string => path.join(dir, `${hash16(projectKey)}.rows.json`)

/**
 * What a project's rows are made of: the build that makes them, the listing cache's version, and
 * each transcript's path, size and mtime as the walk's `stat` said them (the listing cache's key).
 */
export const digestOf = (
  build: string,
  projectsDir: string,
  projectKey: string,
  files: ReadonlyArray<SessionIndexCache.ListedFile>
): string => {
  const hash = createHash("sha256").update(
    JSON.stringify([VERSION, SessionIndexCache.VERSION, build, projectsDir, projectKey])
  )
  for (const file of files) hash.update(`\n${file.file}\0${file.size}\0${file.mtime}`)
  return hash.digest("hex")
}

const isKeyedRow = (value: unknown): value is ListingRows.KeyedRow =>
  typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)["at"] === "number" &&
  typeof (value as Record<string, unknown>)["row"] === "object" && (value as Record<string, unknown>)["row"] !== null

/** The project's kept rows when they were kept for `digest`; `undefined` otherwise (absent, corrupt, stale). */
export const loadRows = (
  dir: string,
  projectsDir: string,
  projectKey: string,
  digest: string
): Array<ListingRows.KeyedRow> | undefined => {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(rowsFileFor(dir, projectKey), "utf8"))
    if (typeof value !== "object" || value === null) return undefined
    const kept = value as Record<string, unknown>
    const rows = kept["rows"]
    if (
      kept["version"] !== VERSION || kept["projectsDir"] !== projectsDir || kept["projectKey"] !== projectKey ||
      kept["digest"] !== digest || !Array.isArray(rows) || !rows.every(isKeyedRow)
    ) return undefined
    return rows
  } catch {
    return undefined
  }
}

/** Keeps the project's rows for `digest` (owner-only, renamed into place); a write that fails keeps nothing. */
export const saveRows = (
  dir: string,
  projectsDir: string,
  projectKey: string,
  digest: string,
  rows: ReadonlyArray<ListingRows.KeyedRow>
): void => {
  try {
    writePrivateFile(
      rowsFileFor(dir, projectKey),
      JSON.stringify({ version: VERSION, projectsDir, projectKey, digest, rows })
    )
  } catch {
    // not kept: listed again next time
  }
}

/** A project's newest activity (the first of its rows), under the digest of what its rows are made of. */
export interface Head {
  readonly digest: string
  readonly newest: number
}

const headsFileFor = (dir: string): string => path.join(dir, "heads.json")

const isHead = (value: unknown): value is Head =>
  typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)["digest"] === "string" &&
  typeof (value as Record<string, unknown>)["newest"] === "number"

/** Each project's head, by project key (empty when absent, corrupt or not this version's). */
export const loadHeads = (dir: string, projectsDir: string): Map<string, Head> => {
  const heads = new Map<string, Head>()
  try {
    const value: unknown = JSON.parse(fs.readFileSync(headsFileFor(dir), "utf8"))
    if (typeof value !== "object" || value === null) return heads
    const kept = value as Record<string, unknown>
    const given = kept["heads"]
    if (kept["version"] !== VERSION || kept["projectsDir"] !== projectsDir) return heads
    if (typeof given !== "object" || given === null || Array.isArray(given)) return heads
    for (const [projectKey, head] of Object.entries(given)) if (isHead(head)) heads.set(projectKey, head)
  } catch {
    // none kept: every project is checked before its rows are known to come later
  }
  return heads
}

/** Keeps the heads (owner-only, renamed into place); a write that fails keeps nothing. */
export const saveHeads = (dir: string, projectsDir: string, heads: ReadonlyMap<string, Head>): void => {
  try {
    writePrivateFile(
      headsFileFor(dir),
      JSON.stringify({ version: VERSION, projectsDir, heads: Object.fromEntries(heads) })
    )
  } catch {
    // not kept: the next run checks the projects in the walk's order
  }
}
