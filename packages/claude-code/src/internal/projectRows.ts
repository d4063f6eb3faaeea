/**
 * The listing kept per project (`acx sessions` over a config directory): for each project, in
 * `$ACX_HOME/cache/listing-<sha256(projectsDir)[:16]>/`, its rows as built (secrets masked, no
 * origin) with their sort keys (`<sha256(projectKey)[:16]>.rows.json`), under a digest of what
 * they are made of, and its listing-cache entries (`<…>.entries.json`, `SessionIndexCache`'s
 * format, read only when the project changed). A warm listing after a change reads again and
 * rebuilds only the changed projects; the others' rows are loaded as kept and merged
 * ({@link projectRowsOf}, `PlainListing.sessionsListing`'s listing project by project).
 *
 * A rows file that is not exactly this version's for its project and digest is not trusted: the
 * project is listed again and the file rewritten.
 */
import { writePrivateFile } from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as ConfigTree from "../ConfigTree.js"
import * as ListingRows from "../ListingRows.js"
import * as SessionIndexCache from "../SessionIndexCache.js"
import * as ProjectOrigin from "./projectOrigin.js"

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

// What a listing project by project takes of `PlainListing.SessionsListingOptions`.
interface ProjectRowsOptions {
  readonly cacheDir: string
  readonly build: string
  readonly limits?: SessionIndexCache.IndexOptions["limits"]
  readonly limit?: number | undefined
  readonly onRows?: ((rows: ReadonlyArray<ListingRows.ListedSession>) => void) | undefined
  readonly onProject?: ((projectKey: string) => void) | undefined
}

// What stops it: `PlainListing.ListingFailure`'s I/O case.
interface IoFailure {
  readonly reason: "Io"
  readonly description: string
  readonly cause: unknown
}

type ProjectCheck = {
  readonly projectKey: string
  readonly files: ReadonlyArray<ConfigTree.TreeSession>
  readonly digest: string
  /** The newest activity its rows can have: its kept head's, else unknown (`Infinity`). */
  readonly bound: number
}

/**
 * The rows of the walk's sessions, project by project, in {@link ListingRows.rows}'
 * order. A project whose transcripts are what its kept rows were made of gives those; any other is
 * indexed over its own entries (`SessionIndexCache.indexFiles`), built, and kept (unless a
 * transcript was not read). The projects are checked newest first (by their kept heads; a changed
 * one first of all), and after each, the rows no unchecked project can beat go to `onRows`. The
 * paths left out: the walk's, then the transcripts not read, in the walk's order.
 */
export const projectRowsOf = (
  walk: ConfigTree.Walk,
  found: ReadonlyArray<ConfigTree.TreeSession>,
  options: ProjectRowsOptions
):
  | {
    readonly rows: Array<ListingRows.ListedSession>
    readonly skipped: Array<ConfigTree.Skipped>
    readonly failure?: undefined
  }
  | { readonly skipped: Array<ConfigTree.Skipped>; readonly failure: IoFailure } =>
{
  const { projectsDir } = walk
  const dir = dirFor(options.cacheDir, projectsDir)
  const heads = loadHeads(dir, projectsDir)
  const projects = checksOf(walk, found, options.build, heads)
  const unread = new Map<string, Array<ConfigTree.Skipped>>()
  const rows: Array<ListingRows.ListedSession> = []
  const local = ProjectOrigin.localOrigin()
  let pending: Array<ListingRows.KeyedRow> = []
  let headsChanged = false
  for (let i = 0; i < projects.length; i++) {
    const project = projects[i]!
    options.onProject?.(project.projectKey)
    const checked = checkProject(dir, projectsDir, project, options.limits)
    if ("failure" in checked) return { skipped: [...walk.skipped], failure: checked.failure }
    unread.set(project.projectKey, checked.unread)
    if (checked.head !== undefined) {
      heads.set(project.projectKey, checked.head)
      headsChanged = true
    }
    ListingRows.setOrigins(checked.keyed, ProjectOrigin.originsOfSessions(checked.keyed.map(({ row }) => row), local))
    pending = mergeSorted(pending, checked.keyed)
    // what no unchecked project can beat (a tie may sort either way: it waits)
    const bound = projects[i + 1]?.bound ?? Number.NEGATIVE_INFINITY
    let cut = 0
    while (cut < pending.length && pending[cut]!.at > bound) cut++
    const room = options.limit === undefined ? cut : Math.min(cut, Math.max(0, options.limit - rows.length))
    const batch = pending.slice(0, room).map(({ row }) => row)
    pending = pending.slice(cut)
    for (const row of batch) rows.push(row)
    if (batch.length > 0) options.onRows?.(batch)
  }
  if (headsChanged) saveHeads(dir, projectsDir, heads)
  const skipped = [...walk.skipped]
  for (const projectKey of new Set(found.map((session) => session.projectKey))) {
    for (const item of unread.get(projectKey) ?? []) skipped.push(item)
  }
  return { rows, skipped }
}

// The projects of the walk, newest first by their kept heads, a project without one (or changed
// since) first of all.
const checksOf = (
  walk: ConfigTree.Walk,
  found: ReadonlyArray<ConfigTree.TreeSession>,
  build: string,
  heads: ReadonlyMap<string, Head>
): Array<ProjectCheck> =>
  [...groupedByProject(found)].map(([projectKey, files]): ProjectCheck => {
    const digest = digestOf(build, walk.projectsDir, projectKey, files)
    const head = heads.get(projectKey)
    return { projectKey, files, digest, bound: head?.digest === digest ? head.newest : Number.POSITIVE_INFINITY }
  }).sort((a, b) => a.bound === b.bound ? 0 : b.bound > a.bound ? 1 : -1)

// One project's rows, in order: kept, else indexed and built (and kept, with its new head).
const checkProject = (
  dir: string,
  projectsDir: string,
  project: ProjectCheck,
  limits: SessionIndexCache.IndexOptions["limits"]
):
  | {
    readonly keyed: Array<ListingRows.KeyedRow>
    readonly unread: Array<ConfigTree.Skipped>
    readonly head?: Head | undefined
  }
  | { readonly failure: IoFailure } =>
{
  const { digest, files, projectKey } = project
  const kept = loadRows(dir, projectsDir, projectKey, digest)
  if (kept !== undefined) {
    kept.sort(ListingRows.byKeyedRow)
    // a head lost (or never kept) is kept again from the rows
    const head = project.bound === Number.POSITIVE_INFINITY && kept.length > 0
      ? { digest, newest: kept[0]!.at }
      : undefined
    return { keyed: kept, unread: [], head }
  }
  const cacheFile = entriesFileFor(dir, projectKey)
  const run = SessionIndexCache.indexFiles(
    { projectsDir, cacheFile, limits },
    files,
    path.join(projectsDir, projectKey)
  )
  if (run.failure !== undefined) {
    const { cause, file } = run.failure
    return { failure: { reason: "Io", description: `I/O error: ${file}`, cause } }
  }
  const unread = run.unread.map(({ description, file }): ConfigTree.Skipped => ({
    path: file,
    reason: "Unreadable",
    description
  }))
  const keyed = ListingRows.keyedRows(files.map((session, i) => ({ ...session, ...run.metadata[i] })))
    .sort(ListingRows.byKeyedRow)
  if (unread.length > 0) return { keyed, unread }
  saveRows(dir, projectsDir, projectKey, digest, keyed)
  return { keyed, unread, head: { digest, newest: keyed[0]!.at } }
}

// Two lists in `ListingRows.byKeyedRow` order as one.
const mergeSorted = (
  a: ReadonlyArray<ListingRows.KeyedRow>,
  b: ReadonlyArray<ListingRows.KeyedRow>
): Array<ListingRows.KeyedRow> => {
  if (a.length === 0) return [...b]
  const merged: Array<ListingRows.KeyedRow> = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) merged.push(ListingRows.byKeyedRow(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!)
  while (i < a.length) merged.push(a[i++]!)
  while (j < b.length) merged.push(b[j++]!)
  return merged
}

// the walk's sessions by project, in its order
const groupedByProject = (
  found: ReadonlyArray<ConfigTree.TreeSession>
): Map<string, Array<ConfigTree.TreeSession>> => {
  const groups = new Map<string, Array<ConfigTree.TreeSession>>()
  for (const session of found) {
    const group = groups.get(session.projectKey)
    if (group === undefined) groups.set(session.projectKey, [session])
    else group.push(session)
  }
  return groups
}
