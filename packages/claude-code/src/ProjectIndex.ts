/**
 * The compact index of a config directory's `projects` tree, without Effect (node:fs,
 * synchronous): one file per project under `$ACX_HOME/cache/index-<hash>/`, holding the listings
 * of the project's directories (the project directory itself, and the `subagents` directories under
 * its sessions) with the change time, modification time and inode each was listed at. The walk
 * (`ConfigTree`) asks it before it lists a directory: a directory whose `stat` still says what it
 * said when it was listed holds the same entries (adding, removing or renaming an entry changes
 * a directory's change time, which no one can set back), so it is not listed again (and a
 * session with no directory in that listing has no `subagents` directory to ask about: the walk
 * knows it from the listing). Files are not in the index: a transcript grows
 * without its directory changing, so the walk still `stat`s every file it returns (its size and
 * mtime are what the listing cache, the fold cache and the unchanged-sync check compare).
 *
 * A warm walk of 20 000 sessions thus costs one `stat` per project, per session directory holding
 * subagents and per file, instead of a `readdir` per session. Only the projects whose listings
 * were read again are written back, each to a file of its own, written beside it and renamed over
 * it: two processes updating the index at once each rename a whole file, and whichever listing
 * lands is checked against the directory on the next run (a stale one is listed again, never
 * trusted). A listing taken while its directory's times were too recent to tell a later change
 * apart (the racy window of coarse file-system clocks) is not kept. A file that is not exactly
 * what this version writes for its project (corrupt, foreign, another version) counts as none and
 * is rewritten; the index never stops a walk.
 *
 * @since 0.7.0
 */
import { PRIVATE_DIRECTORY_MODE, writePrivateFile } from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The index format's version: a file of another version is rebuilt.
 *
 * @since 0.7.0
 * @category index
 */
export const VERSION = 1

/**
 * A directory entry as the walk reads it: what `fs.Dirent` offers the walk, whether read now or
 * kept in the index.
 *
 * @since 0.7.0
 * @category models
 */
export interface Entry {
  readonly name: string
  isFile(): boolean
  isDirectory(): boolean
  isSymbolicLink(): boolean
}

// An entry's type as kept: f(ile), d(irectory), l(ink), o(ther: FIFO, socket, device), u(nknown:
// the file system did not say, so the walk asks `stat`).
type TypeCode = "f" | "d" | "l" | "o" | "u"

const typeCodeOf = (entry: Entry): TypeCode =>
  entry.isSymbolicLink() ? "l" : entry.isFile() ? "f" : entry.isDirectory() ? "d" : isOther(entry) ? "o" : "u"

const isOther = (entry: Entry): boolean => {
  const dirent = entry as Partial<fs.Dirent>
  return dirent.isFIFO?.() === true || dirent.isSocket?.() === true || dirent.isBlockDevice?.() === true ||
    dirent.isCharacterDevice?.() === true
}

class KeptEntry implements Entry {
  constructor(readonly name: string, private readonly type: TypeCode) {}
  isFile() {
    return this.type === "f"
  }
  isDirectory() {
    return this.type === "d"
  }
  isSymbolicLink() {
    return this.type === "l"
  }
  isFIFO() {
    return this.type === "o"
  }
}

// What `stat` said of a directory when it was listed: a listing holds while all three are the same.
interface DirStamp {
  readonly ctimeMs: number
  readonly mtimeMs: number
  readonly ino: number
}

interface Listing extends DirStamp {
  /** Name and type of each entry, in the walk's (name) order. */
  readonly entries: ReadonlyArray<readonly [string, TypeCode]>
}

interface ProjectFile {
  /** By directory, relative to the project directory (`""`: the project directory itself). */
  readonly listings: Map<string, Listing>
}

/**
 * An index opened for one walk: the projects' files loaded as the walk reaches them, the ones to
 * write back, and what this run asked of the file system (for tests and the bench).
 *
 * @since 0.7.0
 * @category models
 */
export interface ProjectIndex {
  readonly dir: string
  readonly projectsDir: string
  readonly projects: Map<string, ProjectFile>
  readonly dirty: Set<string>
  /** Directories listed by `readdir` in this run. */
  listed: number
  /** Directories answered from the index (confirmed by `stat`) in this run. */
  kept: number
  /** The clock a listing's age is told by (epoch milliseconds). */
  readonly now: () => number
}

// A listing younger than this (by its directory's times) is not kept: a change within the same
// clock tick of a coarse file-system clock would leave the times as they were.
const RACY_MS = 2_000

const sha16 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16)

/**
 * The index directory of the `projects` directory `projectsDir` (absolute) in `cacheDir`.
 *
 * @since 0.7.0
 * @category index
 */
export const indexDirFor = (cacheDir: string, projectsDir: string): string =>
  path.join(cacheDir, `index-${sha16(projectsDir)}`)

/**
 * The index file of one project in an index directory.
 *
 * @since 0.7.0
 * @category index
 */
export const projectFileFor = (indexDir: string, projectKey: string): string =>
  path.join(indexDir, `${sha16(projectKey)}.json`)

/**
 * The index of `projectsDir` kept in `cacheDir` (`$ACX_HOME/cache`); nothing is read until the
 * walk reaches a project. `now` is the clock listings are aged by (tests move it on, so that the
 * listings of a tree they just wrote are kept).
 *
 * @since 0.7.0
 * @category index
 */
export const open = (
  cacheDir: string,
  projectsDir: string,
  options: { readonly now?: (() => number) | undefined } = {}
): ProjectIndex => ({
  dir: indexDirFor(cacheDir, projectsDir),
  projectsDir,
  projects: new Map(),
  dirty: new Set(),
  listed: 0,
  kept: 0,
  now: options.now ?? Date.now
})

const isTypeCode = (value: unknown): value is TypeCode =>
  value === "f" || value === "d" || value === "l" || value === "o" || value === "u"

const isListing = (value: unknown): value is Listing => {
  if (typeof value !== "object" || value === null) return false
  const listing = value as Record<string, unknown>
  return typeof listing["ctimeMs"] === "number" && typeof listing["mtimeMs"] === "number" &&
    typeof listing["ino"] === "number" && Array.isArray(listing["entries"]) &&
    listing["entries"].every((entry: unknown) =>
      Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" && isTypeCode(entry[1])
    )
}

// A project's listings from its file: anything not exactly this version's for this project is none.
const parseProject = (text: string, projectsDir: string, projectKey: string): Map<string, Listing> => {
  const listings = new Map<string, Listing>()
  try {
    const value = JSON.parse(text) as Record<string, unknown> | null
    if (typeof value !== "object" || value === null) return listings
    if (value["version"] !== VERSION || value["projectsDir"] !== projectsDir || value["projectKey"] !== projectKey) {
      return listings
    }
    const kept = value["listings"]
    if (typeof kept !== "object" || kept === null || Array.isArray(kept)) return listings
    for (const [dir, listing] of Object.entries(kept)) if (isListing(listing)) listings.set(dir, listing)
  } catch {
    // not JSON: rebuilt
  }
  return listings
}

const projectOf = (index: ProjectIndex, projectKey: string): ProjectFile => {
  let project = index.projects.get(projectKey)
  if (project === undefined) {
    let text = ""
    try {
      text = fs.readFileSync(projectFileFor(index.dir, projectKey), "utf8")
    } catch {
      // none yet, or unreadable: rebuilt
    }
    project = { listings: parseProject(text, index.projectsDir, projectKey) }
    index.projects.set(projectKey, project)
  }
  return project
}

// `dir` as a project key and a path under its directory (`/`-separated), or `undefined` outside
// any project. The walk joins every path it lists onto the projects directory: a prefix test,
// not `path.relative` (which resolves both paths anew at every call).
const placeOf = (index: ProjectIndex, dir: string) => {
  const prefix = index.projectsDir + path.sep
  if (!dir.startsWith(prefix) || dir.length === prefix.length) return undefined
  const rest = dir.slice(prefix.length)
  const cut = rest.indexOf(path.sep)
  const projectKey = cut < 0 ? rest : rest.slice(0, cut)
  if (projectKey === "" || projectKey === "." || projectKey === "..") return undefined
  const under = cut < 0 ? "" : rest.slice(cut + 1)
  return { projectKey, under: path.sep === "/" ? under : under.split(path.sep).join("/") }
}

const stampOf = (dir: string): DirStamp | undefined => {
  try {
    const stat = fs.statSync(dir)
    return stat.isDirectory() ? { ctimeMs: stat.ctimeMs, mtimeMs: stat.mtimeMs, ino: stat.ino } : undefined
  } catch {
    return undefined
  }
}

const sameStamp = (a: DirStamp, b: DirStamp): boolean =>
  a.ctimeMs === b.ctimeMs && a.mtimeMs === b.mtimeMs && a.ino === b.ino

/**
 * The entries of `dir` (absolute, under a project directory) as the index holds them, when they
 * still hold: the kept entries of a directory whose `stat` says what it said when it was listed;
 * `undefined` when the walk must list it (then {@link remember} keeps what it read).
 *
 * @since 0.7.0
 * @category index
 */
export const recall = (index: ProjectIndex, dir: string): ReadonlyArray<Entry> | undefined => {
  const place = placeOf(index, dir)
  if (place === undefined) return undefined
  const project = projectOf(index, place.projectKey)
  const listing = project.listings.get(place.under)
  if (listing === undefined) return undefined
  const now = stampOf(dir)
  if (now === undefined || !sameStamp(now, listing)) return undefined
  index.kept++
  return listing.entries.map(([name, type]) => new KeptEntry(name, type))
}

/**
 * The stamp to list `dir` under: taken before it is listed, so a change during the listing shows
 * as a change next time.
 *
 * @since 0.7.0
 * @category index
 */
export const stampBefore = (index: ProjectIndex, dir: string): DirStamp | undefined =>
  placeOf(index, dir) === undefined ? undefined : stampOf(dir)

// Keeps only the listings under entries the project directory still holds.
const pruned = (listings: Map<string, Listing>, entries: ReadonlyArray<Entry>): Map<string, Listing> => {
  const names = new Set(entries.map((entry) => entry.name))
  const kept = new Map<string, Listing>()
  for (const [under, listing] of listings) {
    if (under === "" || names.has(under.split("/")[0]!)) kept.set(under, listing)
  }
  return kept
}

/**
 * Keeps what the walk read of `dir` (its entries, in the walk's order), stamped as it was before
 * the listing (`stamp`: {@link stampBefore}); a listing too recent to be told apart from a later
 * change is used for this run only.
 *
 * @since 0.7.0
 * @category index
 */
export const remember = (
  index: ProjectIndex,
  dir: string,
  stamp: DirStamp | undefined,
  entries: ReadonlyArray<Entry>
): void => {
  const place = placeOf(index, dir)
  if (place === undefined) return
  index.listed++
  let project = projectOf(index, place.projectKey)
  if (place.under === "") {
    project = { listings: pruned(project.listings, entries) }
    index.projects.set(place.projectKey, project)
  }
  const listing: Listing | undefined = stamp === undefined ? undefined : {
    ...stamp,
    entries: entries.map((entry) => [entry.name, typeCodeOf(entry)] as const)
  }
  const settled = stamp !== undefined && index.now() - Math.max(stamp.ctimeMs, stamp.mtimeMs) > RACY_MS
  if (listing !== undefined && settled) project.listings.set(place.under, listing)
  else project.listings.delete(place.under)
  index.dirty.add(place.projectKey)
}

/**
 * Writes back the projects whose listings were read in this run, each to its own file (written
 * beside it, then renamed over it). Best effort: an index that cannot be written is read again
 * next time, never an error.
 *
 * @since 0.7.0
 * @category index
 */
export const save = (index: ProjectIndex): void => {
  if (index.dirty.size === 0) return
  try {
    fs.mkdirSync(index.dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  } catch {
    return
  }
  for (const projectKey of index.dirty) {
    const project = index.projects.get(projectKey)
    if (project === undefined) continue
    const body = {
      version: VERSION,
      projectsDir: index.projectsDir,
      projectKey,
      listings: Object.fromEntries(project.listings)
    }
    try {
      writePrivateFile(projectFileFor(index.dir, projectKey), JSON.stringify(body))
    } catch {
      // not kept: listed again next time
    }
  }
  index.dirty.clear()
}
